/**
 * Loading an image part into a {@link LoadedImage}: the bytes (from a path, a `file:`/`http(s):` URL, a `data:` URI or
 * raw bytes), the format from the signature (PNG, JPEG, WebP, GIF), the size from the header — bounded before any
 * pixel is decoded — and a structural check of the file. PNG and JPEG pass through unchanged (the formats an image
 * chunk carries); WebP and GIF are converted to PNG, and `maxSide` resizes, with `sharp` (an optional peer
 * dependency, loaded only then).
 */
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DataError, type LoadedImage } from '@cookbook/core';
import { checkJpeg, checkPng, type ImageFormat, readImageSize, sniffImageFormat } from './formats.js';

/** Limits and options of the loaders. */
export interface LoadImageOptions {
  /** Largest file accepted, in bytes. Default {@link DEFAULT_MAX_IMAGE_BYTES}. */
  maxBytes?: number;
  /** Largest width × height accepted (checked from the header, before decoding). Default {@link DEFAULT_MAX_IMAGE_PIXELS}. */
  maxPixels?: number;
  /** Downscale (keeping the aspect ratio) so that neither side exceeds this many pixels; needs `sharp`. */
  maxSide?: number;
  /** How errors name the image (e.g. `messages[2].content[1]`). Default `image`. */
  where?: string;
  /** The fetch used for `http(s)` URLs (tests pass their own). Default the global fetch. */
  fetch?: typeof fetch;
}

/** Default byte limit of one image file: 20 MiB. */
export const DEFAULT_MAX_IMAGE_BYTES = 20 * 1024 * 1024;

/** Default pixel limit: 89,478,485 (Pillow's decompression-bomb limit, `Image.MAX_IMAGE_PIXELS`). */
export const DEFAULT_MAX_IMAGE_PIXELS = 89_478_485;

const DATA_URI = /^data:([^;,]*)((?:;[^;,]*)*),/;

/** Whether `x` is a {@link LoadedImage}. */
export function isLoadedImage(x: unknown): x is LoadedImage {
  return typeof x === 'object' && x !== null && (x as { kind?: unknown }).kind === 'loaded_image';
}

/** A short description of a source for error messages (never the whole data URI or byte string). */
function describe(source: string | Uint8Array): string {
  if (typeof source !== 'string') return `${source.length} bytes`;
  if (source.startsWith('data:')) return `a data URI of ${source.length} characters`;
  return JSON.stringify(source.length > 200 ? `${source.slice(0, 200)}…` : source);
}

function decodeDataUri(uri: string, where: string, maxBytes: number): Uint8Array {
  const m = DATA_URI.exec(uri);
  if (m === null) throw new DataError(`${where}: malformed data URI (expected data:<type>;base64,<data>)`);
  const payload = uri.slice(m[0].length);
  const isBase64 = (m[2] ?? '').split(';').includes('base64');
  const approx = isBase64 ? Math.floor((payload.length * 3) / 4) : payload.length;
  if (approx > maxBytes) throw tooLarge(where, approx, maxBytes);
  if (!isBase64) return new Uint8Array(Buffer.from(decodeURIComponent(payload), 'latin1'));
  if (!/^[A-Za-z0-9+/\s]*={0,2}\s*$/.test(payload)) {
    throw new DataError(`${where}: the data URI's base64 payload holds characters outside the base64 alphabet`);
  }
  return new Uint8Array(Buffer.from(payload, 'base64'));
}

function tooLarge(where: string, n: number, max: number): DataError {
  return new DataError(`${where}: the image file is ${n} bytes, more than the limit of ${max} (maxBytes)`);
}

function readPath(path: string, where: string, maxBytes: number): Uint8Array {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new DataError(`${where}: cannot read image file "${path}": not a file`);
    size = st.size;
  } catch (e) {
    if (e instanceof DataError) throw e;
    throw new DataError(
      `${where}: cannot read image file "${path}": ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      {
        cause: e,
      },
    );
  }
  if (size > maxBytes) throw tooLarge(where, size, maxBytes);
  try {
    return new Uint8Array(readFileSync(path));
  } catch (e) {
    throw new DataError(
      `${where}: cannot read image file "${path}": ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      {
        cause: e,
      },
    );
  }
}

/** The bytes of a source that can be read without waiting (not an http(s) URL). */
function bytesSync(source: string | Uint8Array, where: string, maxBytes: number): Uint8Array {
  if (typeof source !== 'string') {
    if (source.length > maxBytes) throw tooLarge(where, source.length, maxBytes);
    return source;
  }
  if (source.startsWith('data:')) return decodeDataUri(source, where, maxBytes);
  if (/^https?:\/\//i.test(source)) {
    throw new DataError(
      `${where}: the image is a URL (${describe(source)}); fetch it first with resolveMessageImages(messages) or ` +
        'loadImage (@cookbook/images), then render',
    );
  }
  if (/^file:/i.test(source)) return readPath(fileURLToPath(source), where, maxBytes);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) {
    throw new DataError(
      `${where}: unsupported image URL scheme in ${describe(source)}; use a path, file:, http(s): or data:`,
    );
  }
  if (source === '') throw new DataError(`${where}: the image is an empty string`);
  return readPath(source, where, maxBytes);
}

async function fetchBytes(url: string, where: string, maxBytes: number, fetchFn: typeof fetch): Promise<Uint8Array> {
  let res: Response;
  try {
    res = await fetchFn(url);
  } catch (e) {
    throw new DataError(`${where}: cannot fetch image ${describe(url)}: ${(e as Error).message}`, { cause: e });
  }
  if (!res.ok) throw new DataError(`${where}: fetching image ${describe(url)} answered HTTP ${res.status}`);
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(where, declared, maxBytes);
  const parts: Uint8Array[] = [];
  let n = 0;
  if (res.body === null) return new Uint8Array(0);
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > maxBytes) {
      await reader.cancel();
      throw tooLarge(where, n, maxBytes);
    }
    parts.push(value);
  }
  return new Uint8Array(Buffer.concat(parts));
}

