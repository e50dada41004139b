/**
 * What every backend shares: files are kept in a {@link FileStore} (written into the working folder of each command,
 * or sent with it), and `cleanup` marks the sandbox closed, aborts its running commands and drops its files. A backend
 * supplies only how a command runs.
 */
import { failedResult, type RunCommandOptions, type Sandbox, type SandboxResult } from '../sandbox.js';
import type { FileStore } from './file-store.js';

const NO_RUN = { wallMs: 0, timedOut: false, outputLimitHit: false, cancelled: false };

/** A sandbox whose files live in a {@link FileStore}. */
export abstract class StoredFilesSandbox implements Sandbox {
  abstract readonly backend: string;
  abstract readonly sandboxId: string;
  /** Aborted by {@link cleanup}: a backend passes its signal to the commands it runs. */
  protected readonly stop = new AbortController();
  protected closed = false;

  protected constructor(protected readonly files: FileStore) {}

  abstract runCommand(command: string, options?: RunCommandOptions): Promise<SandboxResult>;

  async writeFile(
    path: string,
    content: string | Uint8Array,
    options: { executable?: boolean } = {},
  ): Promise<SandboxResult> {
    try {
      this.files.put(path, content, options.executable ?? false);
    } catch (e) {
      return failedResult((e as Error).message);
    }
    return { stdout: '', stderr: '', exitCode: 0, metrics: { ...NO_RUN } };
  }

  async readFile(path: string, options: { maxBytes?: number } = {}): Promise<SandboxResult> {
    let f: ReturnType<FileStore['get']>;
    try {
      f = this.files.get(path);
    } catch (e) {
      return failedResult((e as Error).message);
    }
    if (f === undefined) return { stdout: '', stderr: `no such file: ${path}`, exitCode: 1, metrics: { ...NO_RUN } };
    const data = options.maxBytes === undefined ? f.content : f.content.subarray(0, options.maxBytes);
    return { stdout: new TextDecoder().decode(data), stderr: '', exitCode: 0, metrics: { ...NO_RUN } };
  }

  async heartbeat(): Promise<void> {}

  async cleanup(): Promise<void> {
    this.closed = true;
    this.stop.abort();
    this.files.clear();
  }
}
