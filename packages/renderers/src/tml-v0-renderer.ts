/**
 * TMLv0, the chat format of Thinking Machines' Inkling models (upstream `tml_v0.py`): `tml_v0`.
 *
 * Inkling ships no chat template: upstream delegates to the compiled `tml-renderers` package. This renderer follows
 * the token layout that vLLM's native Inkling renderer writes (`vllm/renderers/inkling_encoding.py` and its Rust
 * twin with their fixtures), which agrees with upstream's tests where they overlap: every message part is
 * `<|message_ROLE|>` [author] `<|content_KIND|>` text `<|end_message|>` (roles user, model, system, tool; kinds text,
 * thinking, xml, invoke_tool_json); an assistant turn is one part per reasoning, text and tool call
 * (`<|message_model|>NAME<|content_invoke_tool_json|>{"name":…,"args":{…}}` with keys sorted, compact) closed by
 * `<|content_model_end_sampling|>` (the stop token); a tool result is `<|message_tool|>NAME<|content_text|>…`; tools
 * are declared by a `<|message_system|>tool_declare<|content_xml|>[…]` part; the generation prompt ends with
 * `<|message_model|>`. The thinking effort (upstream default 0.9, in [0, 1)) is a system part
 * `Thinking effort level: 0.9` after the leading system parts, on every prompt and supervised example, as upstream.
 * Reasoning stays on every turn (nothing is stripped by position), so the format has the extension property.
 *
 * Taken from upstream where vLLM differs or is silent: the tool declaration comes where
 * {@link TmlV0Renderer.createConversationPrefixWithTools} puts it (after the system prompt; vLLM writes it first);
 * the effort prints up to thousandths (`0.125`; vLLM rounds to hundredths — equal for the presets 0, 0.1, 0.2, 0.7,
 * 0.9, 0.99); prefill and roles other than assistant are refused for generation. Deliberate differences: an assistant
 * message with no text, reasoning or tool call renders one empty text part (so its tokens continue the generation
 * prompt); message text (content, reasoning, author and tool names, arguments, results) never becomes a control
 * token. Image and audio parts are the multimodal issues' (refused here with a clear error).
 */

import type { ModelInput } from '@cookbook/core';
import { type Message, RendererError, type ToolCall, type ToolSpec, type UnparsedToolCall } from '@cookbook/core';
import type { Tokenizer } from '@cookbook/tokenizers';
import { canonicalJson, type JsonNode, jsonNodeOf, parseJsonNode } from './internal/python-json.js';
import {
  BaseRenderer,
  type GenerationPromptOptions,
  type ParsedResponse,
  type RenderContext,
  type RenderedMessage,
} from './renderer.js';

/** TMLv0's structure tokens (alternative spellings: the Inkling vocabulary names some slots `<|unused_N|>`). */
export const TML_V0_TOKENS = Object.freeze({
  messageUser: ['<|message_user|>'],
  messageModel: ['<|message_model|>'],
  messageSystem: ['<|message_system|>'],
  messageTool: ['<|message_tool|>'],
  contentText: ['<|content_text|>'],
  contentThinking: ['<|content_thinking|>'],
  contentXml: ['<|content_xml|>', '<|unused_200024|>'],
  contentInvokeToolJson: ['<|content_invoke_tool_json|>'],
  endMessage: ['<|end_message|>'],
  endSampling: ['<|content_model_end_sampling|>'],
} as const);

type TokenName = keyof typeof TML_V0_TOKENS;

/** The default thinking effort (upstream `DEFAULT_EFFORT`). */
export const TML_V0_DEFAULT_EFFORT = 0.9;

/** Options of {@link TmlV0Renderer}. */
export interface TmlV0RendererOptions {
  /** Thinking effort in [0, 1); default 0.9. */
  effort?: number;
}

const SYSTEM_ROLES = new Set(['system', 'developer', 'tool_declare']);

