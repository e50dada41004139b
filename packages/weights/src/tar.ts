/**
 * Extracting a checkpoint archive (a POSIX tar, as the Tinker services serve them) into a folder, with the checks
 * upstream's downloader makes (no symlink or hard link, no path leaving the folder) plus header checksums and a
 * size cap, so a damaged or hostile archive fails with a message naming it instead of leaving half a folder.
 */
import { closeSync, mkdirSync, openSync, readSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, sep } from 'node:path';
import { WeightsError } from './errors.js';

/** Largest archive extracted by default (16 GiB): a bound checked before anything is allocated. */
export const DEFAULT_MAX_ARCHIVE_BYTES = 16 * 1024 ** 3;

/** One extracted file. */
export interface ExtractedFile {
  name: string;
  size: number;
}

function octal(h: Buffer, at: number, len: number): number {
  const text = h
    .toString('ascii', at, at + len)
    .replace(/\0.*$/s, '')
    .trim();
  if (text === '') return 0;
  if (!/^[0-7]+$/.test(text)) return Number.NaN;
  return Number.parseInt(text, 8);
}

function checksumOk(h: Buffer): boolean {
  const want = octal(h, 148, 8);
  let sum = 0;
  for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
  return sum === want;
}

/** `path=` of a pax extended header, if any. */
function paxPath(data: Buffer): string | undefined {
  let at = 0;
  let path: string | undefined;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const len = Number.parseInt(data.toString('ascii', at, space), 10);
    if (!Number.isInteger(len) || len <= 0) break;
    const record = data.toString('utf8', space + 1, at + len - 1);
    if (record.startsWith('path=')) path = record.slice(5);
    at += len;
  }
  return path;
}

/**
 * Extracts the tar file `archive` into the existing folder `dest`: regular files and folders only.
 * @throws WeightsError naming the archive when it is truncated, has a bad header checksum, holds a link, a path that
 *   leaves the folder, or more than `maxBytes` of data
 */
export function extractTar(archive: string, dest: string, options: { maxBytes?: number } = {}): ExtractedFile[] {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_ARCHIVE_BYTES;
  const size = statSync(archive).size;
  const corrupt = (why: string) =>
    new WeightsError(`${archive} is not a valid checkpoint archive: ${why}; download it again`);
  if (size > maxBytes) throw corrupt(`it is ${size} bytes, over the limit of ${maxBytes}`);
  if (size < 1024 || size % 512 !== 0) throw corrupt(`its size (${size} bytes) is not a whole number of tar blocks`);
  const fd = openSync(archive, 'r');
  const out: ExtractedFile[] = [];
  try {
    const read = (at: number, n: number): Buffer => {
      const b = Buffer.alloc(n);
      let got = 0;
      while (got < n) {
        const r = readSync(fd, b, got, n - got, at + got);
        if (r <= 0) throw corrupt(`it ends inside an entry (at byte ${at + got})`);
        got += r;
      }
      return b;
    };
    let at = 0;
    let nextPath: string | undefined;
    let ended = false;
    while (at + 512 <= size) {
      const h = read(at, 512);
      if (h.every((b) => b === 0)) {
        ended = true;
        break;
      }
      if (!checksumOk(h)) throw corrupt(`the header at byte ${at} fails its checksum`);
      const type = String.fromCharCode(h[156]!);
      const entrySize = octal(h, 124, 12);
      if (!Number.isSafeInteger(entrySize) || entrySize < 0) throw corrupt(`the header at byte ${at} has a bad size`);
      const dataAt = at + 512;
      if (dataAt + entrySize > size) throw corrupt(`the entry at byte ${at} runs past the end of the file`);
      at = dataAt + Math.ceil(entrySize / 512) * 512;
      if (type === 'x') {
        nextPath = paxPath(read(dataAt, entrySize));
        continue;
      }
      if (type === 'g') continue;
      const prefix = h.toString('utf8', 345, 500).replace(/\0.*$/s, '');
      const base = h.toString('utf8', 0, 100).replace(/\0.*$/s, '');
      const name = nextPath ?? (prefix ? `${prefix}/${base}` : base);
      nextPath = undefined;
      if (type === '1' || type === '2') throw corrupt(`it holds a link (${name}); links are refused`);
      const rel = normalize(name);
      if (name === '' || isAbsolute(name) || rel === '..' || rel.startsWith(`..${sep}`)) {
        throw corrupt(`entry "${name}" would be written outside the destination folder`);
      }
      const target = join(dest, rel);
      if (type === '5') {
        mkdirSync(target, { recursive: true });
        continue;
      }
      if (type !== '0' && type !== '\0' && type !== '7')
        throw corrupt(`entry "${name}" has unsupported type "${type}"`);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, read(dataAt, entrySize));
      out.push({ name: rel.split(sep).join('/'), size: entrySize });
    }
    if (!ended) throw corrupt('it has no end-of-archive marker (truncated)');
  } finally {
    closeSync(fd);
  }
  return out;
}
