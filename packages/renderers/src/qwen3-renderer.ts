/**
 * Qwen3 family (upstream `qwen3.py`): `qwen3`, `qwen3_disable_thinking`, `qwen3_instruct`.
 * Deliberate differences from upstream, chosen for parity with the official template: consecutive tool results
 * share one `<|im_start|>user` block, and assistant messages after the last user query keep their reasoning
 * (the template strips it only before that query). Kept from upstream: string content is never searched for
 * inline `<think>` blocks. Deliberate difference from the template everywhere: message text (content, thinking,
 * role, tool names, arguments and results) never becomes a control token — not `<|im_end|>`, nor the added tokens
 * `<think>`, `</think>`, `<tool_call>`, `</tool_call>`, `<tool_response>`, `</tool_response>`: a user quoting
 * `<think>` gets the text, not the token (the official template + tokenizer would produce the token); those tokens
 * come only from the renderer's own think and tool framing, and from the fixed closing text of the tool declaration
 * that {@link Qwen3Renderer.createConversationPrefixWithTools} writes into the system message (recognised there).
 * A message's header and its content are encoded separately,
 * as at sampling time (the prompt ends with the header): content that starts with whitespace therefore tokenizes
 * differently at that seam (`\n` + `\n…`) than the whole template string (`\n\n…`); everywhere else the tokens
 * equal the template's.
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
import { detectUnterminatedToolBlock, parseContentBlocks } from './content-blocks.js';
import { lstripChars, pythonJsonDumps, splitThinkingAndText, stripChars } from './internal/content-utils.js';
import {
  BaseRenderer,
  type ParsedResponse,
  parseResponseForStopToken,
  type RenderContext,
  type RenderedMessage,
} from './renderer.js';
import { VISION_RENDERER_NAMES } from './vision.js';

/** Which Qwen3 chat mode a renderer implements. */
export type Qwen3Mode = 'thinking' | 'disable_thinking' | 'instruct';

/** Options of {@link Qwen3Renderer}. */
export interface Qwen3RendererOptions {
  /** `thinking` (default), `disable_thinking` (empty think block prefilled) or `instruct` (no think framing). */
  mode?: Qwen3Mode;
  /**
   * Drop reasoning from assistant messages before the last user query, as the official template does.
   * Default true; false keeps every message's reasoning (the extension property then holds).
   */
  stripThinkingFromHistory?: boolean;
}

const TOOLS_INTRO =
  '# Tools\n\nYou may call one or more functions to assist with the user query.\n\n' +
  'You are provided with function signatures within <tools></tools> XML tags:\n<tools>';
const TOOLS_OUTRO =
  '\n</tools>\n\nFor each function call, return a json object with function name and arguments within ' +
  '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n' +
  '</tool_call>';

function isToolResponseText(content: Message['content']): boolean {
  return typeof content === 'string' && content.startsWith('<tool_response>') && content.endsWith('</tool_response>');
}

/** Index of the last real user query (the template's `last_query_index`), or -1. */
function lastQueryIndex(messages: readonly Message[]): number {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user' && !isToolResponseText(m.content)) return i;
  }
  return -1;
}

/** Renders `<|im_start|>role⏎content<|im_end|>` turns with Qwen3's think framing and `<tool_call>` JSON calls. */
export class Qwen3Renderer extends BaseRenderer {
  /** The chat mode. */
  readonly mode: Qwen3Mode;
  /** Whether reasoning before the last user query is dropped. */
  readonly stripThinkingFromHistory: boolean;

  constructor(tokenizer: Tokenizer, options: Qwen3RendererOptions = {}) {
    super(tokenizer);
    this.mode = options.mode ?? 'thinking';
    this.stripThinkingFromHistory = options.stripThinkingFromHistory ?? true;
  }

  override get hasExtensionProperty(): boolean {
    return this.mode === 'instruct' || !this.stripThinkingFromHistory;
  }

  override get disablesThinking(): boolean {
    return this.mode === 'disable_thinking';
  }

  private get imEnd(): number {
    return this.tokenId('<|im_end|>');
  }

