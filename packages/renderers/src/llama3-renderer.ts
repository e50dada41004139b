/**
 * `llama3` (upstream `Llama3Renderer`): Llama 3 header format, token for token the chat template shipped with the
 * Llama 3 / 3.1 tokenizers, content trimmed as that template trims it (JavaScript `trim()`, as `@huggingface/jinja`
 * runs it; Python's `strip()` differs only on U+FEFF and U+001C–U+001F). Deliberate differences: no "Cutting
 * Knowledge Date" system preamble of Meta's 3.1 template (the shipped templates have none either), no tool calling
 * (bare-JSON tool calls are ambiguous to parse), and message text never becomes a control token (a quoted
 * `<|eot_id|>` stays text; the template would emit the token). The original Llama 3 (3.0) template appends the
 * assistant header even with `add_generation_prompt=false`; a supervised example ends at `<|eot_id|>` instead.
 */
import { type Message, RendererError } from '@cookbook/core';
import { ensureText } from './internal/content-utils.js';
import {
  BaseRenderer,
  type ParsedResponse,
  parseResponseForStopToken,
  type RenderContext,
  type RenderedMessage,
} from './renderer.js';

/** `<|begin_of_text|><|start_header_id|>role<|end_header_id|>⏎⏎content<|eot_id|>…`; stop `<|eot_id|>`. */
export class Llama3Renderer extends BaseRenderer {
  override get hasExtensionProperty(): boolean {
    return true;
  }

  override renderMessage(message: Message, _ctx: RenderContext): RenderedMessage {
    if (message.tool_calls?.length) {
      throw new RendererError('llama3 has no tool-calling format; drop tool_calls or use a Qwen3 / gpt-oss renderer');
    }
    const header = this.tpl`<|start_header_id|>${message.role}<|end_header_id|>\n\n`;
    const text = ensureText(message, 'llama3').trim();
    return {
      header,
      output: [{ type: 'encoded_text', tokens: [...this.encodeText(text), this.tokenId('<|eot_id|>')] }],
    };
  }

  protected override bosTokens(): number[] {
    return [this.tokenId('<|begin_of_text|>')];
  }

  getStopSequences(): number[] {
    return [this.tokenId('<|eot_id|>')];
  }

  parseResponse(tokens: readonly number[]): ParsedResponse {
    const { text, termination } = parseResponseForStopToken(tokens, this.tokenizer, this.tokenId('<|eot_id|>'));
    return { message: { role: 'assistant', content: text }, termination };
  }
}
