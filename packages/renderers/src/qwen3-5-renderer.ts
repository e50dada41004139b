/**
 * Qwen3.5 / Qwen3.6 and Qwen3.8 (upstream `qwen3_5.py`, `qwen3_8.py`): `qwen3_5`, `qwen3_5_disable_thinking`,
 * `qwen3_8_xhigh_reasoning`, `qwen3_8_medium_reasoning`, `qwen3_8_low_reasoning`, `qwen3_8_disable_thinking`.
 *
 * Source: the official Qwen3.8 chat template (Qwen/Qwen3.8-27B, revision 1d4bf0f2, a test fixture). No copy of an
 * official Qwen3.5 / 3.6 template with a verifiable revision was available: `qwen3_5` follows upstream and is checked
 * against the Qwen3.8 template where upstream documents the two as alike (`preserve_thinking=false`, effort `medium`,
 * non-empty system prompts, no scalar arguments other than strings and integers). The family's format:
 * `<|im_start|>role⏎…<|im_end|>` turns, the tool declaration first in the system message (the system prompt after
 * it), XML tool calls (`<tool_call>⏎<function=NAME>⏎<parameter=P>⏎VALUE⏎…`),
 * consecutive tool results in one `<|im_start|>user` block, every message's text trimmed, `<think>⏎` opening the
 * generation prompt (`<think>⏎⏎</think>⏎⏎` with thinking disabled) and a think block — empty when the turn did not
 * reason — on every assistant message after the last user query. Qwen3.8 adds: a reasoning-effort sentence at the
 * start of the system message (`xhigh`, `low`; `medium` adds none; none when thinking is disabled), reasoning kept on
 * every earlier turn (`preserve_thinking` defaults to true), and no block for an empty system message.
 *
 * Deliberate differences from upstream, chosen for the template: reasoning is dropped only from assistant messages
 * before the last user query (upstream also drops it from tool-calling turns after it); the tool declaration lists
 * `{"type": "function", "function": …}` entries, the form OpenAI-style callers pass the template (upstream prints
 * the bare spec); a system message anywhere but first is refused, as the template refuses it. Kept from upstream:
 * `qwen3_5` prints scalar arguments with Python's `str()` (`True`, `None`, as the Qwen3.5 template does; the Qwen3.6
 * template prints JSON `true`, `null` — pass `argumentStyle: 'json'`), and string content is never searched for
 * inline `<think>` blocks (the Qwen3.5 template would lift them into reasoning; Qwen3.8's does not).
 * Deliberate difference from the template everywhere: message text (content, reasoning, tool names, argument values
 * and results) never becomes a control token (`<|im_end|>`, `<think>`, `<tool_call>`, `<tool_response>`, …); those
 * come only from the renderer's own framing and from the fixed text of the tool declaration. The assistant turn being
 * produced (the last message) has the generation prompt's `<think>⏎` in its header, encoded apart from the rest, as at
 * sampling time: its text equals the template's, its tokens can differ at that seam (`⏎` + `⏎` vs `⏎⏎`); it is
 * therefore not trained (upstream trains it, a documented difference). The empty think block the template writes
 * into an earlier turn without reasoning belongs to that turn's header, untrained, as upstream renders it: the model
 * did not write it. `src/upstream-parity.test.ts` holds the weights to upstream's renderers.
 */
import {
  type ContentPart,
  type Message,
  type ModelInputChunk,
  RendererError,
  type ToolCall,
  type ToolSpec,
} from '@cookbook/core';
import type { Tokenizer } from '@cookbook/tokenizers';
import { detectUnterminatedToolBlock } from './content-blocks.js';
import { pythonJsonDumps } from './internal/content-utils.js';
import { parseXmlToolCall, type XmlArgumentStyle, xmlToolCallParameters } from './internal/qwen-xml-tool-calls.js';
import { QWEN_VL_IMAGE_FRAMING } from './qwen3-vl-renderer.js';
import {
  BaseRenderer,
  type ParsedResponse,
  parseResponseForStopToken,
  type RenderContext,
  type RenderedMessage,
} from './renderer.js';
import { appendContent, hasImages, spliceImages, TemplateParts } from './vision.js';