type Part = { kind: 'contentText' | 'contentThinking' | 'contentInvokeToolJson'; author: string; text: string };

/** The effort as its system part writes it: thousandths, trailing zeros dropped (`0.9`, `0.0`, `0.125`). */
export function formatThinkingEffort(effort: number): string {
  if (!Number.isFinite(effort) || effort < 0 || effort >= 1) {
    throw new RendererError(`thinking effort must be a finite number in [0, 1), got ${effort}`);
  }
  const t = Math.min(999, Math.round(effort * 1000));
  return `0.${String(t).padStart(3, '0').replace(/0+$/, '') || '0'}`;
}

/** Renders TMLv0 (Inkling); see the module comment. */
export class TmlV0Renderer extends BaseRenderer {
  /** The thinking effort written into every prompt. */
  readonly effort: number;
  private readonly ids = new Map<TokenName, number>();

  constructor(tokenizer: Tokenizer, options: TmlV0RendererOptions = {}) {
    super(tokenizer);
    this.effort = options.effort ?? TML_V0_DEFAULT_EFFORT;
    formatThinkingEffort(this.effort);
  }

  override get hasExtensionProperty(): boolean {
    return true;
  }

  /** Id of a structure token, trying its spellings; a clear error when the tokenizer is not Inkling's. */
  private id(name: TokenName): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      const spellings = TML_V0_TOKENS[name];
      for (const s of spellings) {
        id = this.tokenizer.convertTokenToId(s);
        if (id !== undefined) break;
      }
      if (id === undefined) {
        throw new RendererError(
          `the tokenizer "${this.tokenizer.name}" has no ${spellings.join(' / ')} token; tml_v0 needs the Inkling ` +
            'tokenizer (thinkingmachines/Inkling)',
        );
      }
      this.ids.set(name, id);
    }
    return id;
  }

  /** One part: role token, author (text), kind token, text, end token. */
  private part(role: TokenName, kind: TokenName, text: string, author = ''): number[] {
    return [this.id(role), ...this.encodeText(author), this.id(kind), ...this.encodeText(text), this.id('endMessage')];
  }

  private effortPart(): number[] {
    return this.part('messageSystem', 'contentText', `Thinking effort level: ${formatThinkingEffort(this.effort)}`);
  }

  /** Index of the first message that is not a system part (the effort part goes before it), or -1. */
  private effortIndex(messages: readonly Message[]): number {
    return messages.findIndex((m) => !SYSTEM_ROLES.has(m.role));
  }

  private text(message: Message): string {
    if (typeof message.content === 'string') return message.content;
    let out = '';
    for (const p of message.content) {
      if (p.type === 'text') out += p.text;
      else this.unsupported(message, p.type);
    }
    return out;
  }

  private unsupported(message: Message, what: string): never {
    throw new RendererError(
      `tml_v0 renders text, reasoning and tool calls; a ${message.role} message has a ${what} part` +
        (what === 'image' ? ' (image input is not supported by this renderer yet)' : ''),
    );
  }

  override renderMessage(message: Message, ctx: RenderContext): RenderedMessage {
    const lead = ctx.idx === this.effortIndex(ctx.messages) ? this.effortPart() : [];
    const out = (tokens: number[]): RenderedMessage => ({
      ...(lead.length > 0 ? { header: lead } : {}),
      output: [{ type: 'encoded_text', tokens }],
    });
    switch (message.role) {
      case 'system':
      case 'developer':
        return out(this.textParts(message, 'messageSystem'));
      case 'tool_declare':
        return out(this.part('messageSystem', 'contentXml', this.text(message), 'tool_declare'));
      case 'user':
        return out(this.textParts(message, 'messageUser'));
      case 'tool':
        return out(this.part('messageTool', 'contentText', this.text(message), this.toolName(message, ctx)));
      case 'assistant': {
        const tokens: number[] = [];
        for (const p of this.assistantParts(message))
          tokens.push(...this.part('messageModel', p.kind, p.text, p.author));
        tokens.push(this.id('endSampling'));
        // The generation prompt ends with <|message_model|>: the turn's first one is header (prompt).
        return { header: [...lead, tokens[0]!], output: [{ type: 'encoded_text', tokens: tokens.slice(1) }] };
      }
      default:
        throw new RendererError(
          `tml_v0 has no role "${message.role}"; expected system, developer, tool_declare, user, assistant or tool`,
        );
    }
  }

  /** A user or system message: one text part per text part (a string: one part, none when empty). */
  private textParts(message: Message, role: TokenName): number[] {
    if (typeof message.content === 'string') {
      return message.content === '' ? [] : this.part(role, 'contentText', message.content);
    }
    const tokens: number[] = [];
    for (const p of message.content) {
      if (p.type === 'text') tokens.push(...this.part(role, 'contentText', p.text));
      else this.unsupported(message, p.type);
    }
    return tokens;
  }

  private toolName(message: Message, ctx: RenderContext): string {
    if (message.name !== undefined) return message.name;
    if (message.tool_call_id === undefined) return '';
    for (let i = ctx.idx - 1; i >= 0; i--) {
      const call = ctx.messages[i]!.tool_calls?.find((c) => c.id === message.tool_call_id);
      if (call !== undefined) return call.function.name;
    }
    return '';
  }

  private assistantParts(message: Message): Part[] {
    const parts: Part[] = [];
    if (typeof message.content === 'string') {
      if (message.content !== '') parts.push({ kind: 'contentText', author: '', text: message.content });
    } else {
      for (const p of message.content) {
        if (p.type === 'thinking' && p.thinking !== '') {
          parts.push({ kind: 'contentThinking', author: '', text: p.thinking });
        } else if (p.type === 'text' && p.text !== '') parts.push({ kind: 'contentText', author: '', text: p.text });
        else if (p.type === 'image') this.unsupported(message, 'image');
      }
    }
    for (const call of message.tool_calls ?? []) {
      const name = call.function.name;
      const raw = call.function.arguments;
      const args: JsonNode =
        raw.trim() === '' ? { kind: 'object', entries: [] } : parseJsonNode(raw, `arguments of ${name}`);
      if (args.kind !== 'object') {
        throw new RendererError(`the arguments of the tool call "${name}" must be a JSON object, got a ${args.kind}`);
      }
      const payload = `{"name":${canonicalJson({ kind: 'string', value: name })},"args":${canonicalJson(args)}}`;
      parts.push({ kind: 'contentInvokeToolJson', author: name, text: payload });
    }
    if (parts.length === 0) parts.push({ kind: 'contentText', author: '', text: '' });
    return parts;
  }

  override buildGenerationPrompt(messages: readonly Message[], options: GenerationPromptOptions = {}): ModelInput {
    if ((options.role ?? 'assistant') !== 'assistant') {
      throw new RendererError(`tml_v0 generates assistant turns only (got role "${options.role}")`);
    }
    if (options.prefill) {
      throw new RendererError(
        'tml_v0 does not take a prefill: TMLv0 sampling starts a new assistant turn; pass complete messages',
      );
    }
    return super.buildGenerationPrompt(messages);
  }

  protected override generationSuffix(_role: string, messages: readonly Message[]): number[] {
    const lead = this.effortIndex(messages) < 0 ? this.effortPart() : [];
    return [...lead, this.id('messageModel')];
  }

  getStopSequences(): number[] {
    return [this.id('endSampling')];
  }

  parseResponse(tokens: readonly number[]): ParsedResponse {
    const stop = this.id('endSampling');
    const stops = tokens.filter((t) => t === stop).length;
    if (stops > 1) {
      throw new RendererError(
        `expected at most one stop token ${stop} in the response, found ${stops}; sample with the renderer's ` +
          'getStopSequences() as the stop condition',
      );
    }
    const malformed = (): ParsedResponse => ({
      message: { role: 'assistant', content: this.tokenizer.decode(tokens) },
      termination: 'malformed',
    });
    if (stops === 0) return malformed();
    const body = tokens.slice(0, tokens.indexOf(stop));
    const kinds = new Map<number, Part['kind']>([
      [this.id('contentText'), 'contentText'],
      [this.id('contentThinking'), 'contentThinking'],
      [this.id('contentInvokeToolJson'), 'contentInvokeToolJson'],
    ]);
    const end = this.id('endMessage');
    const next = this.id('messageModel');
    const parts: Part[] = [];
    let p = 0;
    while (p < body.length) {
      const k = body.findIndex((t, i) => i >= p && kinds.has(t));
      const e = body.indexOf(end, Math.max(k, p));
      if (k < 0 || e < 0 || body.slice(p, k).some((t) => t === end || t === next)) return malformed();
      parts.push({
        kind: kinds.get(body[k]!)!,
        author: this.tokenizer.decode(body.slice(p, k)),
        text: this.tokenizer.decode(body.slice(k + 1, e)),
      });
      p = e + 1;
      if (p < body.length) {
        if (body[p] !== next) return malformed();
        p++;
      }
    }
    return { message: this.toMessage(parts), termination: 'stop_sequence' };
  }

  private toMessage(parts: readonly Part[]): Message {
    const content: NonNullable<Exclude<Message['content'], string>> = [];
    const message: Message = { role: 'assistant', content: '' };
    const calls: ToolCall[] = [];
    const unparsed: UnparsedToolCall[] = [];
    for (const part of parts) {
      if (part.kind === 'contentThinking') content.push({ type: 'thinking', thinking: part.text });
      else if (part.kind === 'contentText') {
        if (part.text !== '') content.push({ type: 'text', text: part.text });
      } else {
        const call = this.parseCall(part);
        if ('function' in call) calls.push(call);
        else unparsed.push(call);
      }
    }
    if (calls.length > 0) message.tool_calls = calls;
    if (unparsed.length > 0) message.unparsed_tool_calls = unparsed;
    message.content = content.every((c) => c.type === 'text')
      ? content.map((c) => (c.type === 'text' ? c.text : '')).join('')
      : content;
    return message;
  }

  private parseCall(part: Part): ToolCall | UnparsedToolCall {
    const raw = `${part.author}${TML_V0_TOKENS.contentInvokeToolJson[0]}${part.text}`;
    let payload: JsonNode;
    try {
      payload = parseJsonNode(part.text, 'tool call payload');
    } catch (e) {
      return { raw_text: raw, error: (e as Error).message };
    }
    const field = (key: string) =>
      payload.kind === 'object' ? payload.entries.find(([k]) => k === key)?.[1] : undefined;
    const name = field('name');
    const args = field('args');
    if (name?.kind !== 'string' || name.value === '') return { raw_text: raw, error: "missing or invalid 'name'" };
    if (args?.kind !== 'object') return { raw_text: raw, error: "missing or invalid 'args' (a JSON object)" };
    return { type: 'function', function: { name: name.value, arguments: canonicalJson(args) } };
  }

  /**
   * Messages declaring `tools` (and carrying `systemPrompt`): the system prompt, then a `tool_declare` message whose
   * content is the declaration (`[{"description", "name", "parameters", "type": "function"}]`, keys sorted, compact).
   */
  override createConversationPrefixWithTools(tools: readonly ToolSpec[], systemPrompt?: string): Message[] {
    const out: Message[] = systemPrompt ? [{ role: 'system', content: systemPrompt }] : [];
    if (tools.length > 0) {
      const specs = tools.map((t) => ({
        description: t.description ?? '',
        name: t.name,
        parameters: t.parameters ?? {},
        type: 'function',
      }));
      out.push({ role: 'tool_declare', content: canonicalJson(jsonNodeOf(specs)) });
    }
    return out;
  }
}
