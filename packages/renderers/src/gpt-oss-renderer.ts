/**
 * gpt-oss in OpenAI's Harmony format (upstream `gpt_oss.py`): `gpt_oss_no_sysprompt` and
 * `gpt_oss_{low,medium,high}_reasoning`. Held to the official `openai/gpt-oss-20b` chat template by the conformance
 * suite (`template-conformance.test.ts`; its source in `__fixtures__/TEMPLATES.md`). Upstream's renderer is the
 * reference for what is trained; where it and the template differ, this renderer follows upstream, on purpose:
 *
 * - No system message for `gpt_oss_no_sysprompt` (the template always writes one, with `Reasoning: medium` by
 *   default): the name is for prompts that bring their own. With tools declared, the tool-routing line is then a
 *   system message of its own.
 * - Earlier reasoning kept: every assistant message keeps its reasoning in the analysis channel, also before a later
 *   final answer (the template drops it there), so a multi-turn example trains each turn as it was sampled.
 * - Text beside a tool call is a commentary-channel preamble (Harmony's preamble), after the reasoning; the template
 *   writes such text as analysis and refuses a message with both.
 * - A tool call's header ends ` <|constrain|>json` as openai-harmony writes it and the model samples it (the template
 *   writes ` json`).
 * - Tool results as the tool wrote them; the template JSON-quotes them.
 * - More than one tool call in a message renders as consecutive calls (the template writes only the first).
 *
 * Where the template and upstream disagree on text that upstream does not mean to change, this renderer follows the
 * template: a tool's parameters open with `(_: {` as the template and openai-harmony write them (upstream writes
 * `(_:` and `{` on two lines). And as the template does (upstream writes a second system message), the tool-routing
 * line of {@link GptOssRenderer.createConversationPrefixWithTools} is merged into the renderer's own system message.
 * Message text (content, reasoning, tool arguments and results) never becomes a control token (a quoted `<|end|>`
 * stays text; the official template + tokenizer would emit the token). The date line is `currentDate`, default
 * today in local time (the template's `strftime_now`).
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
import { splitThinkingAndText } from './internal/content-utils.js';
import { BaseRenderer, type ParsedResponse, type RenderContext, type RenderedMessage } from './renderer.js';

/** Role of Harmony's own `system` message (a user-facing `system` role renders as `developer`). */
export const HARMONY_SYSTEM_ROLE = 'harmony_system';

/** The tool-routing line Harmony puts in the system message when functions are declared. */
export const HARMONY_TOOL_ROUTING = "Calls to these tools must go to the commentary channel: 'functions'.";

/** Harmony reasoning effort. */
export type ReasoningEffort = 'low' | 'medium' | 'high';

/** Options of {@link GptOssRenderer}. */
export interface GptOssRendererOptions {
  /** Prepend Harmony's system message with this reasoning effort; omit for no system message. */
  reasoningEffort?: ReasoningEffort;
  /** `Current date:` of the system message, `YYYY-MM-DD`. Default: today (local time). */
  currentDate?: string;
}

function today(): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

type JsonSchema = Record<string, unknown>;

function tsType(schema: JsonSchema): string {
  const union = (schema.oneOf ?? schema.anyOf) as JsonSchema[] | undefined;
  if (Array.isArray(union)) return union.map((s) => tsType(s)).join(' | ');
  const type = schema.type ?? 'any';
  if (Array.isArray(type)) return type.map((t) => tsType({ type: t })).join(' | ');
  let base: string;
  if (type === 'string') {
    base = Array.isArray(schema.enum) ? schema.enum.map((v) => JSON.stringify(v)).join(' | ') : 'string';
  } else if (type === 'number' || type === 'integer') base = 'number';
  else if (type === 'boolean') base = 'boolean';
  else if (type === 'array') base = `${tsType((schema.items ?? {}) as JsonSchema)}[]`;
  else if (type === 'object') base = inlineObjectType(schema);
  else base = 'any';
  return schema.nullable === true ? `${base} | null` : base;
}

function inlineObjectType(schema: JsonSchema): string {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const fields = Object.entries(props).map(([k, v]) => `${k}${required.has(k) ? '' : '?'}: ${tsType(v)}`);
  return `{ ${fields.join(', ')} }`;
}