/** Which template generation a {@link Qwen35Renderer} follows. */
export type Qwen35Family = 'qwen3_5' | 'qwen3_8';

/** Qwen3.8's reasoning effort (its template's `reasoning_effort`). */
export type Qwen38ReasoningEffort = 'xhigh' | 'medium' | 'low';

/** Options of {@link Qwen35Renderer}. */
export interface Qwen35RendererOptions {
  /** `qwen3_5` (default; Qwen3.5 and Qwen3.6 models) or `qwen3_8`. */
  family?: Qwen35Family;
  /** False renders the template's `enable_thinking=false` (an empty think block is prefilled). Default true. */
  thinking?: boolean;
  /** Qwen3.8 only: `xhigh` (default), `medium` or `low`; ignored when thinking is off. */
  reasoningEffort?: Qwen38ReasoningEffort;
  /**
   * Keep reasoning on assistant messages before the last user query (the template's `preserve_thinking`). Default:
   * true for Qwen3.8 (as its template), false for Qwen3.5.
   */
  preserveThinking?: boolean;
  /** How scalar tool-call arguments are printed. Default: `python` for Qwen3.5, `json` for Qwen3.8. */
  argumentStyle?: XmlArgumentStyle;
}

/** The sentence Qwen3.8's template puts at the start of the system message for each reasoning effort. */
export const QWEN38_REASONING_INSTRUCTIONS: Readonly<Record<Qwen38ReasoningEffort, string>> = Object.freeze({
  xhigh:
    'Reasoning effort is set to xhigh. Please think carefully through the task, validate key assumptions, consider ' +
    'plausible alternatives, and prioritize correctness, consistency, and clarity in the final answer.',
  medium: '',
  low:
    'Reasoning effort is set to low. Keep your thinking brief and focused, moving directly to the conclusion ' +
    'without unnecessary elaboration.',
});

const TOOLS_INTRO = '# Tools\n\nYou have access to the following functions:\n\n<tools>';
const TOOLS_OUTRO =
  '\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n' +
  '<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n' +
  '<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n' +
  '</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified ' +
  'format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags\n' +
  '- Required parameters MUST be specified\n- You may provide optional reasoning for your function call in natural ' +
  'language BEFORE the function call, but NOT after\n- If there is no function call available, answer the question ' +
  'like normal with your current knowledge and do not tell the user about function calls\n</IMPORTANT>';

const trim = (s: string): string => s.trim();

/** Renders the Qwen3.5 / Qwen3.8 chat format; see the module comment. */
export class Qwen35Renderer extends BaseRenderer {
  /** The template generation. */
  readonly family: Qwen35Family;
  /** Whether thinking is on. */
  readonly thinking: boolean;
  /** The reasoning effort (Qwen3.8). */
  readonly reasoningEffort: Qwen38ReasoningEffort;
  /** Whether reasoning before the last user query is kept. */
  readonly preserveThinking: boolean;
  /** How scalar tool-call arguments are printed. */
  readonly argumentStyle: XmlArgumentStyle;

  constructor(tokenizer: Tokenizer, options: Qwen35RendererOptions = {}) {
    super(tokenizer);
    this.family = options.family ?? 'qwen3_5';
    this.thinking = options.thinking ?? true;
    const effort = options.reasoningEffort ?? 'xhigh';
    if (!(effort in QWEN38_REASONING_INSTRUCTIONS)) {
      throw new RendererError(`unknown reasoning effort "${String(effort)}"; expected xhigh, medium or low`);
    }
    this.reasoningEffort = effort;
    this.preserveThinking = options.preserveThinking ?? this.family === 'qwen3_8';
    this.argumentStyle = options.argumentStyle ?? (this.family === 'qwen3_8' ? 'json' : 'python');
  }

  override get disablesThinking(): boolean {
    return !this.thinking;
  }