  override renderMessage(message: Message, ctx: RenderContext): RenderedMessage {
    const nl = ctx.idx > 0 ? '\n' : '';
    if (message.role === 'tool') return this.renderToolResult(message, ctx, nl);
    // The produced turn continues the generation prompt: a prefill it starts with is header (prompt).
    const prefilled =
      message.role === 'assistant' && this.thinkPrefill !== '' && ctx.isLast && this.frames(message, ctx);
    const header = this.tpl([`${nl}<|im_start|>`, `\n${prefilled ? this.thinkPrefill : ''}`], message.role);
    const body =
      message.role === 'assistant'
        ? this.assistantBody(message, ctx, prefilled)
        : message.role === 'system'
          ? this.systemBody(this.plainText(message))
          : this.encodeText(this.plainText(message));
    return { header, output: [{ type: 'encoded_text', tokens: [...body, this.imEnd] }] };
  }

  /**
   * What the generation prompt writes after the assistant header besides `qwen3_disable_thinking`'s empty block:
   * '' here; `<think>⏎` for Qwen3-VL-Thinking ({@link Qwen3VLRenderer}).
   */
  protected get thinkPrefill(): string {
    return '';
  }

  /** An image part: Qwen3 renders text only (the hook where a vision renderer renders it). */
  protected imagePart(role: string): never {
    throw new RendererError(
      `a ${role} message has an image part, but Qwen3 renderers render text only. Images need a vision model ` +
        `(Qwen3-VL, Qwen3.5 / 3.6 / 3.8, Kimi K2.5 / K2.6) and one of its renderers: ${VISION_RENDERER_NAMES.join(', ')}`,
    );
  }

  /** Whether an assistant message gets the think framing (reasoning kept, or the turn being produced). */
  private frames(message: Message, ctx: RenderContext): boolean {
    if (this.mode === 'instruct') return false;
    const { thinking, hasThinking } = splitThinkingAndText(message);
    const afterQuery = ctx.idx > lastQueryIndex(ctx.messages) && lastQueryIndex(ctx.messages) >= 0;
    const keepThinking = afterQuery || !this.stripThinkingFromHistory;
    return (afterQuery && ctx.isLast) || (keepThinking && hasThinking && thinking !== '');
  }

  private plainText(message: Message): string {
    const { text, hasThinking } = splitThinkingAndText(message);
    if (hasThinking) throw new RendererError(`a ${message.role} message cannot hold thinking parts`);
    if (typeof message.content !== 'string' && message.content.some((p) => p.type === 'image')) {
      this.imagePart(message.role);
    }
    return text;
  }

  /**
   * A system message that ends with the tool declaration of {@link createConversationPrefixWithTools} (its fixed
   * introduction, then the tool lines, then its fixed closing text) is the renderer's structure: the `<tool_call>`
   * tags of that closing text become tokens, as in the template. Everything before them (system prompt, tool
   * descriptions) is text.
   */
  private systemBody(text: string): number[] {
    const declared = text.endsWith(TOOLS_OUTRO) && text.lastIndexOf(TOOLS_INTRO, text.length - TOOLS_OUTRO.length) >= 0;
    if (!declared) return this.encodeText(text);
    return this.tpl(['', TOOLS_OUTRO], text.slice(0, text.length - TOOLS_OUTRO.length));
  }

  private renderToolResult(message: Message, ctx: RenderContext, nl: string): RenderedMessage {
    // Consecutive tool results share one user block, as in the official template.
    const continues = ctx.prevMessage?.role === 'tool';
    const closes = ctx.nextMessage?.role !== 'tool';
    const body = this.tpl`\n<tool_response>\n${this.plainText(message)}\n</tool_response>`;
    const tokens = [...body, ...(closes ? [this.imEnd] : [])];
    const out: RenderedMessage = { output: [{ type: 'encoded_text', tokens }] };
    if (!continues) out.header = this.encode(`${nl}<|im_start|>user`);
    return out;
  }

