// Atomic folder writes: build everything in a sibling temp folder, then rename it into place.
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

let counter = 0;

/**
 * Runs `fill(tmpDir)` and then moves tmpDir to `dir`, replacing any previous folder only once the new one is
 * complete. A crash leaves at worst a `.tmp-*` sibling, never a half-written `dir`.
 */
export async function writeDirAtomic(dir: string, fill: (tmpDir: string) => void | Promise<void>): Promise<void> {
  const parent = dirname(dir);
  mkdirSync(parent, { recursive: true });
  const tag = `${process.pid}-${Date.now()}-${counter++}`;
  const tmp = join(parent, `.${basename(dir)}.tmp-${tag}`);
  mkdirSync(tmp);
  try {
    await fill(tmp);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  if (existsSync(dir)) {
    const old = join(parent, `.${basename(dir)}.old-${tag}`);
    renameSync(dir, old);
    renameSync(tmp, dir);
    rmSync(old, { recursive: true, force: true });
  } else {
    renameSync(tmp, dir);
  }
}