  /** The sentence prepended to the system message (Qwen3.8 with thinking on), or ''. */
  get reasoningInstructions(): string {
    return this.family === 'qwen3_8' && this.thinking ? QWEN38_REASONING_INSTRUCTIONS[this.reasoningEffort] : '';
  }

  private get imEnd(): number {
    return this.tokenId('<|im_end|>');
  }

  /** Text of a message (text parts joined; image parts are rendered by {@link renderContent}, not here). */
  protected contentText(message: Message, allowThinking = false): string {
    if (typeof message.content === 'string') return message.content;
    let out = '';
    for (const p of message.content as ContentPart[]) {
      if (p.type === 'text') out += p.text;
      else if (p.type === 'thinking' && !allowThinking) {
        throw new RendererError(`a ${message.role} message cannot hold thinking parts`);
      }
    }
    return out;
  }

  /**
   * The trimmed content between `prefix` and `suffix` (structure) as chunks: text, and each image part as the
   * template's `<|vision_start|><|image_pad|><|vision_end|>` with the image's chunk in place of the pad.
   */
  private renderContent(message: Message, idx: number, prefix: string, suffix: string): ModelInputChunk[] {
    const parts = new TemplateParts();
    parts.lit(prefix);
    appendContent(parts, message, idx, QWEN_VL_IMAGE_FRAMING, true);
    parts.lit(suffix);
    const tokens = this.tpl(parts.literals, ...parts.values);
    return spliceImages(tokens, this.tokenId(QWEN_VL_IMAGE_FRAMING.pad), parts.images);
  }

  /** System and assistant messages cannot hold images (the template refuses them in system messages). */
  private refuseImages(message: Message, idx: number): void {
    if (hasImages(message)) {
      throw new RendererError(
        `messages[${idx}] is a ${message.role} message with an image part; ${this.family} renderers take images in ` +
          'user and tool messages only (the template refuses images in system messages)',
      );
    }
  }

  /** Whether an (empty) system message at index 0 renders nothing (Qwen3.8 without an effort sentence). */
  private skipsSystem(messages: readonly Message[]): boolean {
    const first = messages[0];
    return (
      this.family === 'qwen3_8' &&
      first?.role === 'system' &&
      this.reasoningInstructions === '' &&
      trim(this.contentText(first)) === ''
    );
  }

  /** The instruction-only system block written before the first message when the conversation has no system one. */
  private leadingSystemBlock(messages: readonly Message[]): string {
    const instr = this.reasoningInstructions;
    return instr !== '' && messages[0]?.role !== 'system' ? `<|im_start|>system\n${instr}<|im_end|>` : '';
  }

  /** Whether anything is rendered before message `idx` (then its header starts with a newline). */
  private renderedBefore(messages: readonly Message[], idx: number): boolean {
    if (this.leadingSystemBlock(messages) !== '') return true;
    return idx > 1 || (idx === 1 && !this.skipsSystem(messages));
  }

  /** Header tokens of message `idx`: any leading effort block, the newline closing the previous turn, the role. */
  private header(messages: readonly Message[], idx: number, role: string, after = '\n'): number[] {
    const lead = idx === 0 ? this.leadingSystemBlock(messages) : '';
    const nl = lead !== '' || this.renderedBefore(messages, idx) ? '\n' : '';
    return this.tpl([`${lead}${nl}<|im_start|>`, after], role);
  }

