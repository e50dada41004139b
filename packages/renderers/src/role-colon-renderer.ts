/**
 * `role_colon` (upstream `RoleColonRenderer`): a plain `User: …⏎⏎Assistant: …` format for base models.
 */
import { type Message, RendererError } from '@cookbook/core';
import { ensureText } from './internal/content-utils.js';
import { BaseRenderer, type ParsedResponse, type RenderContext, type RenderedMessage } from './renderer.js';

const STOP = '\n\nUser:';

/** `[BOS]User: Q⏎⏎Assistant: A⏎⏎`; generation suffix `Assistant:`; stop string `⏎⏎User:`. Text only, no tools. */
export class RoleColonRenderer extends BaseRenderer {
  override get hasExtensionProperty(): boolean {
    return true;
  }

  override renderMessage(message: Message, _ctx: RenderContext): RenderedMessage {
    const role = message.role.charAt(0).toUpperCase() + message.role.slice(1);
    const header = this.tpl`${role}:`;
    if (message.tool_calls?.length) throw this.noTools();
    const text = ensureText(message, 'role_colon');
    const out: RenderedMessage = { header, output: [{ type: 'encoded_text', tokens: this.tpl` ${text}\n\n` }] };
    if (message.role === 'assistant') out.stopOverlap = this.encode('User:');
    return out;
  }

  protected override bosTokens(): number[] {
    return this.tokenizer.bosTokenId === undefined ? [] : [this.tokenizer.bosTokenId];
  }

  getStopSequences(): string[] {
    return [STOP];
  }

  parseResponse(tokens: readonly number[]): ParsedResponse {
    const eos = this.tokenizer.eosTokenId;
    let body = tokens;
    let endedWithEos = false;
    if (eos !== undefined && body.length > 0 && body[body.length - 1] === eos) {
      body = body.slice(0, -1);
      endedWithEos = true;
    }
    const pieces = this.tokenizer.decode(body).split(STOP);
    let content = pieces[0] ?? '';
    if (content.startsWith(' ')) content = content.slice(1);
    if (content.endsWith('\n\n')) content = content.slice(0, -2);
    const message: Message = { role: 'assistant', content };
    if (pieces.length === 1) return { message, termination: endedWithEos ? 'eos' : 'malformed' };
    if (pieces.length === 2) return { message, termination: endedWithEos ? 'malformed' : 'stop_sequence' };
    return { message, termination: 'malformed' };
  }

  private noTools(): RendererError {
    return new RendererError('role_colon has no tool-calling format; drop tool_calls or use a chat renderer');
  }
}
