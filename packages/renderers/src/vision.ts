/**
 * Image parts in vision renderers. A vision chat template writes each image as a fixed placeholder in the message
 * text (Qwen: `<|vision_start|><|image_pad|><|vision_end|>`; Kimi K2.5 / K2.6:
 * `<|media_begin|>image<|media_content|><|media_pad|><|media_end|>⏎`) and the model's processor expands the pad token
 * into the image's tokens. A renderer here writes the same placeholder as template structure (so its special tokens,
 * and the text pieces between them, are exactly the template's) and then puts the image's chunk where the pad token
 * is: text chunk, image chunk (`expected_tokens` from the family's resize rule), text chunk. Message text never
 * produces a pad token (it is encoded with control tokens kept as text), so every pad is an image's.
 */
import { type ContentPart, type ImageChunk, type Message, type ModelInputChunk, RendererError } from '@cookbook/core';
import { type ImageTokenRule, imageChunk, imagePartWhere, loadImageSync } from '@cookbook/images';

/** The built-in renderers that render image parts (each needs a model that takes images). */
export const VISION_RENDERER_NAMES: readonly string[] = Object.freeze([
  'qwen3_vl',
  'qwen3_vl_instruct',
  'qwen3_5',
  'qwen3_5_disable_thinking',
  'qwen3_8_xhigh_reasoning',
  'qwen3_8_medium_reasoning',
  'qwen3_8_low_reasoning',
  'qwen3_8_disable_thinking',
  'kimi_k25',
  'kimi_k25_disable_thinking',
  'kimi_k26',
  'kimi_k26_disable_thinking',
  'kimi_k26_preserve_thinking',
]);

/** The error of a text-only renderer given an image part. */
export function imageRefusal(renderer: string, messageIndex: number, partIndex: number): RendererError {
  return new RendererError(
    `${imagePartWhere(messageIndex, partIndex)} is an image, but ${renderer} renders text only. Images need a vision ` +
      `model (Qwen3-VL, Qwen3.5 / 3.6 / 3.8, Kimi K2.5 / K2.6) and one of its renderers: ${VISION_RENDERER_NAMES.join(', ')}`,
  );
}

/** How a vision renderer writes an image. */
export interface ImageFraming {
  /** The template's placeholder for one image, pad token included. */
  placeholder: string;
  /** The pad token the image's chunk replaces. */
  pad: string;
  /** The family's image-token rule. */
  rule: ImageTokenRule;
}

/** Literals and values of a {@link BaseRenderer}-style template, with the images met along the way. */
export class TemplateParts {
  readonly literals: string[] = [''];
  readonly values: string[] = [];
  readonly images: ImageChunk[] = [];

  /** Append renderer structure (special tokens in it become tokens). */
  lit(s: string): void {
    this.literals[this.literals.length - 1] += s;
  }

  /** Append message text (always text). */
  val(s: string): void {
    this.values.push(s);
    this.literals.push('');
  }
}

/**
 * Append a message's content to `parts`: text parts as text, each image part as `framing.placeholder` with its chunk
 * recorded. `trim` strips whitespace at both ends of the content as a whole (the Qwen3.5 template's `|trim`), across
 * text parts up to the first / last image. Thinking parts are refused (`what` names the message's role).
 */
export function appendContent(
  parts: TemplateParts,
  message: Message,
  messageIndex: number,
  framing: ImageFraming,
  trim = false,
): void {
  if (typeof message.content === 'string') {
    parts.val(trim ? message.content.trim() : message.content);
    return;
  }
  const content = message.content as ContentPart[];
  const texts = content.map((p) => (p.type === 'text' ? p.text : undefined));
  if (trim) {
    for (let i = 0; i < texts.length && texts[i] !== undefined; i++) {
      texts[i] = texts[i]!.trimStart();
      if (texts[i] !== '') break;
    }
    for (let i = texts.length - 1; i >= 0 && texts[i] !== undefined; i--) {
      texts[i] = texts[i]!.trimEnd();
      if (texts[i] !== '') break;
    }
  }
  content.forEach((p, j) => {
    if (p.type === 'text') parts.val(texts[j]!);
    else if (p.type === 'image') {
      const where = imagePartWhere(messageIndex, j);
      parts.lit(framing.placeholder);
      parts.images.push(imageChunk(loadImageSync(p.image, { where }), framing.rule));
    } else throw new RendererError(`a ${message.role} message cannot hold thinking parts (messages[${messageIndex}])`);
  });
}

/** Split `tokens` at each `padId`, putting `images[k]` in place of the k-th pad. */
export function spliceImages(
  tokens: readonly number[],
  padId: number,
  images: readonly ImageChunk[],
): ModelInputChunk[] {
  const out: ModelInputChunk[] = [];
  let run: number[] = [];
  let k = 0;
  for (const t of tokens) {
    if (t !== padId) {
      run.push(t);
      continue;
    }
    const image = images[k++];
    if (image === undefined) throw new RendererError(`found more image pad tokens (${padId}) than images`);
    if (run.length > 0) out.push({ type: 'encoded_text', tokens: run });
    run = [];
    out.push(image);
  }
  if (k !== images.length) throw new RendererError(`rendered ${k} image pad tokens for ${images.length} images`);
  if (run.length > 0) out.push({ type: 'encoded_text', tokens: run });
  return out;
}

/** Whether a message holds an image part. */
export function hasImages(message: Message): boolean {
  return typeof message.content !== 'string' && message.content.some((p) => p.type === 'image');
}