/** One tool as a Harmony TypeScript-style declaration. */
export function formatHarmonyToolDefinition(tool: ToolSpec): string {
  const lines: string[] = [];
  if (tool.description) lines.push(`// ${tool.description}`);
  const params = tool.parameters as JsonSchema;
  const props = params.properties as Record<string, JsonSchema> | undefined;
  if (params.type !== 'object' || props === undefined || Object.keys(props).length === 0) {
    lines.push(`type ${tool.name} = () => any;`);
    return lines.join('\n');
  }
  const required = new Set((params.required ?? []) as string[]);
  // `(_: {` as the official template and openai-harmony write it; a described parameters object puts its comment
  // between the two, as openai-harmony does.
  if (typeof params.description === 'string' && params.description !== '') {
    lines.push(`type ${tool.name} = (_: // ${params.description}`, '{');
  } else lines.push(`type ${tool.name} = (_: {`);
  for (const [name, prop] of Object.entries(props)) {
    if (typeof prop.title === 'string' && prop.title) lines.push(`// ${prop.title}`, '// ');
    if (typeof prop.description === 'string' && prop.description) lines.push(`// ${prop.description}`);
    if (Array.isArray(prop.examples)) {
      lines.push('// Examples:');
      for (const ex of prop.examples) lines.push(`// - ${JSON.stringify(ex)}`);
    }
    const dflt = 'default' in prop ? ` // default: ${JSON.stringify(prop.default)}` : '';
    lines.push(`${name}${required.has(name) ? '' : '?'}: ${tsType(prop)},${dflt}`);
  }
  lines.push('}) => any;');
  return lines.join('\n');
}

interface HarmonySegment {
  channel: string | undefined;
  recipient: string | undefined;
  content: string;
  rawText: string;
}

function scanHarmony(text: string): HarmonySegment[] {
  const out: HarmonySegment[] = [];
  let idx = 0;
  for (;;) {
    const msgAt = text.indexOf('<|message|>', idx);
    if (msgAt < 0) break;
    const startAt = text.lastIndexOf('<|start|>', msgAt);
    const headerStart = Math.max(startAt, idx);
    const header = text.slice(headerStart, msgAt);
    const bodyStart = msgAt + '<|message|>'.length;
    let end = text.length;
    let endToken = '';
    for (const t of ['<|end|>', '<|call|>', '<|return|>']) {
      const at = text.indexOf(t, bodyStart);
      if (at >= 0 && at < end) {
        end = at;
        endToken = t;
      }
    }
    out.push({
      channel: /<\|channel\|>([^<\s]+)/.exec(header)?.[1],
      recipient: /to=([^\s<]+)/.exec(header)?.[1],
      content: text.slice(bodyStart, end),
      rawText: text.slice(headerStart, end + endToken.length),
    });
    idx = end + endToken.length;
  }
  return out;
}

/** Harmony renderer for gpt-oss; see the module comment. */
export class GptOssRenderer extends BaseRenderer {
  readonly reasoningEffort: ReasoningEffort | undefined;
  readonly currentDate: string | undefined;

  constructor(tokenizer: Tokenizer, options: GptOssRendererOptions = {}) {
    super(tokenizer);
    this.reasoningEffort = options.reasoningEffort;
    this.currentDate = options.currentDate;
  }

  /** The content of the system message this renderer prepends, or undefined (no_sysprompt). */
  systemPromptContent(messages: readonly Message[] = []): string | undefined {
    if (this.reasoningEffort === undefined) return undefined;
    const extra = messages.filter((m) => m.role === HARMONY_SYSTEM_ROLE).map((m) => splitThinkingAndText(m).text);
    return (
      'You are ChatGPT, a large language model trained by OpenAI.\n' +
      'Knowledge cutoff: 2024-06\n' +
      `Current date: ${this.currentDate ?? today()}\n\n` +
      `Reasoning: ${this.reasoningEffort}\n\n` +
      '# Valid channels: analysis, commentary, final. Channel must be included for every message.' +
      extra.map((e) => `\n${e}`).join('')
    );
  }

  protected override bosTokens(messages: readonly Message[]): number[] {
    const content = this.systemPromptContent(messages);
    return content === undefined ? [] : this.tpl`<|start|>system<|message|>${content}<|end|>`;
  }

  override renderMessage(message: Message, ctx: RenderContext): RenderedMessage {
    const role = message.role;
    if (role === 'tool') return this.renderToolResult(message);
    const content = splitThinkingAndText(message).text;
    if (role === HARMONY_SYSTEM_ROLE) {
      // Merged into the renderer's own system message when it has one.
      if (this.reasoningEffort !== undefined) return { output: [] };
      return this.plain(this.tpl`<|start|>system`, this.tpl`<|message|>${content}<|end|>`);
    }
    if (role === 'system') {
      return this.plain(this.tpl`<|start|>developer`, this.tpl`<|message|># Instructions\n\n${content}\n\n<|end|>`);
    }
    if (role !== 'assistant') return this.plain(this.tpl`<|start|>${role}`, this.tpl`<|message|>${content}<|end|>`);
    const { thinking, text } = splitThinkingAndText(message);
    const body: number[] = [];
    if (thinking !== '') body.push(...this.tpl`<|channel|>analysis<|message|>${thinking}<|end|><|start|>assistant`);
    const calls = message.tool_calls ?? [];
    if (calls.length > 0) {
      if (text !== '') body.push(...this.tpl`<|channel|>commentary<|message|>${text}<|end|><|start|>assistant`);
      calls.forEach((c, j) => {
        if (j > 0) body.push(...this.tpl`<|start|>assistant`);
        const { name, arguments: args } = c.function;
        body.push(...this.tpl` to=functions.${name}<|channel|>commentary <|constrain|>json<|message|>${args}<|call|>`);
      });
    } else if (ctx.isLast) {
      body.push(...this.tpl`<|channel|>final<|message|>${text}<|return|>`);
    } else {
      body.push(...this.tpl`<|channel|>final<|message|>${text}<|end|>`);
    }
    return this.plain(this.tpl`<|start|>assistant`, body);
  }

