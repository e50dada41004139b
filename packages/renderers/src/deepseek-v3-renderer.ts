/**
 * DeepSeek-V3.1 chat format (upstream `deepseek_v3.py`): `deepseekv3` (thinking off, `</think>` after every
 * assistant header) and `deepseekv3_thinking` (`<think>` prefill). Differences from the V3 template shipped with the
 * tokenizer are the V3.1 ones: the `</think>` marker, tool calls as `name<｜tool▁sep｜>args` without a fenced block,
 * and tool outputs without an outer `<｜tool▁outputs▁begin｜>` wrapper; everywhere else (system prompt, user and
 * assistant turns, reasoning dropped from history) the tokens equal the V3 template's plus the `</think>` marker,
 * tested on a generated battery. Deliberate difference from every template: message text (content, reasoning, tool
 * arguments and results) never becomes a control token (a quoted `<｜User｜>` stays text; the template + tokenizer
 * would emit the token). Control tokens come only from the renderer's structure, which includes the format line of
 * the tool declaration that {@link DeepSeekV3Renderer.createConversationPrefixWithTools} writes into the system
 * message (recognised there, so its tokens match what the official system prompt gives). Against the V3.1 template
 * itself (a fixture; the conformance suite, without tool declarations, which that template leaves to the system
 * prompt) `deepseekv3` is token-identical apart from quoted control strings; `deepseekv3_thinking` differs on purpose
 * on a trained turn, which it writes as sampled after its `<think>` prefill (`<think>reasoning</think>answer`) where
 * the template, which has no reasoning field, writes `</think>answer`.
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
import { pythonJsonDumps, splitThinkingAndText } from './internal/content-utils.js';
import {
  BaseRenderer,
  type ParsedResponse,
  parseResponseForStopToken,
  type RenderContext,
  type RenderedMessage,
} from './renderer.js';

const BOS = '<｜begin▁of▁sentence｜>';
const EOS = '<｜end▁of▁sentence｜>';
const USER = '<｜User｜>';
const ASSISTANT = '<｜Assistant｜>';
const CALLS_BEGIN = '<｜tool▁calls▁begin｜>';
const CALLS_END = '<｜tool▁calls▁end｜>';
const CALL_BEGIN = '<｜tool▁call▁begin｜>';
const CALL_END = '<｜tool▁call▁end｜>';
const SEP = '<｜tool▁sep｜>';
const OUTPUT_BEGIN = '<｜tool▁output▁begin｜>';
const OUTPUT_END = '<｜tool▁output▁end｜>';

const TOOLS_INTRO = '## Tools\nYou have access to the following tools:\n\n';
const TOOLS_OUTRO =
  'IMPORTANT: ALWAYS adhere to this exact format for tool use:\n' +
  `${CALLS_BEGIN}${CALL_BEGIN}tool_call_name${SEP}tool_call_arguments${CALL_END}${CALLS_END}\n\n` +
  'Where:\n' +
  '- `tool_call_name` must be an exact match to one of the available tools\n' +
  "- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters Schema\n" +
  '- For multiple tool calls, chain them directly without separators or spaces';

/** Options of {@link DeepSeekV3Renderer}. */
export interface DeepSeekV3RendererOptions {
  /** Thinking mode (`<think>` prefill). Default false. */
  thinking?: boolean;
  /** Thinking mode only: drop reasoning from historical assistant messages. Default true. */
  stripThinkingFromHistory?: boolean;
  /** Render system messages after the first one as user messages instead of refusing them. Default false. */
  systemRoleAsUser?: boolean;
}

/** DeepSeek-V3.1 renderer; see the module comment for the two modes. */
export class DeepSeekV3Renderer extends BaseRenderer {
  readonly thinking: boolean;
  readonly stripThinkingFromHistory: boolean;
  readonly systemRoleAsUser: boolean;

  constructor(tokenizer: Tokenizer, options: DeepSeekV3RendererOptions = {}) {
    super(tokenizer);
    this.thinking = options.thinking ?? false;
    this.stripThinkingFromHistory = options.stripThinkingFromHistory ?? true;
    this.systemRoleAsUser = options.systemRoleAsUser ?? false;
  }

  override get hasExtensionProperty(): boolean {
    return !this.thinking || !this.stripThinkingFromHistory;
  }