  /** The template's `last_query_index`: the last user message that is not a wrapped tool response, or -1. */
  private lastQueryIndex(messages: readonly Message[]): number {
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i]!;
      if (m.role !== 'user') continue;
      const t = trim(this.contentText(m));
      if (!(t.startsWith('<tool_response>') && t.endsWith('</tool_response>'))) return i;
    }
    return -1;
  }

  override renderMessage(message: Message, ctx: RenderContext): RenderedMessage {
    const { messages, idx } = ctx;
    if (message.role === 'tool') return this.renderToolResult(message, ctx);
    if (message.role === 'system') {
      if (idx !== 0) {
        throw new RendererError(
          `a system message must be the first message (found one at index ${idx}); the Qwen3.5 template refuses it`,
        );
      }
      this.refuseImages(message, idx);
      if (this.skipsSystem(messages)) return { output: [] };
      const text = trim(this.contentText(message));
      const instr = this.reasoningInstructions;
      const full = instr === '' ? text : text === '' ? instr : `${instr}\n\n${text}`;
      return { header: this.encode('<|im_start|>system\n'), output: [this.systemBody(full)] };
    }
    if (message.role !== 'assistant') {
      return {
        header: this.header(messages, idx, message.role),
        output: this.renderContent(message, idx, '', '<|im_end|>'),
      };
    }
    this.refuseImages(message, idx);
    return this.renderAssistant(message, ctx);
  }

  /**
   * The system message's body: a tool declaration written by {@link createConversationPrefixWithTools} (its fixed
   * introduction and closing text around the tool lines) is the renderer's structure, so the closing text's
   * `<tool_call>` tags become tokens; everything else (system prompt, tool descriptions) is text.
   */
  private systemBody(text: string): { type: 'encoded_text'; tokens: number[] } {
    const instr = this.reasoningInstructions;
    const at = text.startsWith(TOOLS_INTRO)
      ? 0
      : instr !== '' && text.startsWith(`${instr}\n\n${TOOLS_INTRO}`)
        ? 1
        : -1;
    const end = at < 0 ? -1 : text.indexOf(TOOLS_OUTRO);
    const tailOk = end >= 0 && [undefined, '\n'].includes(text[end + TOOLS_OUTRO.length]);
    let tokens: number[];
    if (!tailOk) tokens = this.tpl`${text}<|im_end|>`;
    else {
      const tail = text.slice(end + TOOLS_OUTRO.length);
      tokens = this.tpl(['', TOOLS_OUTRO, '<|im_end|>'], text.slice(0, end), tail);
    }
    return { type: 'encoded_text', tokens };
  }

  private renderToolResult(message: Message, ctx: RenderContext): RenderedMessage {
    const continues = ctx.prevMessage?.role === 'tool';
    const closes = ctx.nextMessage?.role !== 'tool';
    const out: RenderedMessage = {
      output: this.renderContent(
        message,
        ctx.idx,
        '\n<tool_response>\n',
        `\n</tool_response>${closes ? '<|im_end|>' : ''}`,
      ),
    };
    if (!continues) out.header = this.header(ctx.messages, ctx.idx, 'user', '');
    return out;
  }

  /** The generation prompt's text after `<|im_start|>assistant⏎`. */
  private get prefill(): string {
    return this.thinking ? '<think>\n' : '<think>\n\n</think>\n\n';
  }

  private renderAssistant(message: Message, ctx: RenderContext): RenderedMessage {
    const literals: string[] = [''];
    const values: string[] = [];
    const lit = (s: string): void => {
      literals[literals.length - 1] += s;
    };
    const val = (s: string): void => {
      values.push(s);
      literals.push('');
    };
    let reasoning = '';
    if (typeof message.content !== 'string') {
      for (const p of message.content) if (p.type === 'thinking') reasoning += p.thinking;
    }
    reasoning = trim(reasoning);
    const content = trim(this.contentText(message, true));
    let prefilled = false;
    let emptyThink = false;
    if (this.preserveThinking || ctx.idx > this.lastQueryIndex(ctx.messages)) {
      // The produced turn continues the generation prompt: when it starts with the prompt's prefill, that prefill
      // is header (prompt), as at sampling time.
      prefilled = ctx.isLast && (this.thinking || reasoning === '');
      // An earlier turn without reasoning gets the template's empty think block: the model did not write it, so it
      // goes with the header, untrained, as upstream renders it.
      emptyThink = !prefilled && reasoning === '';
      if (!prefilled && !emptyThink) lit('<think>\n');
      if (!prefilled && !emptyThink) {
        val(reasoning);
        lit('\n</think>\n\n');
      } else if (prefilled && this.thinking) {
        val(reasoning);
        lit('\n</think>\n\n');
      }
    }
    val(content);
    (message.tool_calls ?? []).forEach((call: ToolCall, j) => {
      lit(j > 0 ? '\n' : content !== '' ? '\n\n' : '');
      lit('<tool_call>\n<function=');
      val(call.function.name);
      lit('>\n');
      for (const [name, value] of xmlToolCallParameters(call, this.argumentStyle)) {
        lit('<parameter=');
        val(name);
        lit('>\n');
        val(value);
        lit('\n</parameter>\n');
      }
      lit('</function>\n</tool_call>');
    });
    lit('<|im_end|>');
    const header = this.header(
      ctx.messages,
      ctx.idx,
      message.role,
      prefilled ? `\n${this.prefill}` : emptyThink ? '\n<think>\n\n</think>\n\n' : '\n',
    );
    return { header, output: [{ type: 'encoded_text', tokens: this.tpl(literals, ...values) }] };
  }

  protected override generationSuffix(role: string, messages: readonly Message[]): number[] {
    return this.header(messages, messages.length, role, role === 'assistant' ? `\n${this.prefill}` : '\n');
  }

  getStopSequences(): number[] {
    return [this.imEnd];
  }

  parseResponse(tokens: readonly number[]): ParsedResponse {
    let response = tokens;
    const open = this.tokenId('<think>');
    const close = this.tokenId('</think>');
    if (this.thinking && response[0] !== open && response.includes(close)) {
      // Sampling started after the prefilled `<think>⏎`: restore it so the block parses.
      response = [...this.encode('<think>\n'), ...response];
    }
    const { text, termination } = parseResponseForStopToken(response, this.tokenizer, this.imEnd);
    if (termination === 'malformed') return { message: { role: 'assistant', content: text }, termination };
    const firstCall = text.indexOf('<tool_call>');
    const head = firstCall >= 0 ? text.slice(0, firstCall) : text;
    const parts: ContentPart[] = [];
    let rest = head;
    const think = /^\s*<think>([\s\S]*?)<\/think>/.exec(head);
    if (think !== null) {
      const reasoning = trim(think[1] ?? '');
      if (reasoning !== '') parts.push({ type: 'thinking', thinking: reasoning });
      rest = head.slice(think[0].length);
    }
    if (trim(rest) !== '') parts.push({ type: 'text', text: trim(rest) });
    const message: Message = { role: 'assistant', content: '' };
    const calls: ToolCall[] = [];
    const unparsed: NonNullable<Message['unparsed_tool_calls']> = [];
    if (firstCall >= 0) {
      const tail = text.slice(firstCall);
      let last = 0;
      for (const m of tail.matchAll(/<tool_call>[\s\S]*?<\/tool_call>/g)) {
        const between = trim(tail.slice(last, m.index));
        if (between !== '') parts.push({ type: 'text', text: between });
        const call = parseXmlToolCall(m[0]);
        if ('function' in call) calls.push(call);
        else unparsed.push(call);
        last = m.index + m[0].length;
      }
      const after = tail.slice(last);
      const dangling = detectUnterminatedToolBlock(after);
      if (dangling !== null) unparsed.push(dangling);
      else if (trim(after) !== '') parts.push({ type: 'text', text: trim(after) });
    }
    message.content = parts.some((p) => p.type !== 'text')
      ? parts
      : parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n\n');
    if (calls.length > 0) message.tool_calls = calls;
    if (unparsed.length > 0) message.unparsed_tool_calls = unparsed;
    return { message, termination };
  }

  /**
   * The system message declaring `tools` in this format: the declaration first, then the (trimmed) system prompt, as
   * the template writes them. Put it first in the conversation.
   */
  override createConversationPrefixWithTools(tools: readonly ToolSpec[], systemPrompt?: string): Message[] {
    const prompt = trim(systemPrompt ?? '');
    if (tools.length === 0) return prompt !== '' ? [{ role: 'system', content: prompt }] : [];
    const lines = tools.map((t) => `\n${pythonJsonDumps({ type: 'function', function: t })}`).join('');
    const decl = `${TOOLS_INTRO}${lines}${TOOLS_OUTRO}`;
    return [{ role: 'system', content: prompt === '' ? decl : `${decl}\n\n${prompt}` }];
  }
}
