/**
 * Moonshot AI's Kimi chat format (upstream `kimi_k2.py`, `kimi_k25.py`, `kimi_k26.py`): `kimi_k2` (Kimi-K2-Thinking),
 * `kimi_k25` / `kimi_k26` (thinking on: `<think>` prefilled), `kimi_k25_disable_thinking` / `kimi_k26_disable_thinking`
 * (the template's `thinking=false`: `<think></think>` prefilled, every assistant message written with an empty think
 * block) and `kimi_k26_preserve_thinking` (K2.6's `preserve_thinking=true`: every assistant message keeps its
 * reasoning). Turns are `<|im_user|>user<|im_middle|>…<|im_end|>` (`<|im_assistant|>`, `<|im_system|>` for the other
 * roles, a message's `name` replacing the role name), tool results `<|im_system|>{name}<|im_middle|>## Return of {id}⏎…`,
 * tool calls `<|tool_calls_section_begin|><|tool_call_begin|>{id}<|tool_call_argument_begin|>{arguments}<|tool_call_end|>…`.
 *
 * Followed from the official templates (where upstream differs): an assistant message keeps its reasoning
 * (`<think>…</think>`) only after the last assistant message without tool calls; K2.5 / K2.6 add no default system
 * message (only K2-Thinking's template does); with thinking off every assistant message gets `<think></think>`.
 * Kept from upstream where the template gives nothing usable: a tool call without an `id` gets
 * `functions.{name}:{index}`, and a tool result without `tool_call_id` reuses the id of the call it answers (the
 * template would print an empty id). The message being trained in a supervised example keeps its reasoning (it is what
 * the model produced after the generation prompt; the template run on the whole conversation would empty it).
 * String content is not searched for inline `<think>` blocks. K2-Thinking declares tools as compact JSON with every key
 * sorted (the Hub revision upstream pins; an older copy of that template wrote `tojson()` with spaces). K2.6's own
 * template file was not available: `kimi_k26*` are tested against K2.5's template, which the upstream diff of the two
 * repositories says K2.6 keeps apart from `preserve_thinking` (see `__fixtures__/kimi/SOURCES.md`).
 * Deliberate difference from the template everywhere: message text (content, reasoning, role and tool names, tool
 * arguments, ids and results, tool declarations) never becomes a control token — a quoted `<|im_end|>` or `<think>`
 * stays text; those tokens come only from the renderer's structure. K2.5 / K2.6 render image parts of user, system and
 * tool messages as their template does, `<|media_begin|>image<|media_content|><|media_pad|><|media_end|>⏎`, with the
 * image's chunk in place of the pad (`expected_tokens` by the Kimi resize rule, {@link KIMI_K25_IMAGE_RULE});
 * K2-Thinking is text only.
 */
import {
  type ContentPart,
  type Message,
  type ModelInput,
  RendererError,
  type ToolCall,
  type ToolSpec,
  type UnparsedToolCall,
} from '@cookbook/core';
import { KIMI_K25_IMAGE_RULE } from '@cookbook/images';
import type { Tokenizer } from '@cookbook/tokenizers';
import { detectUnterminatedToolBlock } from './content-blocks.js';
import { splitThinkingAndText } from './internal/content-utils.js';
import { kimiJsonTools, kimiToolDeclaration } from './kimi-tool-declaration.js';
import { appendContent, type ImageFraming, imageRefusal, spliceImages, TemplateParts } from './vision.js';

/** How the Kimi K2.5 / K2.6 template writes an image. */
export const KIMI_IMAGE_FRAMING: ImageFraming = Object.freeze({
  placeholder: '<|media_begin|>image<|media_content|><|media_pad|><|media_end|>\n',
  pad: '<|media_pad|>',
  rule: KIMI_K25_IMAGE_RULE,
});

import {
  BaseRenderer,
  type GenerationPromptOptions,
  type ParsedResponse,
  parseResponseForStopToken,
  type RenderContext,
  type RenderedMessage,
  type SupervisedExample,
  type TrainOnWhat,
} from './renderer.js';

/** Which Kimi generation a renderer writes: K2-Thinking's template, or K2.5's (which K2.6 shares). */
export type KimiVersion = 'k2' | 'k25';

