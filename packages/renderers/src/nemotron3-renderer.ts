/**
 * NVIDIA Nemotron 3 family (upstream `nemotron3.py`): `nemotron3`, `nemotron3_low_thinking`,
 * `nemotron3_disable_thinking`, `nemotron3_preserve_thinking` (Nano, Super) and `nemotron3_ultra`,
 * `nemotron3_ultra_disable_thinking`, `nemotron3_ultra_medium_thinking`, `nemotron3_ultra_preserve_thinking`
 * (Ultra, 3.5 Lightning).
 *
 * Sources. The `nano` format is the official chat template of nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 (kept as
 * the test fixture `__fixtures__/nemotron3-nano.chat-template.jinja`; the tests render it with @huggingface/jinja).
 * The Super, Ultra and 3.5 Lightning templates could not be obtained: Super's is Nano's plus a `low_effort` flag by
 * upstream's account, and the `ultra` format and both effort markers follow the upstream cookbook's `nemotron3.py`
 * (its renderers and their tests against those templates): reasoning written as
 * `<think>\n…</think>` with no newline before or after `</think>`, `{reasoning effort: low}` (Super) and
 * `{reasoning effort: efficient}` (Ultra) appended to the last user message after a blank line.
 *
 * Where upstream and the Nano template disagree, the template wins (deliberately): a tool whose description is
 * empty still gets its `<description></description>` line (upstream leaves it out), only the assistant turn is
 * trimmed, where the template trims it (upstream strips every string message, user, system and tool text included),
 * a call without text follows `<think></think>` after a newline, a turn of reasoning alone ends at `</think>`, and
 * the newline after an earlier turn's dropped reasoning is encoded with its answer (upstream encodes it in the
 * untrained header, so with `all_assistant_messages` it is trained here). As upstream renders it, the empty
 * `<think></think>` the template writes into a turn (no reasoning, or reasoning dropped from history) belongs to the
 * turn's header: it is not trained, since the model did not write it. `src/upstream-parity.test.ts` holds every
 * name to upstream's renderer on generated conversations, with these differences.
 * Kept from both: every assistant turn opens with a think block (an empty `<think></think>` when it has no
 * reasoning, or when its reasoning before the last user message is dropped — not with `preserve_thinking`), every
 * conversation opens with a system block (empty without a system message), consecutive tool results share one
 * `<|im_start|>user` block, and scalar tool-call arguments and extra schema keys are written with Python's `str()`
 * (`True`, `None`). For `ultra`, a dropped-reasoning turn with tool calls keeps its answer untrimmed, as the one
 * public copy of the 3.5 Lightning template found (a third-party test fixture, not verifiable as the model's own)
 * writes it; upstream does not pin this case. A tool result that opens the conversation gets its user header (the
 * template omits it there).
 *
 * Deliberate difference from the template everywhere: message text (content, thinking, role, tool names, arguments
 * and results) never becomes a control token — not `<|im_end|>`, nor `<think>`, `</think>`, `<tool_call>`,
 * `</tool_call>`, `<tool_response>`, `</tool_response>` or any other added token; those come only from the
 * renderer's own framing and from the fixed closing text of the tool declaration that
 * {@link Nemotron3Renderer.createConversationPrefixWithTools} writes. For the same reason an answer that quotes
 * `<think>` or `</think>` is rendered as any other answer (the template would look for reasoning inside it).
 * A message's header and its content are encoded separately, as at sampling time: content that starts with
 * whitespace tokenizes differently at that seam than the whole template string.
 */
import {
  type ContentPart,
  type Message,
  RendererError,
  type ToolCall,
  type ToolSpec,
  type UnparsedToolCall,
} from '@cookbook/core';
import type { Tokenizer } from '@cookbook/tokenizers';
import { detectUnterminatedToolBlock } from './content-blocks.js';
import { splitThinkingAndText } from './internal/content-utils.js';
import {
  formatNemotron3ToolDeclaration,
  NEMOTRON3_TOOLS_INTRO,
  NEMOTRON3_TOOLS_OUTRO,
  parseNemotron3ToolCall,
  pyRstrip,
  pyStrip,
  toolCallArguments,
} from './internal/nemotron-format.js';
import {
  BaseRenderer,
  type ParsedResponse,
  parseResponseForStopToken,
  type RenderContext,
  type RenderedMessage,
} from './renderer.js';
import { VISION_RENDERER_NAMES } from './vision.js';

