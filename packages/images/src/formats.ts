/**
 * Image file formats read without decoding: the format from the first bytes (PNG, JPEG, WebP, GIF), the size in
 * pixels from the header, and a structural check of PNG (every chunk's CRC, the compressed pixel data inflates to the
 * size the header gives) and JPEG (marker segments within the file, a frame header before the scan, an end marker).
 * Sizes are known, and bounded, before any pixel is decoded.
 */
import { inflateSync } from 'node:zlib';
import { DataError } from '@cookbook/core';

/** The image formats the loader recognises. */
export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'gif';

/** The formats an image chunk can carry on the wire (the official SDK's `ImageChunk.format`). */
export type WireImageFormat = 'png' | 'jpeg';

/** The format of `bytes` from its signature, or undefined when it is none of {@link ImageFormat}. */
export function sniffImageFormat(bytes: Uint8Array): ImageFormat | undefined {
  const b = bytes;
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) {
    if (b[4] === 0x0d && b[5] === 0x0a && b[6] === 0x1a && b[7] === 0x0a) return 'png';
  }
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 12 && ascii(b, 0, 4) === 'RIFF' && ascii(b, 8, 4) === 'WEBP') return 'webp';
  if (b.length >= 6 && (ascii(b, 0, 6) === 'GIF87a' || ascii(b, 0, 6) === 'GIF89a')) return 'gif';
  return undefined;
}

function ascii(b: Uint8Array, at: number, n: number): string {
  let s = '';
  for (let i = 0; i < n && at + i < b.length; i++) s += String.fromCharCode(b[at + i]!);
  return s;
}

const u16be = (b: Uint8Array, at: number): number => (b[at]! << 8) | b[at + 1]!;
const u16le = (b: Uint8Array, at: number): number => b[at]! | (b[at + 1]! << 8);
const u24le = (b: Uint8Array, at: number): number => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
const u32be = (b: Uint8Array, at: number): number =>
  ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;

/** Width and height in pixels. */
export interface ImageSize {
  width: number;
  height: number;
}

/**
 * The size of an image from its header. Throws a DataError (`where` names the input) when the header is cut short or
 * malformed.
 */
export function readImageSize(bytes: Uint8Array, format: ImageFormat, where: string): ImageSize {
  const bad = (what: string): DataError => new DataError(`${where}: corrupt ${format.toUpperCase()} file (${what})`);
  const b = bytes;
  switch (format) {
    case 'png': {
      if (b.length < 33 || ascii(b, 12, 4) !== 'IHDR') throw bad('no IHDR header chunk');
      return { width: u32be(b, 16), height: u32be(b, 20) };
    }
    case 'gif': {
      if (b.length < 10) throw bad('header cut short');
      return { width: u16le(b, 6), height: u16le(b, 8) };
    }
    case 'webp': {
      if (b.length < 30) throw bad('header cut short');
      const kind = ascii(b, 12, 4);
      if (kind === 'VP8 ') {
        if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) throw bad('bad VP8 frame tag');
        return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff };
      }
      if (kind === 'VP8L') {
        if (b[20] !== 0x2f) throw bad('bad VP8L signature');
        const bits = (b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24)) >>> 0;
        return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
      }
      if (kind === 'VP8X') return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1 };
      throw bad(`unknown WebP chunk "${kind}"`);
    }
    case 'jpeg': {
      let at = 2;
      while (at + 4 <= b.length) {
        if (b[at] !== 0xff) throw bad(`expected a marker at byte ${at}`);
        const marker = b[at + 1]!;
        if (marker === 0xff) {
          at++;
          continue;
        }
        if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
          at += 2;
          continue;
        }
        const len = u16be(b, at + 2);
        if (len < 2 || at + 2 + len > b.length) throw bad(`segment at byte ${at} runs past the end of the file`);
        const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
        if (isFrame) {
          if (len < 7) throw bad('frame header cut short');
          return { height: u16be(b, at + 5), width: u16be(b, at + 7) };
        }
        if (marker === 0xda) throw bad('scan data before any frame header');
        at += 2 + len;
      }
      throw bad('no frame header');
    }
  }
}

