/**
 * Writing an export folder atomically: everything goes into a hidden sibling folder that is renamed into place at
 * the end, so a reader (or a crash) sees the whole export or none of it; an existing folder is replaced only when the
 * caller says `overwrite`, and the free space is checked before the first byte is written.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, statfsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { WeightsError } from './errors.js';

/** Free bytes for an unprivileged writer on the file system holding `dir`. */
export function freeBytesAt(dir: string): number {
  const s = statfsSync(dir);
  return Number(s.bavail) * Number(s.bsize);
}

/** `n` bytes for people (`1.5 GB`). */
export function formatBytes(n: number): string {
  if (n < 1e3) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = -1;
  while (v >= 1e3 && u < units.length - 1) {
    v /= 1e3;
    u++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[u]}`;
}

/** Options every export takes. */
export interface OutputOptions {
  /** Replace an existing output folder (default false: an existing one is an error). */
  overwrite?: boolean;
  /** Free bytes where the output goes (default: asked of the file system); tests pass a small number. */
  freeBytes?: (dir: string) => number;
}

/**
 * Runs `fill(tmp)` in a fresh hidden folder beside `out`, then renames it to `out`. `needBytes` is checked against
 * the free space first (with 1% and 1 MB to spare). A failure removes the hidden folder; ENOSPC becomes a message
 * naming the folder.
 */
export async function writeFolderAtomic(
  out: string,
  needBytes: number,
  options: OutputOptions,
  fill: (tmp: string) => Promise<void> | void,
): Promise<void> {
  const dest = resolve(out);
  if (existsSync(dest) && options.overwrite !== true) {
    throw new WeightsError(`${out} already exists; choose another folder or pass overwrite=true to replace it`);
  }
  const parent = dirname(dest);
  mkdirSync(parent, { recursive: true });
  const free = (options.freeBytes ?? freeBytesAt)(parent);
  const want = Math.ceil(needBytes * 1.01) + 1e6;
  if (free < want) {
    throw new WeightsError(
      `not enough disk space for ${out}: the export needs about ${formatBytes(want)} and ${parent} has ${formatBytes(free)} free; free some space or write elsewhere`,
    );
  }
  const tmp = join(parent, `.${basename(dest)}.${randomUUID()}.tmp`);
  mkdirSync(tmp);
  try {
    try {
      await fill(tmp);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOSPC') {
        throw new WeightsError(`no space left on the device while writing ${out}; free some space or write elsewhere`, {
          cause: e,
        });
      }
      throw e;
    }
    if (existsSync(dest)) {
      const old = join(parent, `.${basename(dest)}.${randomUUID()}.old`);
      renameSync(dest, old);
      renameSync(tmp, dest);
      rmSync(old, { recursive: true, force: true });
    } else {
      renameSync(tmp, dest);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