/** `nano`: Nemotron 3 Nano / Super; `ultra`: Nemotron 3 Ultra / 3.5 Lightning (no newlines around `</think>`). */
export type Nemotron3Format = 'nano' | 'ultra';

/** A reduced reasoning effort: `low` (Super's `low_effort`) or `medium` (Ultra's `medium_effort`). */
export type Nemotron3Effort = 'low' | 'medium';

/** Options of {@link Nemotron3Renderer}. */
export interface Nemotron3RendererOptions {
  /** Which template: `nano` (default; Nano, Super) or `ultra` (Ultra, 3.5 Lightning). */
  format?: Nemotron3Format;
  /** Reason before answering (default true); false prefills an empty `<think></think>` (`enable_thinking=False`). */
  thinking?: boolean;
  /** Append the reduced-effort marker to the last user message. Default: none (full effort). */
  effort?: Nemotron3Effort;
  /**
   * Drop reasoning from assistant messages before the last user message, as the template does by default
   * (`truncate_history_thinking`). Default true; false keeps it (the extension property then holds).
   */
  stripThinkingFromHistory?: boolean;
}

const EFFORT_MARKER: Record<Nemotron3Effort, string> = {
  low: '\n\n{reasoning effort: low}',
  medium: '\n\n{reasoning effort: efficient}',
};

/** Literal parts (structure) and values (message text) of a template, for {@link BaseRenderer.tpl}. */
class Pieces {
  readonly literals: string[] = [''];
  readonly values: string[] = [];
  lit(s: string): this {
    this.literals[this.literals.length - 1] += s;
    return this;
  }
  val(s: string): this {
    this.values.push(s);
    this.literals.push('');
    return this;
  }
}

/** Renders `<|im_start|>role⏎content<|im_end|>` turns with Nemotron 3's think framing and XML tool calls. */
export class Nemotron3Renderer extends BaseRenderer {
  /** The template family. */
  readonly format: Nemotron3Format;
  /** Whether the model reasons before answering. */
  readonly thinking: boolean;
  /** The reduced-effort marker, if any. */
  readonly effort: Nemotron3Effort | undefined;
  /** Whether reasoning before the last user message is dropped. */
  readonly stripThinkingFromHistory: boolean;

  constructor(tokenizer: Tokenizer, options: Nemotron3RendererOptions = {}) {
    super(tokenizer);
    this.format = options.format ?? 'nano';
    this.thinking = options.thinking ?? true;
    this.effort = options.effort;
    this.stripThinkingFromHistory = options.stripThinkingFromHistory ?? true;
  }

  override get hasExtensionProperty(): boolean {
    // The effort marker moves to each new last user message, so earlier prompts are not prefixes of later ones.
    return !this.stripThinkingFromHistory && this.effort === undefined;
  }

  override get disablesThinking(): boolean {
    return !this.thinking;
  }

  private get imEnd(): number {
    return this.tokenId('<|im_end|>');
  }

  /** The template always writes a system block; without a system message first, it is empty. */
  protected override bosTokens(messages: readonly Message[]): number[] {
    return messages[0]?.role === 'system' ? [] : this.encode('<|im_start|>system\n<|im_end|>');
  }

  override renderMessage(message: Message, ctx: RenderContext): RenderedMessage {
    const nl = ctx.idx === 0 && message.role === 'system' ? '' : '\n';
    if (message.role === 'tool') return this.renderToolResult(message, ctx, nl);
    const header = this.tpl`${nl}<|im_start|>${message.role}\n`;
    let body: number[];
    if (message.role === 'assistant') {
      // An empty think block the template writes (no reasoning, or reasoning dropped from history) is not what the
      // model produced: it goes with the header, untrained, as upstream renders it. The tokens do not change.
      body = this.assistantBody(message, ctx);
      const empty = this.encode('<think></think>');
      if (empty.every((t, i) => body[i] === t)) {
        return {
          header: [...header, ...empty],
          output: [{ type: 'encoded_text', tokens: [...body.slice(empty.length), this.imEnd] }],
        };
      }
    } else if (message.role === 'system' && ctx.idx === 0) body = this.systemBody(this.plainText(message));
    else if (message.role === 'user' && ctx.idx === ctx.lastUserIndex && this.effort !== undefined) {
      body = this.tpl(['', EFFORT_MARKER[this.effort]], this.plainText(message));
    } else body = this.encodeText(this.plainText(message));
    return { header, output: [{ type: 'encoded_text', tokens: [...body, this.imEnd] }] };
  }