  private plain(header: number[], body: number[]): RenderedMessage {
    return { header, output: [{ type: 'encoded_text', tokens: body }] };
  }

  private renderToolResult(message: Message): RenderedMessage {
    const name = message.name;
    if (!name) {
      throw new RendererError(
        'gpt-oss tool results need the tool name: set "name" on the tool message (e.g. {role: "tool", name: "get_weather", ...})',
      );
    }
    const qualified = name.startsWith('functions.') ? name : `functions.${name}`;
    return this.plain(
      this.tpl`<|start|>${qualified} to=assistant`,
      this.tpl`<|channel|>commentary<|message|>${splitThinkingAndText(message).text}<|end|>`,
    );
  }

  getStopSequences(): number[] {
    return [this.tokenId('<|return|>'), this.tokenId('<|call|>')];
  }

  parseResponse(tokens: readonly number[]): ParsedResponse {
    const ret = this.tokenId('<|return|>');
    const call = this.tokenId('<|call|>');
    const nRet = tokens.filter((t) => t === ret).length;
    const nCall = tokens.filter((t) => t === call).length;
    if (nRet === 0 && nCall === 0) {
      return { message: { role: 'assistant', content: this.tokenizer.decode(tokens) }, termination: 'malformed' };
    }
    if (nRet > 1 || nCall > 1) {
      throw new RendererError(
        `expected at most one <|return|> and one <|call|> in the response, found ${nRet} and ${nCall}; sample with ` +
          "the renderer's getStopSequences() as the stop condition",
      );
    }
    const stops = [tokens.indexOf(ret), tokens.indexOf(call)].filter((i) => i >= 0);
    const text = this.tokenizer.decode(tokens.slice(0, Math.min(...stops)));
    const parts: ContentPart[] = [];
    const toolCalls: ToolCall[] = [];
    const unparsed: UnparsedToolCall[] = [];
    for (const seg of scanHarmony(text)) {
      if (seg.recipient?.startsWith('functions.')) {
        const args = seg.content.trim();
        try {
          JSON.parse(args);
          toolCalls.push({
            type: 'function',
            function: { name: seg.recipient.slice('functions.'.length), arguments: args },
          });
        } catch {
          unparsed.push({ raw_text: seg.rawText, error: `Invalid JSON: ${args.slice(0, 100)}` });
        }
        continue;
      }
      if (seg.content.trim() === '') continue;
      if (seg.channel === 'analysis') parts.push({ type: 'thinking', thinking: seg.content });
      else if (seg.channel === 'final' || seg.channel === 'commentary') parts.push({ type: 'text', text: seg.content });
    }
    const dangling = scanHarmony(text).length === 0 && text.includes('to=functions.');
    if (dangling) unparsed.push({ raw_text: text, error: 'tool call header without a message' });
    const message: Message = {
      role: 'assistant',
      content: parts.some((p) => p.type !== 'text')
        ? parts
        : parts.map((p) => (p.type === 'text' ? p.text : '')).join(''),
    };
    if (toolCalls.length > 0) message.tool_calls = toolCalls;
    if (unparsed.length > 0) message.unparsed_tool_calls = unparsed;
    return { message, termination: 'stop_sequence' };
  }

  /**
   * Harmony tool declarations: a system message with the tool-routing line (role {@link HARMONY_SYSTEM_ROLE}) and a
   * developer message with `# Instructions` and the `functions` namespace in TypeScript style.
   */
  override createConversationPrefixWithTools(tools: readonly ToolSpec[], systemPrompt = ''): Message[] {
    const out: Message[] = [];
    if (tools.length > 0) out.push({ role: HARMONY_SYSTEM_ROLE, content: HARMONY_TOOL_ROUTING });
    const sections: string[] = [];
    if (systemPrompt) sections.push(`# Instructions\n\n${systemPrompt}`);
    if (tools.length > 0) {
      const defs = tools.map((t) => formatHarmonyToolDefinition(t)).join('\n\n');
      sections.push(`# Tools\n\n## functions\n\nnamespace functions {\n\n${defs}\n\n} // namespace functions`);
    }
    if (sections.length > 0) out.push({ role: 'developer', content: sections.join('\n\n') });
    return out;
  }
}
