/**
 * `chat_template`: renders with the model's own Jinja chat template (transformers' `apply_chat_template`), for a
 * model that has no hand-written renderer. The template runs on `@huggingface/jinja` in a bounded interpreter (no
 * file system, a step, `range()` and string-size bound: `internal/jinja-sandbox.ts`).
 *
 * How it maps the renderer contract onto a template, which only turns a whole conversation into text:
 * - Generation prompt: the conversation rendered with `add_generation_prompt=true` (assistant turns only).
 * - Supervised example by incremental rendering: message `k` occupies the text between the rendering of messages
 *   `[0, k)` and of `[0, k]`; an assistant message's trained tokens start after the generation prompt of `[0, k)`
 *   and end at the template's end-of-turn token (what follows it, such as Qwen's `\n`, is the next prompt's). Where
 *   the rendering of `[0, k]` is not a prefix of the whole conversation's (the template rewrites message `k` once
 *   later messages follow — Qwen3's template drops earlier reasoning and think framing), message `k`'s tokens in the
 *   conversation are not the ones it was produced as: training on it throws a RendererError that names the message
 *   and the `train_on_what` values the conversation still allows (`last_assistant_message` always works when the
 *   last message is the assistant's). Nothing is guessed.
 * - Tokens: the text is encoded in pieces cut at those boundaries, so the generation prompt of `[0, k)` is exactly a
 *   token prefix of the supervised example (a sampled turn continues the same tokens).
 * - Stop sequence: the template's end-of-turn token, the first control token after an assistant message's text.
 * - Parsing: the stop token ends the text; where the catalog names a hand-written renderer for the tokenizer's model
 *   and that renderer stops on the same token, its parser splits reasoning and tool calls; otherwise the response is
 *   text only.
 * - Tools: {@link ChatTemplateRenderer.createConversationPrefixWithTools} writes one message of role
 *   {@link CHAT_TEMPLATE_TOOLS_ROLE}; its tools go to the template's `tools` variable (the message itself renders
 *   nothing else). Tool calls go in the template's `tool_calls` shape (arguments as a JSON object, the convention of
 *   transformers, or as the string with `toolArguments: 'string'`); reasoning goes in `reasoning_content` and
 *   `thinking`; tool results carry `name` and `tool_call_id`.
 *
 * Deliberate differences from `apply_chat_template`: message text (content, reasoning, names, tool arguments and
 * results) never becomes a control token — control-token strings in it are hidden from the template and encoded as
 * text, as every hand-written renderer does (so a template cannot find `</think>` inside string content either);
 * `strftime_now` uses `currentDate` (default: today, UTC); image parts are refused (text only); a non-assistant
 * message's header is trained with its text under `all_messages` (the template marks no header boundary); the text
 * is encoded in pieces cut at the message boundaries (as sampling sees it: the prompt, then the turn), so an
 * assistant text that starts with whitespace may tokenize differently there than the whole template string; and
 * `strip(chars)` / `lstrip(chars)` / `rstrip(chars)` strip those characters, as Python does (the interpreter's own
 * string methods ignore the argument).
 */
import {
  type Message,
  ModelInput,
  RendererError,
  type StopCondition,
  type ToolCall,
  type ToolSpec,
} from '@cookbook/core';
import type { Tokenizer } from '@cookbook/tokenizers';
import { CompiledTemplate, type TemplateLimits, TemplateRunError } from './internal/jinja-sandbox.js';

export type { TemplateLimits } from './internal/jinja-sandbox.js';

import {
  BaseRenderer,
  checkTrainableFlags,
  type GenerationPromptOptions,
  outputWeight,
  type ParsedResponse,
  parseResponseForStopToken,
  type RenderContext,
  type RenderedMessage,
  type Renderer,
  type SupervisedExample,
  TrainOnWhat,
} from './renderer.js';

/** Role of the message {@link ChatTemplateRenderer.createConversationPrefixWithTools} declares tools with. */
export const CHAT_TEMPLATE_TOOLS_ROLE = 'chat_template_tools';

