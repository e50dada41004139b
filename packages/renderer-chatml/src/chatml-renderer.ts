/**
 * A plain ChatML renderer: `<|im_start|>role⏎content<|im_end|>⏎` per message, no reasoning framing, no tools.
 * Written only against the public API of `@cookbook/renderers`, as a template for third-party renderer packages.
 * Token for token the common ChatML Jinja template, with one deliberate difference: message text never becomes a
 * control token. Every added token of the tokenizer counts — `<|im_end|>`, and with a Qwen3 tokenizer also `<think>`,
 * `<tool_call>`, `<tool_response>` and their closing tags: a user quoting `<think>` gets the text, not the token (the
 * template + tokenizer would produce the token). Control tokens come only from the `<|im_start|>` / `<|im_end|>`
 * framing.
 */

import { type Message, RendererError } from '@cookbook/core';
import {
  BaseRenderer,
  type ParsedResponse,
  parseResponseForStopToken,
  type RenderContext,
  type RenderedMessage,
} from '@cookbook/renderers';
import type { Tokenizer } from '@cookbook/tokenizers';

/** ChatML renderer; needs a tokenizer with `<|im_start|>` and `<|im_end|>` tokens (Qwen and many others). */
export class ChatmlRenderer extends BaseRenderer {
  private readonly imEnd: number;

  constructor(tokenizer: Tokenizer) {
    super(tokenizer);
    this.imEnd = this.tokenId('<|im_end|>');
    this.tokenId('<|im_start|>');
  }

  override get hasExtensionProperty(): boolean {
    return true;
  }

  override renderMessage(message: Message, ctx: RenderContext): RenderedMessage {
    if (message.tool_calls?.length) throw new RendererError('chatml has no tool-calling format');
    if (typeof message.content !== 'string' && message.content.some((p) => p.type !== 'text')) {
      throw new RendererError('chatml renders text parts only');
    }
    const text =
      typeof message.content === 'string'
        ? message.content
        : message.content.map((p) => (p.type === 'text' ? p.text : '')).join('');
    return {
      // Message text goes through tpl / encodeText so a quoted `<|im_end|>` stays text.
      header: this.tpl`${ctx.idx > 0 ? '\n' : ''}<|im_start|>${message.role}\n`,
      output: [{ type: 'encoded_text', tokens: [...this.encodeText(text), this.imEnd] }],
    };
  }

  getStopSequences(): number[] {
    return [this.imEnd];
  }

  parseResponse(tokens: readonly number[]): ParsedResponse {
    const { text, termination } = parseResponseForStopToken(tokens, this.tokenizer, this.imEnd);
    return { message: { role: 'assistant', content: text }, termination };
  }
}