interface Checked {
  format: ImageFormat;
  width: number;
  height: number;
}

/** Format, size and structure of `bytes`, bounded by `maxPixels`. */
function check(bytes: Uint8Array, where: string, maxPixels: number): Checked {
  if (bytes.length === 0) throw new DataError(`${where}: the image is empty (0 bytes)`);
  const format = sniffImageFormat(bytes);
  if (format === undefined) {
    const head = Buffer.from(bytes.subarray(0, 8)).toString('hex');
    throw new DataError(`${where}: unknown image format (first bytes ${head}); expected PNG, JPEG, WebP or GIF`);
  }
  const { width, height } = readImageSize(bytes, format, where);
  if (width === 0 || height === 0) throw new DataError(`${where}: the image is ${width}x${height}: zero-size`);
  if (width * height > maxPixels) {
    throw new DataError(
      `${where}: the image is ${width}x${height} = ${width * height} pixels, more than the limit of ${maxPixels} ` +
        '(maxPixels); it was not decoded',
    );
  }
  if (format === 'png') checkPng(bytes, where);
  else if (format === 'jpeg') checkJpeg(bytes, where);
  return { format, width, height };
}

/**
 * Load an image that can be read without waiting: raw bytes, a `data:` URI, a path or a `file:` URL, in PNG or JPEG
 * (the formats that need no conversion). What a vision renderer calls on an image part; anything else (an http(s)
 * URL, WebP, GIF, `maxSide`) needs {@link loadImage}. Throws a DataError naming `options.where`.
 */
export function loadImageSync(source: string | Uint8Array | LoadedImage, options: LoadImageOptions = {}): LoadedImage {
  if (isLoadedImage(source)) return source;
  const where = options.where ?? 'image';
  const bytes = bytesSync(source, where, options.maxBytes ?? DEFAULT_MAX_IMAGE_BYTES);
  const c = check(bytes, where, options.maxPixels ?? DEFAULT_MAX_IMAGE_PIXELS);
  if (c.format !== 'png' && c.format !== 'jpeg') {
    throw new DataError(
      `${where}: a ${c.format.toUpperCase()} image must be converted to PNG first; load it with ` +
        'resolveMessageImages(messages) or loadImage (@cookbook/images, needs the sharp package)',
    );
  }
  if (options.maxSide !== undefined && Math.max(c.width, c.height) > options.maxSide) {
    throw new DataError(`${where}: resizing (maxSide) needs loadImage, which is asynchronous`);
  }
  return { kind: 'loaded_image', format: c.format, data: bytes, width: c.width, height: c.height };
}

type SharpModule = typeof import('sharp');

let sharpModule: Promise<SharpModule> | undefined;

/** `sharp`, loaded on first use; a DataError saying how to install it when it is missing. */
export async function loadSharp(why: string): Promise<SharpModule['default']> {
  sharpModule ??= import('sharp');
  try {
    return (await sharpModule).default;
  } catch (e) {
    sharpModule = undefined;
    throw new DataError(
      `${why} needs the optional image library "sharp", which is not installed: run \`pnpm add sharp\` ` +
        '(or npm install sharp) in your project',
      { cause: e },
    );
  }
}

/**
 * Load an image from any source: raw bytes, a `data:` URI, a path, a `file:` or `http(s):` URL, or an already loaded
 * image (returned as is unless `maxSide` asks for a smaller one). PNG and JPEG pass through unchanged; WebP and GIF are
 * converted to PNG and `maxSide` downscales, both with `sharp`. Throws a DataError naming `options.where`.
 */
export async function loadImage(
  source: string | Uint8Array | LoadedImage,
  options: LoadImageOptions = {},
): Promise<LoadedImage> {
  const where = options.where ?? 'image';
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_IMAGE_BYTES;
  let bytes: Uint8Array;
  if (isLoadedImage(source)) bytes = source.data;
  else if (typeof source === 'string' && /^https?:\/\//i.test(source)) {
    bytes = await fetchBytes(source, where, maxBytes, options.fetch ?? fetch);
  } else bytes = bytesSync(source, where, maxBytes);
  const c = check(bytes, where, options.maxPixels ?? DEFAULT_MAX_IMAGE_PIXELS);
  const shrink = options.maxSide !== undefined && Math.max(c.width, c.height) > options.maxSide;
  if ((c.format === 'png' || c.format === 'jpeg') && !shrink) {
    return { kind: 'loaded_image', format: c.format, data: bytes, width: c.width, height: c.height };
  }
  const sharp = await loadSharp(
    shrink ? `${where}: resizing an image (maxSide)` : `${where}: reading a ${c.format.toUpperCase()} image`,
  );
  try {
    let img = sharp(bytes, { limitInputPixels: options.maxPixels ?? DEFAULT_MAX_IMAGE_PIXELS, animated: false });
    if (shrink) img = img.resize({ width: options.maxSide, height: options.maxSide, fit: 'inside' });
    const outFormat = c.format === 'jpeg' ? 'jpeg' : 'png';
    const { data, info } = await (outFormat === 'jpeg' ? img.jpeg() : img.png()).toBuffer({ resolveWithObject: true });
    return {
      kind: 'loaded_image',
      format: outFormat,
      data: new Uint8Array(data),
      width: info.width,
      height: info.height,
    };
  } catch (e) {
    throw new DataError(`${where}: corrupt ${c.format.toUpperCase()} file: ${(e as Error).message}`, { cause: e });
  }
}
