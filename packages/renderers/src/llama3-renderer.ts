/**
 * `llama3` (upstream `Llama3Renderer`): Llama 3 header format. Deliberate differences from Meta's 3.1 template:
 * no "Cutting Knowledge Date" system preamble (the templates shipped with the tokenizers have none either), content
 * is not trimmed, and there is no tool calling (bare-JSON tool calls are ambiguous to parse).
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
    const header = this.encode(`<|start_header_id|>${message.role}<|end_header_id|>\n\n`);
    const text = ensureText(message, 'llama3');
    return { header, output: [{ type: 'encoded_text', tokens: [...this.encode(text), this.tokenId('<|eot_id|>')] }] };
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