/** Options of {@link KimiRenderer}. */
export interface KimiRendererOptions {
  /** `k2` (Kimi-K2-Thinking) or `k25` (Kimi-K2.5 and K2.6). Default `k25`. */
  version?: KimiVersion;
  /** K2.5 / K2.6 only: the template's `thinking` switch. Default true (`<think>` prefilled). */
  thinking?: boolean;
  /**
   * Drop reasoning from assistant messages up to the last one without tool calls, as the templates do. Default true;
   * false is K2.6's `preserve_thinking=true` (every message keeps its reasoning; the extension property then holds).
   */
  stripThinkingFromHistory?: boolean;
}

/** The system message Kimi-K2-Thinking's template adds when the conversation has none. */
export const KIMI_DEFAULT_SYSTEM_PROMPT = 'You are Kimi, an AI assistant created by Moonshot AI.';

const IM_END = '<|im_end|>';
const SECTION_BEGIN = '<|tool_calls_section_begin|>';
const SECTION_END = '<|tool_calls_section_end|>';
const CALL_BEGIN = '<|tool_call_begin|>';
const ARG_BEGIN = '<|tool_call_argument_begin|>';
const CALL_END = '<|tool_call_end|>';
/** The role of the message that carries tool declarations (rendered `<|im_system|>tool_declare<|im_middle|>…`). */
export const KIMI_TOOL_DECLARE_ROLE = 'tool_declare';

function roleToken(role: string): string {
  return role === 'user' ? '<|im_user|>' : role === 'assistant' ? '<|im_assistant|>' : '<|im_system|>';
}

/** Index of the last assistant message without tool calls in `messages[0, end)`, or -1. */
function lastPlainAssistant(messages: readonly Message[], end: number): number {
  for (let i = end - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant' && (m.tool_calls ?? []).length === 0) return i;
  }
  return -1;
}

/** The id a tool call is written with: its own, else `functions.{name}:{index}`. */
function callId(call: ToolCall, index: number): string {
  return call.id ?? `functions.${call.function.name}:${index}`;
}

/** Renders the Kimi K2 / K2.5 / K2.6 chat format; see the module comment. */
export class KimiRenderer extends BaseRenderer {
  readonly version: KimiVersion;
  readonly thinking: boolean;
  readonly stripThinkingFromHistory: boolean;
  /** True while a supervised example is rendered (its last message is the produced one; see the module comment). */
  private producing = false;

  constructor(tokenizer: Tokenizer, options: KimiRendererOptions = {}) {
    super(tokenizer);
    this.version = options.version ?? 'k25';
    this.thinking = options.thinking ?? true;
    this.stripThinkingFromHistory = options.stripThinkingFromHistory ?? true;
    if (this.version === 'k2' && !this.thinking) {
      throw new RendererError("Kimi-K2-Thinking's template has no thinking switch; use kimi_k25_disable_thinking");
    }
  }

  override get hasExtensionProperty(): boolean {
    return !this.thinking || !this.stripThinkingFromHistory;
  }

  override get disablesThinking(): boolean {
    return !this.thinking;
  }

  override buildGenerationPrompt(messages: readonly Message[], options?: GenerationPromptOptions): ModelInput {
    const before = this.producing;
    this.producing = false;
    try {
      return super.buildGenerationPrompt(messages, options);
    } finally {
      this.producing = before;
    }
  }

  override buildSupervisedExample(messages: readonly Message[], trainOnWhat?: TrainOnWhat): SupervisedExample {
    const before = this.producing;
    this.producing = true;
    try {
      return super.buildSupervisedExample(messages, trainOnWhat);
    } finally {
      this.producing = before;
    }
  }

  private get defaultSystem(): number[] {
    return this.tpl`<|im_system|>system<|im_middle|>${KIMI_DEFAULT_SYSTEM_PROMPT}<|im_end|>`;
  }

  /** K2-Thinking's template writes its default system message unless the conversation opens with one. */
  private needsDefaultSystem(messages: readonly Message[]): boolean {
    if (this.version !== 'k2') return false;
    const first = messages[0]?.role === KIMI_TOOL_DECLARE_ROLE ? messages[1] : messages[0];
    return first?.role !== 'system';
  }

  protected override bosTokens(messages: readonly Message[]): number[] {
    // After a tool declaration the default system message goes after it (in the next header, or the suffix).
    if (messages[0]?.role === KIMI_TOOL_DECLARE_ROLE) return [];
    return this.needsDefaultSystem(messages) ? this.defaultSystem : [];
  }

  private header(message: Message): number[] {
    const name = message.name || message.role;
    return this.tpl([roleToken(message.role), '<|im_middle|>'], name);
  }