  /**
   * The assistant body as a template: the think and tool-call framing are literals (their tags become tokens), the
   * reasoning, text, tool names and arguments are values (encoded as text, whatever tags they quote).
   */
  private assistantBody(message: Message, ctx: RenderContext, prefilled: boolean): number[] {
    const literals: string[] = [''];
    const values: string[] = [];
    const lit = (s: string): void => {
      literals[literals.length - 1] += s;
    };
    const val = (s: string): void => {
      values.push(s);
      literals.push('');
    };
    const { thinking, text } = splitThinkingAndText(message);
    if (this.mode === 'instruct') {
      if (typeof message.content === 'string') val(message.content);
      else this.rawParts(message.content, lit, val);
    } else {
      if (this.frames(message, ctx)) {
        if (!prefilled) lit('<think>\n');
        val(stripChars(thinking, '\n'));
        lit('\n</think>\n\n');
        val(lstripChars(text, '\n'));
      } else val(text);
    }
    const calls = message.tool_calls ?? [];
    calls.forEach((call, j) => {
      if (j > 0 || text !== '') lit('\n');
      lit('<tool_call>\n{"name": "');
      val(call.function.name);
      lit('", "arguments": ');
      val(call.function.arguments);
      lit('}\n</tool_call>');
    });
    return this.tpl(literals, ...values);
  }

  private rawParts(parts: readonly ContentPart[], lit: (s: string) => void, val: (s: string) => void): void {
    for (const p of parts) {
      if (p.type === 'thinking') {
        lit('<think>');
        val(p.thinking);
        lit('</think>');
      } else if (p.type === 'text') val(p.text);
      else this.imagePart('assistant');
    }
  }

  protected override generationSuffix(role: string, messages: readonly Message[]): number[] {
    const nl = messages.length > 0 ? '\n' : '';
    const think =
      role !== 'assistant' ? '' : this.mode === 'disable_thinking' ? '<think>\n\n</think>\n\n' : this.thinkPrefill;
    return [...this.tpl`${nl}<|im_start|>${role}\n`, ...this.encode(think)];
  }

  getStopSequences(): number[] {
    return [this.imEnd];
  }

  parseResponse(tokens: readonly number[]): ParsedResponse {
    const { text, termination } = parseResponseForStopToken(tokens, this.tokenizer, this.imEnd);
    if (termination === 'malformed') return { message: { role: 'assistant', content: text }, termination };
    const message: Message = { role: 'assistant', content: '' };
    const firstCall = text.indexOf('<tool_call>');
    let head = firstCall >= 0 ? text.slice(0, firstCall) : text;
    const tail = firstCall >= 0 ? text.slice(firstCall) : '';
    if (tail !== '' && head.endsWith('\n')) head = head.slice(0, -1);

    const parts: ContentPart[] = [];
    const pushText = (t: string, afterThink: boolean): void => {
      const v = afterThink ? lstripChars(t, '\n') : t;
      if (v !== '') parts.push({ type: 'text', text: v });
    };
    let last = 0;
    let afterThink = false;
    for (const m of head.matchAll(/<think>([\s\S]*?)<\/think>/g)) {
      pushText(head.slice(last, m.index), afterThink);
      const t = stripChars(m[1] ?? '', '\n');
      if (t !== '') parts.push({ type: 'thinking', thinking: t });
      afterThink = true;
      last = m.index + m[0].length;
    }
    pushText(head.slice(last), afterThink);
    const toolCalls: ToolCall[] = [];
    const unparsed: UnparsedToolCall[] = [];
    const tailBlocks = tail === '' ? null : parseContentBlocks(tail);
    if (tailBlocks !== null) {
      toolCalls.push(...tailBlocks.toolCalls);
      unparsed.push(...tailBlocks.unparsedToolCalls);
      for (const p of tailBlocks.parts) {
        if (p.type === 'text' && p.text.trim() !== '') parts.push(p);
        if (p.type === 'thinking' && p.thinking.trim() !== '') parts.push(p);
      }
    }
    const unterminated = detectUnterminatedToolBlock(text);
    if (unterminated !== null) unparsed.push(unterminated);
    if (unparsed.length > 0) message.unparsed_tool_calls = unparsed;
    message.content = parts.some((p) => p.type !== 'text')
      ? parts
      : parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    return { message, termination };
  }

  override createConversationPrefixWithTools(tools: readonly ToolSpec[], systemPrompt?: string): Message[] {
    if (tools.length === 0) return systemPrompt ? [{ role: 'system', content: systemPrompt }] : [];
    const lines = tools.map((t) => `\n${pythonJsonDumps({ type: 'function', function: t })}`).join('');
    const prefix = systemPrompt ? `${systemPrompt}\n\n` : '';
    return [{ role: 'system', content: `${prefix}${TOOLS_INTRO}${lines}${TOOLS_OUTRO}` }];
  }
}
