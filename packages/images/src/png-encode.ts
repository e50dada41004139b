/**
 * A small PNG writer (8-bit RGB, no interlace, filter 0 on every row, zlib from Node): enough to make images in code —
 * the generated shapes dataset, test images — without an image library. Output is deterministic for equal pixels.
 */
import { deflateSync } from 'node:zlib';
import { ConfigError } from '@cookbook/core';
import { crc32 } from './formats.js';

/** The largest side {@link encodePng} writes. */
export const MAX_ENCODE_SIDE = 16_384;

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  out.set(data, 8);
  out.writeUInt32BE(crc32(out, 4, 8 + data.length), 8 + data.length);
  return out;
}

/** Encode `rgb` (width × height × 3 bytes, row-major) as a PNG file. */
export function encodePng(width: number, height: number, rgb: Uint8Array): Uint8Array {
  for (const [k, v] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isInteger(v) || v < 1 || v > MAX_ENCODE_SIDE) {
      throw new ConfigError(`encodePng: ${k} must be an integer in [1, ${MAX_ENCODE_SIDE}], got ${v}`);
    }
  }
  if (rgb.length !== width * height * 3) {
    throw new ConfigError(
      `encodePng: expected ${width * height * 3} RGB bytes for ${width}x${height}, got ${rgb.length}`,
    );
  }
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0;
    raw.set(rgb.subarray(y * width * 3, (y + 1) * width * 3), y * (width * 3 + 1) + 1);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type: RGB
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return new Uint8Array(
    Buffer.concat([
      signature,
      chunk('IHDR', ihdr),
      chunk('IDAT', deflateSync(raw, { level: 9 })),
      chunk('IEND', new Uint8Array(0)),
    ]),
  );
}