  override renderMessage(message: Message, ctx: RenderContext): RenderedMessage {
    let header = this.header(message);
    if (ctx.idx === 1 && ctx.prevMessage?.role === KIMI_TOOL_DECLARE_ROLE && this.needsDefaultSystem(ctx.messages)) {
      header = [...this.defaultSystem, ...header];
    }
    if (message.role === 'assistant') {
      return { header, output: [{ type: 'encoded_text', tokens: this.assistantBody(message, ctx) }] };
    }
    const parts = new TemplateParts();
    if (message.role === 'tool') {
      parts.lit('## Return of ');
      parts.val(this.toolResultId(ctx));
      parts.lit('\n');
    }
    this.appendMessageContent(parts, message, ctx.idx);
    parts.lit(IM_END);
    const tokens = this.tpl(parts.literals, ...parts.values);
    const output =
      parts.images.length === 0
        ? [{ type: 'encoded_text' as const, tokens }]
        : spliceImages(tokens, this.tokenId(KIMI_IMAGE_FRAMING.pad), parts.images);
    return { header, output };
  }

  /**
   * The content of a non-assistant message: text parts as text (the text between `<|im_middle|>` and `<|im_end|>` is
   * encoded as one piece, as the template's string is), image parts as the template's media placeholder (K2.5 / K2.6;
   * K2-Thinking refuses them).
   */
  private appendMessageContent(parts: TemplateParts, message: Message, idx: number): void {
    if (this.version === 'k2' && typeof message.content !== 'string') {
      const j = message.content.findIndex((p) => p.type === 'image');
      if (j >= 0) throw imageRefusal('kimi_k2 (Kimi-K2-Thinking)', idx, j);
    }
    if (typeof message.content !== 'string' && message.content.some((p) => p.type === 'thinking')) {
      throw new RendererError(`a Kimi ${message.role} message cannot hold thinking parts (only assistants reason)`);
    }
    appendContent(parts, message, idx, KIMI_IMAGE_FRAMING);
  }

  /** The id a tool result answers: its `tool_call_id`, else the id of the matching call of the last tool-calling turn. */
  private toolResultId(ctx: RenderContext): string {
    const own = ctx.messages[ctx.idx]?.tool_call_id;
    if (own !== undefined) return own;
    let k = 0;
    for (let i = ctx.idx - 1; i >= 0; i--) {
      const m = ctx.messages[i]!;
      if (m.role === 'tool') k++;
      else if (m.role === 'assistant' && (m.tool_calls ?? []).length > 0) {
        const call = m.tool_calls![k];
        return call === undefined ? '' : callId(call, k);
      } else break;
    }
    return '';
  }

  /** Whether the assistant message at `ctx.idx` is written with its reasoning. */
  private keepsReasoning(ctx: RenderContext): boolean {
    const producedMessage = this.producing && ctx.idx === ctx.messages.length - 1;
    if (producedMessage) return true;
    if (!this.thinking) return false;
    if (!this.stripThinkingFromHistory) return true;
    // The template's history/suffix split; a supervised example's last message is the produced one, not history.
    const end = this.producing ? ctx.messages.length - 1 : ctx.messages.length;
    return ctx.idx > lastPlainAssistant(ctx.messages, end);
  }

  private assistantBody(message: Message, ctx: RenderContext): number[] {
    if (typeof message.content !== 'string' && message.content.some((p) => p.type === 'image')) {
      throw new RendererError('a Kimi assistant message cannot hold image parts');
    }
    const { thinking, text } = splitThinkingAndText(message);
    const literals = ['<think>'];
    const values: string[] = [];
    if (this.keepsReasoning(ctx)) values.push(thinking);
    else values.push('');
    literals.push('</think>');
    values.push(text);
    const calls = message.tool_calls ?? [];
    if (calls.length > 0) {
      literals.push(`${SECTION_BEGIN}${CALL_BEGIN}`);
      calls.forEach((call, j) => {
        values.push(callId(call, j), call.function.arguments);
        literals.push(ARG_BEGIN, j === calls.length - 1 ? `${CALL_END}${SECTION_END}` : `${CALL_END}${CALL_BEGIN}`);
      });
      literals[literals.length - 1] += IM_END;
    } else literals.push(IM_END);
    return this.tpl(literals, ...values);
  }

