import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Message } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { readImageSize, sniffImageFormat } from './formats.js';
import { isLoadedImage, loadImage, loadImageSync } from './load.js';
import { encodePng } from './png-encode.js';
import { imageChunk, resolveMessageImages } from './resolve.js';
import { QWEN3_VL_IMAGE_RULE } from './token-count.js';

const dir = mkdtempSync(join(tmpdir(), 'images-'));

function solid(width: number, height: number, rgb: [number, number, number] = [200, 30, 40]): Uint8Array {
  const px = new Uint8Array(width * height * 3);
  for (let i = 0; i < width * height; i++) px.set(rgb, i * 3);
  return encodePng(width, height, px);
}

/** A minimal baseline JPEG header (SOI, SOF0 with the size, an empty scan, EOI): enough for the structural checks. */
function jpegShell(width: number, height: number): Uint8Array {
  const sof = [0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03];
  for (let c = 1; c <= 3; c++) sof.push(c, 0x11, 0x00);
  const sos = [0xff, 0xda, 0x00, 0x0c, 0x03, 0x01, 0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3f, 0x00];
  return new Uint8Array([0xff, 0xd8, ...sof, ...sos, 0x00, 0xff, 0xd9]);
}

const png = solid(64, 48);

describe('loadImageSync', () => {
  it('reads PNG bytes, a data URI, a path and a file: URL to the same loaded image', () => {
    const path = join(dir, 'red.png');
    writeFileSync(path, png);
    const fromBytes = loadImageSync(png);
    expect(fromBytes).toMatchObject({ kind: 'loaded_image', format: 'png', width: 64, height: 48 });
    const uri = `data:image/png;base64,${Buffer.from(png).toString('base64')}`;
    for (const src of [uri, path, pathToFileURL(path).href]) {
      const img = loadImageSync(src);
      expect([img.format, img.width, img.height]).toEqual(['png', 64, 48]);
      expect(Buffer.from(img.data).equals(Buffer.from(png))).toBe(true);
    }
  });

  it('reads a JPEG header for its size', () => {
    const img = loadImageSync(jpegShell(640, 480));
    expect([img.format, img.width, img.height]).toEqual(['jpeg', 640, 480]);
  });

  it('passes a loaded image through', () => {
    const img = loadImageSync(png);
    expect(loadImageSync(img)).toBe(img);
    expect(isLoadedImage(img)).toBe(true);
  });
});