  private special(token: string): number[] {
    return [this.tokenId(token)];
  }

  override renderMessage(message: Message, ctx: RenderContext): RenderedMessage {
    const text = (s: string, extra: number[] = []): RenderedMessage['output'] => [
      { type: 'encoded_text', tokens: [...this.encodeText(s), ...extra] },
    ];
    switch (message.role) {
      case 'system': {
        const { text: content } = splitThinkingAndText(message);
        if (ctx.idx === 0) return { output: [{ type: 'encoded_text', tokens: this.systemText(content) }] };
        if (this.systemRoleAsUser) return { header: this.special(USER), output: text(content) };
        throw new RendererError(
          'DeepSeek-V3 only supports a system message at index 0; merge it into the first one or construct the ' +
            'renderer with systemRoleAsUser: true',
        );
      }
      case 'user':
        return { header: this.special(USER), output: text(splitThinkingAndText(message).text) };
      case 'tool':
        return {
          header: this.special(OUTPUT_BEGIN),
          output: text(splitThinkingAndText(message).text, this.special(OUTPUT_END)),
        };
      case 'assistant':
        return this.renderAssistant(message, ctx);
      default:
        throw new RendererError(`DeepSeek-V3 has no role "${message.role}" (system, user, assistant, tool)`);
    }
  }

