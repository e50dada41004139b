/**
 * Qwen3-VL (upstream `Qwen3VLRenderer`, `Qwen3VLInstructRenderer`): `qwen3_vl` (Thinking models) and
 * `qwen3_vl_instruct` (Instruct models), text and image parts. An image part of a user or tool message is written as
 * the template writes it, `<|vision_start|><|image_pad|><|vision_end|>`, with the image's chunk in place of the pad
 * (`expected_tokens` by the Qwen-VL resize rule, {@link QWEN3_VL_IMAGE_RULE}); system and assistant messages cannot
 * hold images.
 *
 * Source of the format: no copy of the official Qwen3-VL chat templates with a verifiable revision was available to
 * this project (none is committed as a fixture). Public copies of the Qwen3-VL Thinking template, and upstream's
 * test that its Instruct renderer equals the Qwen/Qwen3-VL-30B-A3B-Instruct template on text, give this: for text,
 * the Qwen3-VL templates are the Qwen3 template's text format (the same `<|im_start|>` turns, JSON `<tool_call>`s,
 * consecutive tool results in one user block, reasoning dropped before the last user query); the Thinking template
 * also opens the generation prompt with `<think>⏎`, and the Instruct template has no think framing (as
 * `qwen3_instruct`). This renderer is {@link Qwen3Renderer} with that prefill, and its documented differences
 * apply (message text never becomes a control token; a turn's header is encoded apart from its text). The produced
 * turn's `<think>⏎` is part of its header (prompt), as at sampling time, so its tokens continue the generation prompt.
 *
 * Deliberate differences from upstream, chosen for the template: thinking is framed `<think>⏎…⏎</think>⏎⏎` (upstream's
 * VL path writes `<think>…</think>`), the produced turn is framed even when it did not reason, the generation prompt
 * of `qwen3_vl` ends with `<think>⏎`, consecutive tool results share one user block, and reasoning is kept after the
 * last user query (upstream drops it from every earlier assistant message). Images are sent as their file bytes
 * (PNG or JPEG as given; upstream re-encodes every image as JPEG).
 */
import { type Message, RendererError } from '@cookbook/core';
import { QWEN3_VL_IMAGE_RULE } from '@cookbook/images';
import type { Tokenizer } from '@cookbook/tokenizers';
import { Qwen3Renderer } from './qwen3-renderer.js';
import type { ParsedResponse, RenderContext, RenderedMessage } from './renderer.js';
import { appendContent, hasImages, type ImageFraming, spliceImages, TemplateParts } from './vision.js';

/** How Qwen-VL templates write an image (Qwen3-VL, Qwen3.5 / 3.6 / 3.8). */
export const QWEN_VL_IMAGE_FRAMING: ImageFraming = Object.freeze({
  placeholder: '<|vision_start|><|image_pad|><|vision_end|>',
  pad: '<|image_pad|>',
  rule: QWEN3_VL_IMAGE_RULE,
});

/** Options of {@link Qwen3VLRenderer}. */
export interface Qwen3VLRendererOptions {
  /** True (default): Qwen3-VL Thinking models; false: Qwen3-VL Instruct models (no think framing). */
  thinking?: boolean;
  /** Drop reasoning before the last user query, as the template does. Default true. */
  stripThinkingFromHistory?: boolean;
}

/** Renders Qwen3-VL's chat format (text parts); see the module comment. */
export class Qwen3VLRenderer extends Qwen3Renderer {
  constructor(tokenizer: Tokenizer, options: Qwen3VLRendererOptions = {}) {
    const thinking = options.thinking ?? true;
    super(tokenizer, {
      mode: thinking ? 'thinking' : 'instruct',
      ...(options.stripThinkingFromHistory === undefined
        ? {}
        : { stripThinkingFromHistory: options.stripThinkingFromHistory }),
    });
  }

  /**
   * Only the Instruct format: with thinking, a turn that did not reason is sampled after `<think>⏎` (a lone `⏎`
   * follows) but re-rendered as history with `⏎⏎` as one token, so the next prompt does not extend the sampled tokens.
   */
  override get hasExtensionProperty(): boolean {
    return this.mode === 'instruct';
  }

  protected override get thinkPrefill(): string {
    return this.mode === 'thinking' ? '<think>\n' : '';
  }

  /** A user or tool message with image parts: the text-only rendering's framing around the content's chunks. */
  override renderMessage(message: Message, ctx: RenderContext): RenderedMessage {
    if (!hasImages(message)) return super.renderMessage(message, ctx);
    if (message.role !== 'user' && message.role !== 'tool') {
      throw new RendererError(
        `messages[${ctx.idx}] is a ${message.role} message with an image part; ${this.name} takes images in user and ` +
          'tool messages only',
      );
    }
    const { header } = super.renderMessage({ ...message, content: '' }, ctx);
    const parts = new TemplateParts();
    const tool = message.role === 'tool';
    if (tool) parts.lit('\n<tool_response>\n');
    appendContent(parts, message, ctx.idx, QWEN_VL_IMAGE_FRAMING);
    if (tool) parts.lit('\n</tool_response>');
    if (!tool || ctx.nextMessage?.role !== 'tool') parts.lit('<|im_end|>');
    const tokens = this.tpl(parts.literals, ...parts.values);
    const output = spliceImages(tokens, this.tokenId(QWEN_VL_IMAGE_FRAMING.pad), parts.images);
    return header === undefined ? { output } : { header, output };
  }

  private get name(): string {
    return this.mode === 'thinking' ? 'qwen3_vl' : 'qwen3_vl_instruct';
  }

  override parseResponse(tokens: readonly number[]): ParsedResponse {
    const open = this.tokenizer.convertTokenToId('<think>');
    const close = this.tokenizer.convertTokenToId('</think>');
    if (this.mode === 'thinking' && tokens[0] !== open && close !== undefined && tokens.includes(close)) {
      // Sampling started after the prefilled `<think>⏎`: restore it so the block parses.
      return super.parseResponse([...this.encode('<think>\n'), ...tokens]);
    }
    return super.parseResponse(tokens);
  }
}