/** Options of {@link ChatTemplateRenderer}. */
export interface ChatTemplateRendererOptions extends TemplateLimits {
  /** The Jinja source. Default: the tokenizer's (`chat_template.jinja` or `tokenizer_config.json`). */
  template?: string;
  /** How errors name the template. Default: `the chat template of <tokenizer name>`. */
  templateName?: string;
  /** Extra template variables (`enable_thinking: false`, `reasoning_effort`, …), passed on every render. */
  variables?: Readonly<Record<string, unknown>>;
  /** Tool-call arguments as a JSON object (default, transformers' convention) or as the JSON string. */
  toolArguments?: 'object' | 'string';
  /** Parses responses (reasoning, tool calls); must stop on the same token. Default: text only. */
  parser?: Renderer;
  /** The date `strftime_now` returns. Default: now. */
  currentDate?: Date;
}

/** A message as chat templates read it. */
interface TemplateMessage {
  role: string;
  content: string;
  reasoning_content?: string;
  thinking?: string;
  tool_calls?: { type: 'function'; id?: string; function: { name: string; arguments: unknown } }[];
  name?: string;
  tool_call_id?: string;
}

/** A conversation prepared for the template: the caller's messages and a memoised render of each prefix. */
interface Prepared {
  messages: readonly Message[];
  /** The template's text of messages `[0, k)` (tools declared there in `tools`), with or without the prompt. */
  render: (k: number, addGenerationPrompt: boolean) => string;
  /** The text of `[0, k)` without the prompt, or undefined when the template refuses that partial conversation. */
  prefix: (k: number) => string | undefined;
  /** The text of `[0, k)` with the generation prompt, or undefined when the template refuses it. */
  generation: (k: number) => string | undefined;
}

/** Where a message's trained text sits, or why it has no place of its own. */
type Span = { start: number; end: number } | { why: string };

/** Renderings a renderer remembers (a few conversations' prefixes). */
const RECENT_RENDERS = 256;

const SENTINEL = /\uE000(\d+)\uE001/g;
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Renders conversations with a model's own chat template; see the module comment for the mapping. */
export class ChatTemplateRenderer extends BaseRenderer {
  /** The compiled template. */
  readonly template: CompiledTemplate;
  private readonly variables: Readonly<Record<string, unknown>>;
  private readonly toolArguments: 'object' | 'string';
  private readonly parser: Renderer | undefined;
  private readonly currentDate: Date | undefined;
  /** Control-token strings (longest first) and the values the mask table starts with. */
  private readonly controlPattern: RegExp | undefined;
  private readonly maskTable: readonly string[];
  private stopCache: number | undefined;

  constructor(tokenizer: Tokenizer, options: ChatTemplateRendererOptions = {}) {
    super(tokenizer);
    const source = options.template ?? tokenizer.chatTemplate;
    const name = options.templateName ?? `the chat template of ${tokenizer.name}`;
    if (source === undefined) {
      throw new RendererError(
        `renderer chat_template: the tokenizer "${tokenizer.name}" ships no chat template (no chat_template in its ` +
          'tokenizer_config.json, no chat_template.jinja); pass one with the renderer option "template", or use a ' +
          'hand-written renderer',
      );
    }
    this.template = new CompiledTemplate(source, JSON.stringify(name).slice(1, -1), options);
    this.variables = options.variables ?? {};
    this.toolArguments = options.toolArguments ?? 'object';
    this.parser = options.parser;
    this.currentDate = options.currentDate;
    const controls = [...tokenizer.controlTokens].sort((a, b) => b.length - a.length);
    this.maskTable = ['\uE000', '\uE001', ...controls];
    this.controlPattern = controls.length === 0 ? undefined : new RegExp(controls.map(escapeRegExp).join('|'), 'gu');
  }

  // ---- message preparation -------------------------------------------------------------------------------