  private renderAssistant(message: Message, ctx: RenderContext): RenderedMessage {
    const followsTool = ctx.prevMessage?.role === 'tool';
    const calls = message.tool_calls ?? [];
    const parts: ContentPart[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    const tokens: number[] = [];
    let header: number[] | undefined = followsTool ? undefined : this.special(ASSISTANT);
    if (!this.thinking) {
      if (header) header = [...header, ...this.encode('</think>')];
      let body = '';
      for (const p of parts) if (p.type === 'text') body += p.text;
      if (typeof message.content === 'string') body = body.replace(/<think>[\s\S]*?<\/think>/g, '');
      tokens.push(...this.encodeText(body));
    } else {
      const strip = this.stripThinkingFromHistory && !ctx.isLast;
      if (header && strip) header = [...header, ...this.encode('</think>')];
      const hasThinking = parts.some((p) => p.type === 'thinking');
      // The last message without reasoning gets an empty think block; `<think>` is encoded on its own so the
      // tokens line up with the generation prompt's `<think>` prefill.
      const inlineThink = typeof message.content === 'string' && message.content.includes('<think>');
      if (ctx.isLast && !hasThinking && !followsTool && !inlineThink) {
        tokens.push(...this.encode('<think>'), ...this.encode('</think>'));
      }
      // Reasoning and text are values, the `</think>` after the reasoning is structure: with a tokenizer that has
      // `</think>` as an added token (V3.1's), a quoted `</think>` in the text stays text.
      let literals = [''];
      let values: string[] = [];
      const flush = (): void => {
        tokens.push(...this.tpl(literals, ...values));
        literals = [''];
        values = [];
      };
      for (const p of parts) {
        if (p.type === 'thinking') {
          if (strip && calls.length === 0) continue;
          flush();
          tokens.push(...this.encode('<think>'));
          values.push(p.thinking);
          literals.push('</think>');
        } else if (p.type === 'text') {
          values.push(p.text);
          literals.push('');
        }
      }
      flush();
    }
    if (calls.length > 0) {
      // CALLS_BEGIN (CALL_BEGIN name SEP arguments CALL_END)* CALLS_END, names and arguments as text.
      const literals = [`${CALLS_BEGIN}${CALL_BEGIN}`];
      const values: string[] = [];
      calls.forEach((c, j) => {
        values.push(c.function.name, c.function.arguments);
        literals.push(SEP, j === calls.length - 1 ? `${CALL_END}${CALLS_END}` : `${CALL_END}${CALL_BEGIN}`);
      });
      tokens.push(...this.tpl(literals, ...values));
    }
    tokens.push(this.tokenId(EOS));
    const out: RenderedMessage = { output: [{ type: 'encoded_text', tokens }] };
    if (header) out.header = header;
    return out;
  }

  protected override bosTokens(): number[] {
    return this.special(BOS);
  }

  protected override generationSuffix(role: string, messages: readonly Message[]): number[] {
    if (role !== 'assistant') return role === 'user' ? this.special(USER) : [];
    // After a tool result the answer continues without a header (and, in thinking mode, without `<think>`).
    if (messages[messages.length - 1]?.role === 'tool') return [];
    return [...this.special(ASSISTANT), ...this.encode(this.thinking ? '<think>' : '</think>')];
  }

  getStopSequences(): number[] {
    return [this.tokenId(EOS)];
  }

  parseResponse(tokens: readonly number[]): ParsedResponse {
    const parsed = parseResponseForStopToken(tokens, this.tokenizer, this.tokenId(EOS));
    let text = parsed.text;
    if (parsed.termination === 'malformed')
      return { message: { role: 'assistant', content: text }, termination: 'malformed' };
    if (this.thinking && !text.startsWith('<think>') && text.includes('</think>')) text = `<think>${text}`;
    const message: Message = { role: 'assistant', content: '' };
    const unparsed: UnparsedToolCall[] = [];
    const section = /<｜tool▁calls▁begin｜>([\s\S]*?)<｜tool▁calls▁end｜>/.exec(text);
    if (section) {
      const calls: ToolCall[] = [];
      for (const m of (section[1] ?? '').matchAll(
        /<｜tool▁call▁begin｜>([\s\S]*?)<｜tool▁sep｜>([\s\S]*?)<｜tool▁call▁end｜>/g,
      )) {
        const args = (m[2] ?? '').trim();
        try {
          JSON.parse(args);
          calls.push({ type: 'function', function: { name: (m[1] ?? '').trim(), arguments: args } });
        } catch (e) {
          unparsed.push({ raw_text: m[0], error: `Invalid JSON: ${(e as Error).message}` });
        }
      }
      if (calls.length > 0) message.tool_calls = calls;
      text = text.replace(section[0], '').trimEnd();
    } else if (text.includes(CALLS_BEGIN)) {
      const at = text.indexOf(CALLS_BEGIN);
      unparsed.push({
        raw_text: text.slice(at),
        error: `unterminated tool block: ${CALLS_BEGIN} without ${CALLS_END}`,
      });
      text = text.slice(0, at).trimEnd();
    }
    if (unparsed.length > 0) message.unparsed_tool_calls = unparsed;
    const parts: ContentPart[] = [];
    let last = 0;
    for (const m of text.matchAll(/<think>([\s\S]*?)<\/think>/g)) {
      const before = text.slice(last, m.index);
      if (before !== '') parts.push({ type: 'text', text: before });
      if ((m[1] ?? '') !== '') parts.push({ type: 'thinking', thinking: m[1] ?? '' });
      last = m.index + m[0].length;
    }
    const rest = text.slice(last);
    if (rest !== '') parts.push({ type: 'text', text: rest });
    message.content = parts.some((p) => p.type === 'thinking')
      ? parts
      : parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    return { message, termination: parsed.termination };
  }

  override createConversationPrefixWithTools(tools: readonly ToolSpec[], systemPrompt = ''): Message[] {
    if (tools.length === 0) return systemPrompt ? [{ role: 'system', content: systemPrompt }] : [];
    const blocks = tools.map(
      (t) => `### ${t.name}\nDescription: ${t.description}\n\nParameters: ${pythonJsonDumps(t.parameters)}`,
    );
    const toolsText = `${TOOLS_INTRO}${blocks.join('\n')}\n\n${TOOLS_OUTRO}`;
    return [{ role: 'system', content: systemPrompt ? `${systemPrompt}\n\n${toolsText}` : toolsText }];
  }

  /**
   * The first system message; when it ends with the tool declaration of {@link createConversationPrefixWithTools}
   * (its fixed introduction, the tool blocks, its fixed format instructions), the control tokens of those
   * instructions are the renderer's structure and become tokens, as the template + tokenizer make them. Everything
   * before them (system prompt, tool descriptions) is text.
   */
  private systemText(text: string): number[] {
    const declared = text.endsWith(TOOLS_OUTRO) && text.lastIndexOf(TOOLS_INTRO, text.length - TOOLS_OUTRO.length) >= 0;
    if (!declared) return this.encodeText(text);
    return this.tpl(['', TOOLS_OUTRO], text.slice(0, text.length - TOOLS_OUTRO.length));
  }
}