  private plainText(message: Message): string {
    if (typeof message.content === 'string') return message.content;
    let out = '';
    for (const p of message.content) {
      if (p.type === 'text') out += p.text;
      else if (p.type === 'thinking') throw new RendererError(`a ${message.role} message cannot hold thinking parts`);
      else {
        throw new RendererError(
          'Nemotron 3 renderers render text only; the message has an image part. Images need a vision model and one ' +
            `of its renderers: ${VISION_RENDERER_NAMES.join(', ')}`,
        );
      }
    }
    return out;
  }

  /**
   * A first system message that ends with the tool declaration of {@link createConversationPrefixWithTools} (its
   * fixed introduction, the tools, its fixed closing text) is the renderer's structure: the `<tool_call>` tags of
   * the closing text become tokens, as in the template. Everything before them is text.
   */
  private systemBody(text: string): number[] {
    const end = text.length - NEMOTRON3_TOOLS_OUTRO.length;
    const declared = text.endsWith(NEMOTRON3_TOOLS_OUTRO) && text.lastIndexOf(NEMOTRON3_TOOLS_INTRO, end) >= 0;
    if (!declared) return this.encodeText(text);
    return this.tpl(['', NEMOTRON3_TOOLS_OUTRO], text.slice(0, end));
  }

  private renderToolResult(message: Message, ctx: RenderContext, nl: string): RenderedMessage {
    // Consecutive tool results share one user block, as in the template.
    const continues = ctx.prevMessage?.role === 'tool';
    const closes = ctx.nextMessage?.role !== 'tool';
    const body = this.tpl`<tool_response>\n${this.plainText(message)}\n</tool_response>\n`;
    const out: RenderedMessage = {
      output: [{ type: 'encoded_text', tokens: [...body, ...(closes ? [this.imEnd] : [])] }],
    };
    if (!continues) out.header = this.encode(`${nl}<|im_start|>user\n`);
    return out;
  }

  /**
   * The assistant body as the template builds it: the reasoning folded into the content (`<think>\n…\n</think>\n`
   * for `nano`, `<think>\n…</think>` for `ultra`; `<think></think>` without reasoning), trimmed where the template
   * trims; a turn before the last user message keeps only `<think></think>` and its answer; then the tool calls.
   */
  private assistantBody(message: Message, ctx: RenderContext): number[] {
    const { thinking, text } = splitThinkingAndText(message);
    const reasoned = pyStrip(thinking) !== '';
    const history = this.stripThinkingFromHistory && ctx.idx < ctx.lastUserIndex;
    const calls = message.tool_calls ?? [];
    const ultra = this.format === 'ultra';
    const p = new Pieces();
    const answer = pyRstrip(text);
    if (!history) {
      // trim(content): the content starts with `<think>`, so only its end is trimmed.
      if (reasoned) {
        p.lit('<think>\n').val(thinking);
        if (ultra) p.lit('</think>').val(answer);
        else if (answer !== '') p.lit('\n</think>\n').val(answer);
        else p.lit('\n</think>');
      } else p.lit('<think></think>').val(answer);
    } else if (calls.length > 0) {
      // The tool-call branch keeps the text after `</think>`: Nano trims it, Ultra writes it as is.
      p.lit('<think></think>').val(ultra ? text : pyStrip(text));
    } else if (reasoned && !ultra) {
      // `<think></think>` + the text after `\n</think>` ("\n" + answer), trimmed.
      p.lit('<think></think>');
      if (answer !== '') p.lit('\n').val(answer);
    } else p.lit('<think></think>').val(answer);
    if (calls.length > 0) p.lit('\n');
    for (const call of calls) this.toolCall(p, call);
    return this.tpl(p.literals, ...p.values);
  }