  protected override generationSuffix(role: string, messages: readonly Message[]): number[] {
    const onlyDeclaration = messages.length === 1 && messages[0]?.role === KIMI_TOOL_DECLARE_ROLE;
    const system = onlyDeclaration && this.needsDefaultSystem(messages) ? this.defaultSystem : [];
    const header = this.header({ role, content: '' });
    const think = this.version === 'k25' && role === 'assistant' ? (this.thinking ? '<think>' : '<think></think>') : '';
    return [...system, ...header, ...this.encode(think)];
  }

  getStopSequences(): number[] {
    return [this.tokenId(IM_END)];
  }

  parseResponse(tokens: readonly number[]): ParsedResponse {
    const parsed = parseResponseForStopToken(tokens, this.tokenizer, this.tokenId(IM_END));
    if (parsed.termination === 'malformed') {
      return { message: { role: 'assistant', content: parsed.text }, termination: 'malformed' };
    }
    let text = parsed.text;
    // K2.5 / K2.6 prefill `<think>`: the sampled reasoning starts without it.
    if (this.version === 'k25' && this.thinking && !text.startsWith('<think>') && text.includes('</think>')) {
      text = `<think>${text}`;
    }
    const message: Message = { role: 'assistant', content: '' };
    const calls: ToolCall[] = [];
    const unparsed: UnparsedToolCall[] = [];
    const section = /<\|tool_calls?_section_begin\|>([\s\S]*?)<\|tool_calls?_section_end\|>/.exec(text);
    if (section) {
      const inner = section[1] ?? '';
      for (const m of inner.matchAll(
        /<\|tool_call_begin\|>\s*([\s\S]*?)\s*<\|tool_call_argument_begin\|>\s*([\s\S]*?)\s*<\|tool_call_end\|>/g,
      )) {
        const id = m[1] ?? '';
        const args = m[2] ?? '';
        const name = (id.split(':')[0] ?? '').replace(/^functions\./, '');
        try {
          JSON.parse(args);
          calls.push({ type: 'function', id, function: { name, arguments: args } });
        } catch (e) {
          unparsed.push({ raw_text: m[0], error: `Invalid JSON in the arguments of ${id}: ${(e as Error).message}` });
        }
      }
      const open = detectUnterminatedToolBlock(inner, CALL_BEGIN, CALL_END);
      if (open !== null) unparsed.push(open);
      text = text.slice(0, section.index) + text.slice(section.index + section[0].length);
    } else {
      const at = text.search(/<\|tool_calls?_section_begin\|>/);
      if (at >= 0) {
        unparsed.push({
          raw_text: text.slice(at),
          error: `unterminated tool block: ${SECTION_BEGIN} without ${SECTION_END}`,
        });
        text = text.slice(0, at);
      }
    }
    const parts: ContentPart[] = [];
    let last = 0;
    for (const m of text.matchAll(/<think>([\s\S]*?)<\/think>/g)) {
      if (m.index > last) parts.push({ type: 'text', text: text.slice(last, m.index) });
      if ((m[1] ?? '') !== '') parts.push({ type: 'thinking', thinking: m[1] ?? '' });
      last = m.index + m[0].length;
    }
    if (last < text.length) parts.push({ type: 'text', text: text.slice(last) });
    message.content = parts.some((p) => p.type === 'thinking')
      ? parts
      : parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    if (calls.length > 0) message.tool_calls = calls;
    if (unparsed.length > 0) message.unparsed_tool_calls = unparsed;
    return { message, termination: parsed.termination };
  }

  /**
   * `[tool_declare, system]`: the declaration message first, as the template writes it. K2-Thinking declares compact
   * JSON with every object's keys sorted (its tokenizer sorts them) and always adds a system message (the default one
   * when `systemPrompt` is empty); K2.5 / K2.6 declare TypeScript-style types ({@link kimiToolDeclaration}) and add a
   * system message only when `systemPrompt` is given.
   */
  override createConversationPrefixWithTools(tools: readonly ToolSpec[], systemPrompt = ''): Message[] {
    const out: Message[] = [];
    if (tools.length > 0) {
      const content = this.version === 'k2' ? kimiJsonTools(tools, true) : kimiToolDeclaration(tools);
      out.push({ role: KIMI_TOOL_DECLARE_ROLE, content });
    }
    if (systemPrompt !== '') out.push({ role: 'system', content: systemPrompt });
    else if (this.version === 'k2') out.push({ role: 'system', content: KIMI_DEFAULT_SYSTEM_PROMPT });
    return out;
  }
}
