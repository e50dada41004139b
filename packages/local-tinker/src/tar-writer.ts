/**
 * A minimal POSIX ustar writer for checkpoint archives (regular files only, names ≤ 100 bytes). Reading one back is
 * `@cookbook/weights`' `extractTar` (the one tar reader).
 */

import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CheckpointError } from '@cookbook/core';

function header(name: string, size: number, mtime: number): Buffer {
  const h = Buffer.alloc(512, 0);
  const nameBytes = Buffer.from(name, 'utf8');
  if (nameBytes.length > 100) throw new CheckpointError(`tar entry name too long: ${name}`);
  nameBytes.copy(h, 0);
  const octal = (value: number, width: number) => value.toString(8).padStart(width - 1, '0') + '\0';
  h.write(octal(0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(Math.floor(mtime / 1000), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** A tar archive holding `files` (name → bytes). */
function tarFiles(files: { name: string; data: Uint8Array; mtime?: number }[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of files) {
    parts.push(header(f.name, f.data.length, f.mtime ?? Date.now()));
    parts.push(Buffer.from(f.data));
    const pad = (512 - (f.data.length % 512)) % 512;
    if (pad) parts.push(Buffer.alloc(pad, 0));
  }
  parts.push(Buffer.alloc(1024, 0));
  return Buffer.concat(parts);
}

/** A tar of every regular file directly inside `dir`, plus extra in-memory entries (mtime default: now). */
export async function tarDirectory(
  dir: string,
  extra: { name: string; data: Uint8Array; mtime?: number }[] = [],
): Promise<Buffer> {
  const files: { name: string; data: Uint8Array; mtime: number }[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isFile()) continue;
    const p = join(dir, entry.name);
    files.push({ name: entry.name, data: await readFile(p), mtime: (await stat(p)).mtimeMs });
  }
  return tarFiles([...files, ...extra.map((e) => ({ ...e, mtime: e.mtime ?? Date.now() }))]);
}
