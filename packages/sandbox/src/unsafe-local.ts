/**
 * `unsafe_local`: runs commands as plain child processes of the caller, with the caller's rights — its network, its
 * files, its home. For code you trust only; chosen only by name (`sandbox_backend=unsafe_local`), never as a fallback,
 * and every line it logs says `unsafe_local`. It keeps the interface's semantics otherwise: each command gets a fresh
 * temporary folder holding the sandbox's files, removed afterwards, and the wall-clock deadline, output cap and
 * cancellation kill the command's process group (a process that leaves the group survives: nothing confines it).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { checkSandboxPath, FileStore } from './internal/file-store.js';
import { runProcess } from './internal/run-process.js';
import { StoredFilesSandbox } from './internal/stored-files-sandbox.js';
import {
  DEFAULT_COMMAND_TIMEOUT_MS,
  DEFAULT_MAX_OUTPUT_BYTES,
  failedResult,
  type RunCommandOptions,
  type SandboxResult,
} from './sandbox.js';

/** Options of {@link UnsafeLocalSandbox}. */
export interface UnsafeLocalOptions {
  /** Where log lines go. Default: stderr. */
  log?: (line: string) => void;
}

let nextId = 0;
let warned = false;

/** Runs code unconfined. See the module comment: for trusted code only. */
export class UnsafeLocalSandbox extends StoredFilesSandbox {
  readonly backend = 'unsafe_local';
  readonly sandboxId = `unsafe_local-${process.pid}-${nextId++}`;
  private readonly log: (line: string) => void;

  constructor(options: UnsafeLocalOptions = {}) {
    super(new FileStore(256 * 1024 * 1024));
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    if (!warned || options.log !== undefined) {
      warned = true;
      this.log(
        '[sandbox unsafe_local] code runs UNCONFINED with your rights (network, files, home): trusted code only',
      );
    }
  }

  async runCommand(command: string, options: RunCommandOptions = {}): Promise<SandboxResult> {
    if (this.closed) return failedResult(`[sandbox unsafe_local] sandbox ${this.sandboxId} was cleaned up`);
    let cwd: string;
    try {
      cwd = checkSandboxPath(options.cwd ?? '.', 'cwd');
    } catch (e) {
      return failedResult((e as Error).message);
    }
    const root = mkdtempSync(join(tmpdir(), 'cookbook-unsafe-local-'));
    try {
      for (const f of this.files.list()) {
        const p = join(root, f.path);
        mkdirSync(dirname(p), { recursive: true });
        writeFileSync(p, f.content, { mode: f.executable ? 0o755 : 0o644 });
      }
      const dir = join(root, cwd);
      mkdirSync(dir, { recursive: true });
      const signal =
        options.signal === undefined ? this.stop.signal : AbortSignal.any([options.signal, this.stop.signal]);
      const r = await runProcess(['/bin/sh', '-c', command], {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, LANG: 'C.UTF-8', PYTHONIOENCODING: 'utf-8' },
        cwd: dir,
        ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
        timeoutMs: options.timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS,
        maxOutputBytes: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
        signal,
      });
      if (r.exitCode === -1) this.log(`[sandbox unsafe_local] ${this.sandboxId}: ${r.stderr.split('\n').at(-1)}`);
      return r;
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }
}