  /** Hide control-token strings (and the sentinel characters) of message text behind `\uE000k\uE001`. */
  private mask(text: string): string {
    let out = text.replace(/[\uE000\uE001]/g, (c) => `\uE000${c === '\uE000' ? 0 : 1}\uE001`);
    if (this.controlPattern !== undefined) {
      out = out.replace(this.controlPattern, (t) => `\uE000${this.maskTable.indexOf(t)}\uE001`);
    }
    return out;
  }

  private toTemplateMessage(m: Message, idx: number): TemplateMessage {
    let content = '';
    let reasoning: string | undefined;
    if (typeof m.content === 'string') content = m.content;
    else {
      for (const p of m.content) {
        if (p.type === 'text') content += p.text;
        else if (p.type === 'thinking') reasoning = (reasoning ?? '') + p.thinking;
        else {
          throw new RendererError(
            `${this.template.name}: message ${idx} (${m.role}) has an image part, but the chat_template renderer ` +
              "renders text only; use the model family's vision renderer",
          );
        }
      }
    }
    const out: TemplateMessage = { role: this.mask(m.role), content: this.mask(content) };
    if (reasoning !== undefined) {
      out.reasoning_content = this.mask(reasoning);
      out.thinking = out.reasoning_content;
    }
    if (m.tool_calls !== undefined && m.tool_calls.length > 0) {
      out.tool_calls = m.tool_calls.map((c) => this.toolCall(c));
    }
    if (m.name !== undefined) out.name = this.mask(m.name);
    if (m.tool_call_id !== undefined) out.tool_call_id = this.mask(m.tool_call_id);
    return out;
  }

