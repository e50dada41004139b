import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

// The temp file sits in the target's own folder so the rename stays on one filesystem (and so is atomic).
function tempPathFor(path: string): string {
  return join(
    dirname(path),
    `.${path.split(/[\\/]/).pop() ?? 'file'}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
  );
}

/**
 * Writes `content` to `path` via a synced temp file and a rename, so readers and crashes see either the old file or
 * the whole new one, never a part.
 */
export function writeFileAtomicSync(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
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

/** Async twin of {@link writeFileAtomicSync}. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
  try {
    await writeFile(tmp, content, 'utf8');
    await rename(tmp, path);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}