describe('bad image inputs name the input and what is wrong', () => {
  const where = 'messages[1].content[2]';
  it('an unreadable file', () => {
    expect(() => loadImageSync(join(dir, 'missing.png'), { where })).toThrow(
      /messages\[1\]\.content\[2\]: cannot read image file ".*missing\.png": ENOENT/,
    );
    expect(() => loadImageSync(dir, { where })).toThrow(
      /messages\[1\]\.content\[2\]: cannot read image file .*not a file/,
    );
  });
  it('an unknown format', () => {
    expect(() => loadImageSync(new TextEncoder().encode('hello, not an image'), { where })).toThrow(
      /messages\[1\]\.content\[2\]: unknown image format \(first bytes 68656c6c6f2c206e\); expected PNG, JPEG, WebP or GIF/,
    );
  });
  it('zero bytes and a zero-size image', () => {
    expect(() => loadImageSync(new Uint8Array(0), { where })).toThrow(
      /messages\[1\]\.content\[2\]: the image is empty \(0 bytes\)/,
    );
    expect(() => loadImageSync(jpegShell(0, 10), { where })).toThrow(
      /messages\[1\]\.content\[2\]: the image is 0x10: zero-size/,
    );
  });
  it('corrupt bytes: a flipped pixel byte, a cut-short file, a garbled JPEG', () => {
    const flipped = new Uint8Array(png);
    flipped[45] = (flipped[45]! + 1) & 0xff; // inside IDAT
    expect(() => loadImageSync(flipped, { where })).toThrow(
      /messages\[1\]\.content\[2\]: corrupt PNG file \(CRC mismatch in chunk "IDAT"/,
    );
    expect(() => loadImageSync(png.subarray(0, png.length - 20), { where })).toThrow(
      /corrupt PNG file \(chunk .* runs past the end|cut short/,
    );
    const jpeg = jpegShell(10, 10);
    expect(() => loadImageSync(jpeg.subarray(0, jpeg.length - 2), { where })).toThrow(
      /messages\[1\]\.content\[2\]: corrupt JPEG file \(no end-of-image marker/,
    );
  });
  it('too-large dimensions are refused from the header, before decoding', () => {
    // A JPEG claiming 60000x60000 pixels in 40 bytes: nothing is decoded.
    expect(() => loadImageSync(jpegShell(60_000, 60_000), { where })).toThrow(
      /messages\[1\]\.content\[2\]: the image is 60000x60000 = 3600000000 pixels, more than the limit of 89478485 \(maxPixels\); it was not decoded/,
    );
    expect(() => loadImageSync(png, { where, maxPixels: 100 })).toThrow(
      /64x48 = 3072 pixels, more than the limit of 100/,
    );
  });
  it('a file over the byte limit, and a bad data URI', () => {
    expect(() => loadImageSync(png, { where, maxBytes: 10 })).toThrow(/more than the limit of 10 \(maxBytes\)/);
    expect(() => loadImageSync('data:image/png;base64,@@@', { where })).toThrow(/outside the base64 alphabet/);
  });
  it('an http URL in the sync loader says how to fetch it', () => {
    expect(() => loadImageSync('https://example.invalid/cat.png', { where })).toThrow(
      /fetch it first with resolveMessageImages/,
    );
  });
});

describe('loadImage', () => {
  it('fetches an http(s) URL through the given fetch, bounded by maxBytes', async () => {
    const fakeFetch = (async () => new Response(png, { status: 200 })) as typeof fetch;
    const img = await loadImage('https://example.invalid/red.png', { fetch: fakeFetch });
    expect([img.format, img.width, img.height]).toEqual(['png', 64, 48]);
    await expect(loadImage('https://example.invalid/red.png', { fetch: fakeFetch, maxBytes: 100 })).rejects.toThrow(
      /more than the limit of 100/,
    );
    const notFound = (async () => new Response('no', { status: 404 })) as typeof fetch;
    await expect(
      loadImage('https://example.invalid/x.png', { fetch: notFound, where: 'messages[0].content[0]' }),
    ).rejects.toThrow(
      /messages\[0\]\.content\[0\]: fetching image "https:\/\/example\.invalid\/x\.png" answered HTTP 404/,
    );
  });

  it('converts WebP to PNG and downscales with maxSide (sharp)', async () => {
    const sharp = (await import('sharp')).default;
    const webp = new Uint8Array(await sharp(Buffer.from(png)).webp().toBuffer());
    expect(sniffImageFormat(webp)).toBe('webp');
    expect(readImageSize(webp, 'webp', 'x')).toEqual({ width: 64, height: 48 });
    const img = await loadImage(webp);
    expect([img.format, img.width, img.height]).toEqual(['png', 64, 48]);
    expect(sniffImageFormat(img.data)).toBe('png');
    const small = await loadImage(png, { maxSide: 32 });
    expect([small.width, small.height]).toEqual([32, 24]);
    expect(() => loadImageSync(webp, { where: 'messages[0].content[1]' })).toThrow(
      /a WEBP image must be converted to PNG first/,
    );
  });
});

describe('resolveMessageImages / imageChunk', () => {
  it('loads every image part and names the message and part of a bad one', async () => {
    const messages: Message[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What colour?' },
          { type: 'image', image: png },
        ],
      },
      { role: 'assistant', content: 'red' },
    ];
    const out = await resolveMessageImages(messages);
    const part = (out[0]!.content as { type: string; image?: unknown }[])[1]!;
    expect(isLoadedImage(part.image)).toBe(true);
    expect(out[1]).toBe(messages[1]);
    const bad: Message[] = [
      { role: 'system', content: 'x' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', image: new Uint8Array([1, 2, 3]) },
        ],
      },
    ];
    await expect(resolveMessageImages(bad)).rejects.toThrow(/^messages\[1\]\.content\[1\]: unknown image format/);
  });

  it('builds the wire chunk: base64 of the file bytes, the format and the rule token count', () => {
    const chunk = imageChunk(loadImageSync(png), QWEN3_VL_IMAGE_RULE);
    expect(chunk).toEqual({
      type: 'image',
      data: Buffer.from(png).toString('base64'),
      format: 'png',
      expected_tokens: 70, // 64x48 is below 65536 pixels: β=√(65536/3072), ⌈48β/32⌉=7, ⌈64β/32⌉=10 → 7·10
    });
  });
});