  private toolCall(c: ToolCall): NonNullable<TemplateMessage['tool_calls']>[number] {
    let args: unknown = this.mask(c.function.arguments);
    if (this.toolArguments === 'object') {
      try {
        const parsed: unknown = JSON.parse(c.function.arguments);
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) args = this.maskJson(parsed);
      } catch {
        // not JSON: the template gets the string
      }
    }
    return {
      type: 'function',
      ...(c.id === undefined ? {} : { id: this.mask(c.id) }),
      function: { name: this.mask(c.function.name), arguments: args },
    };
  }

  private maskJson(v: unknown): unknown {
    if (typeof v === 'string') return this.mask(v);
    if (Array.isArray(v)) return v.map((x) => this.maskJson(x));
    if (v !== null && typeof v === 'object') {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [this.mask(k), this.maskJson(x)]));
    }
    return v;
  }

  private parseTools(m: Message, idx: number): unknown[] {
    const text = typeof m.content === 'string' ? m.content : '';
    let tools: unknown;
    try {
      tools = JSON.parse(text);
    } catch (e) {
      throw new RendererError(
        `message ${idx} (${CHAT_TEMPLATE_TOOLS_ROLE}) must hold a JSON array of tool specs: ${(e as Error).message}`,
      );
    }
    if (!Array.isArray(tools)) {
      throw new RendererError(`message ${idx} (${CHAT_TEMPLATE_TOOLS_ROLE}) must hold a JSON array of tool specs`);
    }
    return tools.map((t) => ({ type: 'function', function: this.maskJson(t) }));
  }

  private prepare(messages: readonly Message[]): Prepared {
    const converted: (TemplateMessage | undefined)[] = [];
    const tools: unknown[][] = [];
    messages.forEach((m, i) => {
      if (m.role === CHAT_TEMPLATE_TOOLS_ROLE) {
        tools[i] = this.parseTools(m, i);
        converted.push(undefined);
      } else converted.push(this.toTemplateMessage(m, i));
    });
    const base: Record<string, unknown> = {
      bos_token: this.tokenizer.bosToken ?? '',
      eos_token: this.tokenizer.eosToken ?? '',
      ...this.variables,
    };
    const cache = new Map<string, string | TemplateRunError | Error>();
    const tryRender = (k: number, gen: boolean): string | TemplateRunError | Error => {
      const key = `${k}:${gen}`;
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      const msgs = converted.slice(0, k).filter((m): m is TemplateMessage => m !== undefined);
      const declared = tools.slice(0, k).flatMap((t) => t ?? []);
      const vars = {
        ...base,
        messages: msgs,
        ...(declared.length > 0 ? { tools: declared } : {}),
        add_generation_prompt: gen,
      };
      let out: string | TemplateRunError | Error;
      try {
        out = this.renderRemembered(vars);
      } catch (e) {
        out = e instanceof Error ? e : new Error(String(e));
      }
      cache.set(key, out);
      return out;
    };
    const render = (k: number, gen: boolean): string => {
      const out = tryRender(k, gen);
      if (typeof out === 'string') return out;
      // The culprit: the message after the longest prefix the template still renders.
      let culprit = gen && typeof tryRender(k, false) === 'string' ? k : k - 1;
      if (culprit === k - 1) while (culprit > 0 && typeof tryRender(culprit, false) !== 'string') culprit--;
      throw this.runError(out, messages, culprit, gen && culprit === k);
    };
    const prefix = (k: number): string | undefined => {
      const out = tryRender(k, false);
      return typeof out === 'string' ? out : k === 0 ? '' : undefined;
    };
    const generation = (k: number): string | undefined => {
      const out = tryRender(k, true);
      return typeof out === 'string' ? out : undefined;
    };
    return { messages, render, prefix, generation };
  }

  /** Recent renderings by their variables (and day, for `strftime_now`), most recent last. */
  private readonly recent = new Map<string, string>();

  /**
   * The template's text for `vars`, remembered for the {@link RECENT_RENDERS} most recent variables: a generation
   * prompt and the supervised example of the same conversation (and the next turn's prompt) render the same
   * prefixes, and rendering is a pure function of the variables and the day.
   */
  private renderRemembered(vars: Readonly<Record<string, unknown>>): string {
    const now = this.currentDate ?? new Date();
    const key = `${now.toISOString().slice(0, 10)}\n${JSON.stringify(vars)}`;
    const hit = this.recent.get(key);
    if (hit !== undefined) {
      this.recent.delete(key);
      this.recent.set(key, hit);
      return hit;
    }
    const text = this.template.render(vars, now);
    this.recent.set(key, text);
    if (this.recent.size > RECENT_RENDERS) this.recent.delete(this.recent.keys().next().value!);
    return text;
  }

  /** The error of a failed run at message `idx` (or, with `generation`, at the prompt after the last message). */
  private runError(e: Error, messages: readonly Message[], idx: number, generation: boolean): RendererError {
    const where = generation
      ? `adding the generation prompt after message ${idx - 1}`
      : `message ${idx} (role "${messages[idx]?.role}")`;
    if (!(e instanceof TemplateRunError)) {
      return new RendererError(`${this.template.name} failed at ${where}: ${e.message}`, { cause: e });
    }
    const hint =
      e.kind === 'raise_exception'
        ? 'the template refused the conversation (its raise_exception)'
        : e.kind === 'limit'
          ? 'the template was stopped'
          : 'the template could not run (a variable it needs may be missing: pass it with the renderer option ' +
            '"variables")';
    return new RendererError(`${this.template.name} failed at ${where}: ${hint}: ${e.message}`, { cause: e });
  }

  /**
   * Prefix renders `[0, k)` for k = 0…n (undefined where the template refuses a partial conversation, such as one
   * with no user message yet; `[0, n)` must render), each checked: a message (not a tools declaration) with text
   * that adds nothing to the rendering is a role the template does not know.
   */
  private prefixes(p: Prepared): (string | undefined)[] {
    const n = p.messages.length;
    const out: (string | undefined)[] = [];
    for (let k = 0; k <= n; k++) out.push(k === n ? p.render(n, false) : p.prefix(k));
    p.messages.forEach((m, i) => {
      const hasText =
        (typeof m.content === 'string' ? m.content : m.content.map((c) => (c.type === 'text' ? c.text : '')).join(''))
          .length > 0;
      if (out[i] !== undefined && out[i + 1] === out[i] && hasText && m.role !== CHAT_TEMPLATE_TOOLS_ROLE) {
        throw new RendererError(
          `${this.template.name} renders nothing for message ${i} (role "${m.role}"): the template does not know ` +
            'this role, or drops the message',
        );
      }
    });
    return out;
  }

  // ---- encoding ------------------------------------------------------------------------------------------

  /** Tokens of a masked text: control-token strings in it are structure, masked values are text. */
  private encodeMasked(masked: string): number[] {
    const out: number[] = [];
    let pending = '';
    let pos = 0;
    const flush = () => {
      const text = pending.replace(SENTINEL, (_, k: string) => this.maskTable[Number(k)] ?? '');
      if (text !== '') out.push(...this.encodeText(text));
      pending = '';
    };
    const pattern = this.controlPattern;
    if (pattern !== undefined) {
      pattern.lastIndex = 0;
      for (const m of masked.matchAll(pattern)) {
        pending += masked.slice(pos, m.index);
        flush();
        out.push(this.tokenId(m[0]));
        pos = m.index + m[0].length;
      }
    }
    pending += masked.slice(pos);
    flush();
    return out;
  }

  /** Tokens of `text` encoded in pieces cut at `cuts` (positions in the masked text). */
  private encodeCut(text: string, cuts: Iterable<number>): number[] {
    const sorted = [...new Set([...cuts].filter((c) => c > 0 && c < text.length))].sort((a, b) => a - b);
    const out: number[] = [];
    let from = 0;
    for (const c of [...sorted, text.length]) {
      out.push(...this.encodeMasked(text.slice(from, c)));
      from = c;
    }
    return out;
  }

  /** Boundaries of `text`: every prefix render `[0, k)` and every assistant generation prompt that starts it. */
  private cuts(p: Prepared, prefixes: readonly (string | undefined)[], text: string, upTo: number): number[] {
    const cuts: number[] = [];
    for (let k = 0; k <= upTo; k++) {
      const before = prefixes[k];
      if (before !== undefined && text.startsWith(before)) cuts.push(before.length);
      if (k < upTo && p.messages[k]?.role === 'assistant') {
        const g = p.generation(k);
        if (g !== undefined && text.startsWith(g)) cuts.push(g.length);
      }
    }
    return cuts;
  }

  // ---- the renderer contract -----------------------------------------------------------------------------

  override buildGenerationPrompt(messages: readonly Message[], options: GenerationPromptOptions = {}): ModelInput {
    const role = options.role ?? 'assistant';
    if (role !== 'assistant') {
      throw new RendererError(
        `${this.template.name}: the chat_template renderer can only prompt an assistant turn (the template's ` +
          `add_generation_prompt), not role "${role}"`,
      );
    }
    const p = this.prepare(messages);
    const prefixes = this.prefixes(p);
    const text = p.render(messages.length, true);
    const tokens = this.encodeCut(text, this.cuts(p, prefixes, text, messages.length));
    if (options.prefill) tokens.push(...this.encode(options.prefill));
    return ModelInput.fromInts(tokens);
  }

  override buildSupervisedExample(
    messages: readonly Message[],
    trainOnWhat: TrainOnWhat = TrainOnWhat.LAST_ASSISTANT_MESSAGE,
  ): SupervisedExample {
    checkTrainableFlags(messages, trainOnWhat);
    const n = messages.length;
    const p = this.prepare(messages);
    const prefixes = this.prefixes(p);
    let text = p.render(n, false);
    const spans = messages.map((m, k) => this.span(p, prefixes, text, m, k));
    // The sequence ends at the last assistant message's end-of-turn token, as sampling does.
    const last = spans[n - 1];
    if (messages[n - 1]?.role === 'assistant' && last !== undefined && 'end' in last) text = text.slice(0, last.end);
    const wanted = messages.map((m, k) => outputWeight(trainOnWhat, m, k, messages));
    const missing = wanted.findIndex((w, k) => w > 0 && 'why' in spans[k]!);
    if (missing >= 0) throw this.unstable(messages, spans, missing, trainOnWhat);

    const cuts = this.cuts(p, prefixes, text, n);
    for (const s of spans) if ('start' in s) cuts.push(s.start, s.end);
    const pieces = [...new Set([0, ...cuts.filter((c) => c > 0 && c < text.length), text.length])].sort(
      (a, b) => a - b,
    );
    const tokens: number[] = [];
    const weights: number[] = [];
    for (let i = 0; i + 1 < pieces.length; i++) {
      const [from, to] = [pieces[i]!, pieces[i + 1]!];
      const ids = this.encodeMasked(text.slice(from, to));
      const w =
        trainOnWhat === TrainOnWhat.ALL_TOKENS
          ? 1
          : spans.some((s, k) => 'start' in s && wanted[k]! > 0 && from >= s.start && to <= s.end)
            ? 1
            : 0;
      for (const t of ids) {
        tokens.push(t);
        weights.push(w);
      }
    }
    if (trainOnWhat === TrainOnWhat.ALL_TOKENS && tokens[0] !== undefined && tokens[0] === this.tokenizer.bosTokenId) {
      weights[0] = 0;
    }
    return { modelInput: ModelInput.fromInts(tokens), weights };
  }

  /**
   * Where message `k`'s trained text sits in `text`: from the end of the prompt before it (for an assistant, its
   * generation prompt) to the end of `[0, k]` (for an assistant, its end-of-turn token); the reason when either
   * rendering is not a prefix of `text`.
   */
  private span(p: Prepared, prefixes: readonly (string | undefined)[], text: string, m: Message, k: number): Span {
    const isAssistant = m.role === 'assistant';
    const before = isAssistant ? p.generation(k) : prefixes[k];
    const through = prefixes[k + 1];
    if (through === undefined || !text.startsWith(through)) {
      return {
        why:
          `its rendering of messages [0, ${k}] is not a prefix of the whole conversation's (the template rewrites ` +
          'that message once later messages follow, e.g. drops its reasoning)',
      };
    }
    if (before === undefined || !through.startsWith(before)) {
      return {
        why: isAssistant
          ? `the generation prompt of messages [0, ${k}) is not a prefix of its rendering (the template renders ` +
            'this message otherwise than a sampled turn would continue the prompt — e.g. the prompt opens a think ' +
            'block the message does not have: give it reasoning, or turn thinking off with the renderer option ' +
            'variables)'
          : `the rendering of messages [0, ${k}) is not a prefix of the conversation's`,
      };
    }
    let end = through.length;
    if (isAssistant) {
      const stop = this.tokenizer.convertIdToToken(this.stopToken());
      const at = stop === undefined ? -1 : through.lastIndexOf(stop);
      if (stop !== undefined && at >= before.length) end = at + stop.length;
    }
    return { start: before.length, end };
  }

  private unstable(messages: readonly Message[], spans: readonly Span[], k: number, trainOnWhat: TrainOnWhat) {
    const placed = (i: number) => 'start' in spans[i]!;
    const allowed = Object.values(TrainOnWhat).filter(
      (t) =>
        t !== TrainOnWhat.CUSTOMIZED &&
        (t === TrainOnWhat.ALL_TOKENS || messages.every((m, i) => outputWeight(t, m, i, messages) === 0 || placed(i))),
    );
    const span = spans[k]!;
    return new RendererError(
      `${this.template.name} is not prefix-stable at message ${k} (role "${messages[k]!.role}"): ` +
        `${'why' in span ? span.why : ''}, so its tokens in this conversation are not the ones it would be produced ` +
        `as. train_on_what=${trainOnWhat} cannot be honoured; this conversation allows: ` +
        `${allowed.join(', ') || 'none'} (or split it into one example per trained message)`,
    );
  }

  override renderMessage(message: Message, ctx: RenderContext): RenderedMessage {
    const p = this.prepare(ctx.messages);
    const before = p.render(ctx.idx, false);
    const through = p.render(ctx.idx + 1, false);
    if (!through.startsWith(before)) {
      throw new RendererError(
        `${this.template.name} is not prefix-stable at message ${ctx.idx}: it rewrites earlier messages when this ` +
          'one follows them, so the message has no tokens of its own',
      );
    }
    if (message.role === 'assistant') {
      const g = p.render(ctx.idx, true);
      if (g.startsWith(before) && through.startsWith(g)) {
        return {
          header: this.encodeMasked(g.slice(before.length)),
          output: [{ type: 'encoded_text', tokens: this.encodeMasked(through.slice(g.length)) }],
        };
      }
    }
    return { output: [{ type: 'encoded_text', tokens: this.encodeMasked(through.slice(before.length)) }] };
  }

  /** The template's end-of-turn token: the first control token after an assistant message's text. */
  private stopToken(): number {
    if (this.stopCache !== undefined) return this.stopCache;
    const marker = '\uE002';
    let found: number | undefined;
    try {
      const text = this.template.render(
        {
          bos_token: this.tokenizer.bosToken ?? '',
          eos_token: this.tokenizer.eosToken ?? '',
          ...this.variables,
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: marker },
          ],
          add_generation_prompt: false,
        },
        this.currentDate,
      );
      const after = text.slice(text.lastIndexOf(marker) + 1);
      if (text.includes(marker) && this.controlPattern !== undefined) {
        this.controlPattern.lastIndex = 0;
        const hit = this.controlPattern.exec(after);
        if (hit !== null) found = this.tokenizer.convertTokenToId(hit[0]);
      }
    } catch {
      // the template refuses this probe conversation: fall back to the EOS token
    }
    found ??= this.tokenizer.eosTokenId;
    if (found === undefined) {
      throw new RendererError(
        `${this.template.name}: no end-of-turn token found (no control token follows an assistant message, and ` +
          `the tokenizer "${this.tokenizer.name}" has no EOS token)`,
      );
    }
    this.stopCache = found;
    return found;
  }

  getStopSequences(): StopCondition {
    return [this.stopToken()];
  }

  parseResponse(tokens: readonly number[]): ParsedResponse {
    if (this.parser !== undefined) return this.parser.parseResponse(tokens);
    const { text, termination } = parseResponseForStopToken(tokens, this.tokenizer, this.stopToken());
    return { message: { role: 'assistant', content: text }, termination };
  }

  override createConversationPrefixWithTools(tools: readonly ToolSpec[], systemPrompt?: string): Message[] {
    const system: Message[] = systemPrompt ? [{ role: 'system', content: systemPrompt }] : [];
    if (tools.length === 0) return system;
    this.checkTakesTools();
    return [...system, { role: CHAT_TEMPLATE_TOOLS_ROLE, content: JSON.stringify(tools) }];
  }

  private takesTools: boolean | undefined;

  /**
   * Refuses tools when the template does not render them (a one-message conversation renders the same with a tool
   * declared as without): the model would never see the tools, so a run would train on calls it was never offered.
   */
  private checkTakesTools(): void {
    if (this.takesTools === undefined) {
      const probe = (withTools: boolean): string => {
        const vars: Record<string, unknown> = {
          bos_token: this.tokenizer.bosToken ?? '',
          eos_token: this.tokenizer.eosToken ?? '',
          ...this.variables,
          messages: [{ role: 'user', content: 'x' }],
          add_generation_prompt: true,
          ...(withTools
            ? { tools: [{ type: 'function', function: { name: 'probe_tool', description: '', parameters: {} } }] }
            : {}),
        };
        try {
          return this.template.render(vars, this.currentDate);
        } catch (e) {
          throw new RendererError(
            `${this.template.name}: rendering a conversation with a tool declared failed: ${(e as Error).message}`,
          );
        }
      };
      this.takesTools = probe(true) !== probe(false);
    }
    if (!this.takesTools) {
      throw new RendererError(
        `${this.template.name}: the template does not declare tools (a conversation renders the same with tools as ` +
          'without), so the model would never see them; use a template that takes `tools` or a hand-written renderer',
      );
    }
  }
}
