import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** Writes `content` to `path` via a synced temp file and a rename: readers and crashes see the old or the new file. */
export function writeFileAtomicSync(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/**
 * A promise for `future` that never counts as an unhandled rejection while nobody awaits it yet. The pipelined loop
 * submits work long before it awaits the result; a failure in between must surface at the await, not crash Node.
 */
export function deferred<T>(future: PromiseLike<T>): Promise<T> {
  const p = Promise.resolve(future);
  p.catch(() => undefined);
  return p;
}
