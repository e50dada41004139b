/**
 * The files a sandbox holds between commands: kept in memory by the caller's process (never on the host's disk), given
 * to every command afresh. Paths are relative, without `..`; their number and total size are bounded.
 */
import { SandboxError } from '../sandbox.js';

/** Files a sandbox may hold. */
export const MAX_SANDBOX_FILES = 256;

/** One stored file. */
export interface StoredFile {
  path: string;
  content: Uint8Array;
  executable: boolean;
}

/** Checks a sandbox-relative path; returns it normalised (no `./`, no doubled `/`). */
export function checkSandboxPath(path: string, what = 'path'): string {
  if (typeof path !== 'string' || path.length === 0 || path.length > 1024) {
    throw new SandboxError(
      `${what} must be a non-empty relative path of at most 1024 characters, got ${JSON.stringify(path)}`,
    );
  }
  if (path.startsWith('/'))
    throw new SandboxError(`${what} ${JSON.stringify(path)} must be relative to the sandbox's folder`);
  if (path.includes('\0')) throw new SandboxError(`${what} ${JSON.stringify(path)} contains a NUL byte`);
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) throw new SandboxError(`${what} ${JSON.stringify(path)} must not contain ".."`);
  return parts.join('/');
}

/** The files of one sandbox. */
export class FileStore {
  private readonly files = new Map<string, StoredFile>();
  private bytes = 0;

  constructor(readonly maxBytes: number) {}

  /** Stores a file; throws a {@link SandboxError} past the count or size limit. */
  put(path: string, content: string | Uint8Array, executable = false): void {
    const p = checkSandboxPath(path);
    if (p === '') throw new SandboxError(`path ${JSON.stringify(path)} names the sandbox's folder itself, not a file`);
    const data = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    const old = this.files.get(p);
    const next = this.bytes - (old?.content.byteLength ?? 0) + data.byteLength;
    if (next > this.maxBytes) {
      throw new SandboxError(
        `writing ${p} (${data.byteLength} bytes) would pass the sandbox's ${this.maxBytes}-byte limit for files`,
      );
    }
    if (old === undefined && this.files.size >= MAX_SANDBOX_FILES) {
      throw new SandboxError(`writing ${p} would pass the sandbox's limit of ${MAX_SANDBOX_FILES} files`);
    }
    this.files.set(p, { path: p, content: data, executable });
    this.bytes = next;
  }

  get(path: string): StoredFile | undefined {
    return this.files.get(checkSandboxPath(path));
  }

  list(): StoredFile[] {
    return [...this.files.values()];
  }

  /** Total bytes stored. */
  get size(): number {
    return this.bytes;
  }

  clear(): void {
    this.files.clear();
    this.bytes = 0;
  }
}
