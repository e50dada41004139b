/**
 * Images in conversations: load every image part before rendering (fetching URLs, converting WebP / GIF), and turn a
 * loaded image into the wire's image chunk.
 */
import type { ImageChunk, LoadedImage, Message } from '@cookbook/core';
import { type LoadImageOptions, loadImage } from './load.js';
import { type ImageTokenRule, imageTokenCount } from './token-count.js';

/** Where an image part sits, as errors name it: `messages[2].content[1]`. */
export function imagePartWhere(messageIndex: number, partIndex: number): string {
  return `messages[${messageIndex}].content[${partIndex}]`;
}

/** Whether any message holds an image part. */
export function messagesHaveImages(messages: readonly Message[]): boolean {
  return messages.some((m) => typeof m.content !== 'string' && m.content.some((p) => p.type === 'image'));
}

/**
 * The conversation with every image part loaded ({@link loadImage}: URLs fetched, WebP / GIF converted, sizes
 * bounded), ready for a vision renderer. Messages without images are returned as they are. Errors name the message
 * and part (`messages[2].content[1]: …`).
 */
export async function resolveMessageImages(
  messages: readonly Message[],
  options: Omit<LoadImageOptions, 'where'> = {},
): Promise<Message[]> {
  return Promise.all(
    messages.map(async (m, i) => {
      if (typeof m.content === 'string' || !m.content.some((p) => p.type === 'image')) return m;
      const content = await Promise.all(
        m.content.map(async (p, j) =>
          p.type === 'image'
            ? { ...p, image: await loadImage(p.image, { ...options, where: imagePartWhere(i, j) }) }
            : p,
        ),
      );
      return { ...m, content };
    }),
  );
}

/** The wire chunk of a loaded image: base64 data, its format, and the tokens `rule` gives its size. */
export function imageChunk(image: LoadedImage, rule: ImageTokenRule): ImageChunk {
  return {
    type: 'image',
    data: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength).toString('base64'),
    format: image.format,
    expected_tokens: imageTokenCount(image.width, image.height, rule),
  };
}