const CRC_TABLE: Uint32Array = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/** CRC-32 (the PNG / zlib polynomial). */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

const PNG_CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/**
 * Check a PNG's structure: every chunk within the file with a matching CRC, IHDR first, IDAT present, IEND last, and
 * the pixel data inflating to exactly the size the header implies (non-interlaced images; interlaced ones are checked
 * to inflate). Throws a DataError naming what is wrong.
 */
export function checkPng(bytes: Uint8Array, where: string): void {
  const bad = (what: string): DataError => new DataError(`${where}: corrupt PNG file (${what})`);
  let at = 8;
  const idat: Uint8Array[] = [];
  let ended = false;
  let first = true;
  let header: { width: number; height: number; depth: number; color: number; interlace: number } | undefined;
  while (at < bytes.length) {
    if (at + 12 > bytes.length) throw bad(`chunk at byte ${at} cut short`);
    const len = u32be(bytes, at);
    const type = ascii(bytes, at + 4, 4);
    if (at + 12 + len > bytes.length) throw bad(`chunk "${type}" at byte ${at} runs past the end of the file`);
    const crc = u32be(bytes, at + 8 + len);
    if (crc32(bytes, at + 4, at + 8 + len) !== crc) throw bad(`CRC mismatch in chunk "${type}" at byte ${at}`);
    if (first && type !== 'IHDR') throw bad('the first chunk is not IHDR');
    first = false;
    if (type === 'IHDR') {
      const d = at + 8;
      header = {
        width: u32be(bytes, d),
        height: u32be(bytes, d + 4),
        depth: bytes[d + 8]!,
        color: bytes[d + 9]!,
        interlace: bytes[d + 12]!,
      };
    } else if (type === 'IDAT') idat.push(bytes.subarray(at + 8, at + 8 + len));
    else if (type === 'IEND') {
      ended = true;
      break;
    }
    at += 12 + len;
  }
  if (!ended) throw bad('no IEND chunk: the file is cut short');
  if (header === undefined) throw bad('no IHDR chunk');
  if (idat.length === 0) throw bad('no image data (IDAT)');
  const channels = PNG_CHANNELS[header.color];
  if (channels === undefined) throw bad(`unknown colour type ${header.color}`);
  const rowBytes = Math.ceil((header.width * channels * header.depth) / 8) + 1;
  const expected = rowBytes * header.height;
  let raw: Buffer;
  try {
    raw = inflateSync(Buffer.concat(idat), header.interlace === 0 ? { maxOutputLength: expected + 1 } : {});
  } catch (e) {
    throw bad(`the pixel data does not inflate: ${(e as Error).message}`);
  }
  if (header.interlace === 0 && raw.length !== expected) {
    throw bad(`the pixel data holds ${raw.length} bytes; the header implies ${expected}`);
  }
}

/**
 * Check a JPEG's structure: marker segments within the file, a frame header before the first scan, and the end-of-image
 * marker after the entropy-coded data. Throws a DataError naming what is wrong.
 */
export function checkJpeg(bytes: Uint8Array, where: string): void {
  const bad = (what: string): DataError => new DataError(`${where}: corrupt JPEG file (${what})`);
  readImageSize(bytes, 'jpeg', where);
  let end = bytes.length;
  while (end > 2 && (bytes[end - 1] === 0x00 || bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--;
  if (end < 4 || bytes[end - 2] !== 0xff || bytes[end - 1] !== 0xd9)
    throw bad('no end-of-image marker: the file is cut short');
  let at = 2;
  let sawScan = false;
  while (at + 4 <= end && !sawScan) {
    const marker = bytes[at + 1]!;
    if (bytes[at] !== 0xff) throw bad(`expected a marker at byte ${at}`);
    if (marker === 0xff) {
      at++;
      continue;
    }
    const len = u16be(bytes, at + 2);
    if (at + 2 + len > end) throw bad(`segment at byte ${at} runs past the end of the file`);
    if (marker === 0xda) sawScan = true;
    at += 2 + len;
  }
  if (!sawScan) throw bad('no scan data');
}