  private toolCall(p: Pieces, call: ToolCall): void {
    p.lit('<tool_call>\n<function=').val(call.function.name).lit('>\n');
    for (const [key, value] of toolCallArguments(call)) {
      p.lit('<parameter=').val(key).lit('>\n').val(value).lit('\n</parameter>\n');
    }
    p.lit('</function>\n</tool_call>\n');
  }

  protected override generationSuffix(role: string, _messages: readonly Message[]): number[] {
    const header = this.tpl`\n<|im_start|>${role}\n`;
    if (role !== 'assistant') return header;
    return [...header, ...this.encode(this.thinking ? '<think>\n' : '<think></think>')];
  }

  getStopSequences(): number[] {
    return [this.imEnd];
  }

  /**
   * Parse a sampled completion: the reasoning (the prompt's prefilled `<think>\n` is restored when the completion
   * closes a think block), the answer, and `<tool_call>` blocks in the XML format. Invalid blocks land in
   * `unparsed_tool_calls` with the reason; a block cut off by the token limit is reported as unterminated; a
   * completion without `<|im_end|>` is `malformed`.
   */
  parseResponse(tokens: readonly number[]): ParsedResponse {
    const parsed = parseResponseForStopToken(tokens, this.tokenizer, this.imEnd);
    if (parsed.termination === 'malformed') {
      return { message: { role: 'assistant', content: parsed.text }, termination: parsed.termination };
    }
    let text = parsed.text;
    if (this.thinking && !text.startsWith('<think>') && text.includes('</think>')) text = `<think>\n${text}`;
    const parts: ContentPart[] = [];
    if (text.startsWith('<think>')) {
      const close = text.indexOf('</think>');
      if (close >= 0) {
        const reasoning = pyStrip(text.slice('<think>'.length, close));
        if (reasoning !== '') parts.push({ type: 'thinking', thinking: reasoning });
        text = text.slice(close + '</think>'.length);
        if (this.format === 'nano' && text.startsWith('\n')) text = text.slice(1);
      }
    }
    const firstCall = text.indexOf('<tool_call>');
    let answer = firstCall >= 0 ? text.slice(0, firstCall) : text;
    if (firstCall >= 0 && answer.endsWith('\n')) answer = answer.slice(0, -1);
    if (answer !== '') parts.push({ type: 'text', text: answer });
    const message: Message = { role: 'assistant', content: '' };
    const toolCalls: ToolCall[] = [];
    const unparsed: UnparsedToolCall[] = [];
    if (firstCall >= 0) {
      const tail = text.slice(firstCall);
      let last = 0;
      for (const m of tail.matchAll(/<tool_call>[\s\S]*?<\/tool_call>/g)) {
        const between = tail.slice(last, m.index);
        if (between.trim() !== '') parts.push({ type: 'text', text: between });
        const call = parseNemotron3ToolCall(m[0]);
        if ('function' in call) toolCalls.push(call);
        else unparsed.push(call);
        last = m.index + m[0].length;
      }
      const unterminated = detectUnterminatedToolBlock(tail);
      if (unterminated !== null) unparsed.push(unterminated);
      else if (tail.slice(last).trim() !== '') parts.push({ type: 'text', text: tail.slice(last) });
    }
    message.content = parts.some((q) => q.type !== 'text')
      ? parts
      : parts.map((q) => (q.type === 'text' ? q.text : '')).join('');
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    if (unparsed.length > 0) message.unparsed_tool_calls = unparsed;
    return { message, termination: parsed.termination };
  }

  /**
   * The system message declaring `tools` as the template does: the system prompt first, then a blank line and the
   * `# Tools` section with one XML `<function>` block per tool and the fixed calling instructions.
   */
  override createConversationPrefixWithTools(tools: readonly ToolSpec[], systemPrompt?: string): Message[] {
    if (tools.length === 0) return systemPrompt ? [{ role: 'system', content: systemPrompt }] : [];
    const declarations = tools.map(formatNemotron3ToolDeclaration).join('');
    const prefix = systemPrompt ? `${systemPrompt}\n\n` : '';
    return [{ role: 'system', content: `${prefix}${NEMOTRON3_TOOLS_INTRO}${declarations}${NEMOTRON3_TOOLS_OUTRO}` }];
  }
}
