/**
 * Qwen3-VL (upstream `Qwen3VLRenderer`, `Qwen3VLInstructRenderer`): `qwen3_vl` (Thinking models) and
 * `qwen3_vl_instruct` (Instruct models), text parts only — image parts are the vision renderers' (they reach
 * {@link Qwen3VLRenderer.imagePart}, the one place an image chunk with its `<|vision_start|>` / `<|vision_end|>`
 * framing will be written).
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
 * last user query (upstream drops it from every earlier assistant message).
 */
import { RendererError } from '@cookbook/core';
import type { Tokenizer } from '@cookbook/tokenizers';
import { Qwen3Renderer } from './qwen3-renderer.js';
import type { ParsedResponse } from './renderer.js';

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

  /** Image parts are not rendered yet (the vision issue): a clear error until then. */
  protected override imagePart(role: string): never {
    throw new RendererError(
      `${this.mode === 'thinking' ? 'qwen3_vl' : 'qwen3_vl_instruct'} renders text parts only for now; a ${role} ` +
        'message has an image part (image input is not supported by this renderer yet)',
    );
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
