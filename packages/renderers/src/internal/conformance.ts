/**
 * Template conformance: seeded generated conversations rendered by a renderer and by an official chat template (run
 * on `@huggingface/jinja` with Python's `strip(chars)`, see `jinja-sandbox.ts`; encoded by the tokenizer as `apply_chat_template` + `encode` would), compared token for
 * token — generation prompt and supervised example — and each difference classified as one of the documented,
 * deliberate ones or as a real difference. Used by the conformance test and the `check-template` script. The
 * conversations come from `conversation-generator.ts`.
 */
import { type Message, type ModelInput, mulberry32, RendererError, type ToolSpec } from '@cookbook/core';
import { type ImageTokenRule, imageTokenCount } from '@cookbook/images';
import type { Tokenizer } from '@cookbook/tokenizers';
import type { Renderer } from '../renderer.js';
import {
  type Conversation,
  type ConversationFeatures,
  generateConversation,
  imageSize,
  rendererConversation,
} from './conversation-generator.js';
import { CompiledTemplate, TemplateRunError } from './jinja-sandbox.js';
import { type MemoTokenizer, memoTokenizer } from './memo-tokenizer.js';

/** How a renderer and a template are compared. */
export interface ConformanceSpec {
  /** Template variables that select the renderer's mode (`enable_thinking: false`, …). */
  variables: Readonly<Record<string, unknown>>;
  features: ConversationFeatures;
  /** Tool-call arguments as JSON objects (the template iterates or re-serialises them) or as strings. */
  argumentsAsObjects: boolean;
  /**
   * Documented seam: the renderer encodes a message's header and its text apart (as at sampling time), so text that
   * starts with whitespace may tokenize differently from the whole template string; the text must still be equal.
   */
  seam: boolean;
  /**
   * Documented text the template writes after the supervised example's end-of-turn token (besides whitespace): the
   * original Llama 3 template appends the assistant header even with `add_generation_prompt=false`.
   */
  trailing?: string;
  /**
   * Compare generation prompts only: the renderer's trained turn differs from the template's by design (a documented
   * difference), so only the prompts are held to it.
   */
  promptOnly?: boolean;
  /**
   * The template variables that declare `tools` (default: `tools` as transformers passes them, each
   * `{ type: 'function', function: spec }`); a family whose `apply_chat_template` prepares them otherwise (Kimi's
   * tokenizer sorts their keys, or passes a TypeScript rendering as `tools_ts_str`) says so here.
   */
  toolVariables?: (tools: readonly ToolSpec[]) => Record<string, unknown>;
  /**
   * Documented difference of the trained turn: the renderer trains the last assistant message as the model writes it
   * after the template's generation prompt (its reasoning kept), where the template rewrites it once it is history
   * (Kimi drops the reasoning of the last answer). Given, the supervised example is held to the template's
   * generation prompt followed by `turn(reasoning, text)` (minus a `prefills` entry the prompt already ends with)
   * whenever that differs from the template's whole rendering.
   */
  sampledTurn?: { turn: (reasoning: string, text: string) => string; prefills: readonly string[] };
  /**
   * How the family writes an image (with `features.images`): the template writes its placeholder with one `pad` token
   * per image, the renderer the same placeholder with the image's chunk in place of that pad; the chunk's
   * `expected_tokens` must be the family's `rule` count for the image's size.
   */
  images?: { pad: string; rule: ImageTokenRule };
  /** The template's name for an assistant message's reasoning (default `reasoning_content`; Harmony's: `thinking`). */
  reasoningKey?: string;
  /** The template's clock (`strftime_now`); the renderer under test is given the same date. Default: now. */
  now?: Date;
  /**
   * Strings replaced in the template's output after rendering: rows whose only difference is a variable the template
   * writes verbatim (gpt-oss's `reasoning_effort`) pass one private-use placeholder for it and substitute their own
   * value here, so the rows share their reference renders.
   */
  substitute?: Readonly<Record<string, string>>;
  /**
   * Documented differences written into the template (a renderer that follows another reference than the template on
   * purpose, as the gpt-oss renderers follow upstream's): `template` is the official source with the renderer's choice
   * patched into each branch concerned, where the patched branch writes {@link documentedMark}(k) wherever its output
   * differs from the official branch's, `reasons[k]` naming that difference. The renderer is held to the patched
   * template's text (marks removed), and the conversation counts under each reason whose mark occurs. Where no mark
   * occurs the patched text must equal the official one: a patch that changes more than it marks throws. `each` holds
   * the official template with each patch alone: for the first `verifyEncoding` conversations every one of them is
   * rendered too and held to the same rule (one patch's unmarked change cannot hide behind another's mark).
   */
  documented?: { template: string; each?: readonly string[]; reasons: readonly DeliberateReason[] };
  /**
   * A documented rewrite of the reference text (an exact string operation on the rendered text, for a difference no
   * template branch holds: `gpt_oss_no_sysprompt` writes no system message), counted under `reason` where it changes
   * the text.
   */
  rewrite?: { reason: DeliberateReason; apply: (text: string, c: Conversation) => string };
}

/** The mark a documented template variant writes where its `k`-th documented difference changes the output. */
export function documentedMark(k: number): string {
  if (!Number.isInteger(k) || k < 0 || k > 0xff) throw new RendererError(`documented mark ${k} is out of 0..255`);
  return String.fromCharCode(MARK_BASE + k);
}

const MARK_BASE = 0xe100;
const MARKS = /[\uE100-\uE1FF]/g;
const HAS_MARK = /[\uE100-\uE1FF]/;

/** The documented, deliberate differences a conversation may show. */
export type DeliberateReason =
  | 'quoted control strings stay text'
  | 'header/text seam'
  | 'template appends a header after the example'
  | 'refused: not prefix-stable'
  | 'trained turn as sampled'
  | 'no system message'
  | 'earlier reasoning kept'
  | 'text beside a tool call is a commentary preamble'
  | 'tool call header as sampled'
  | 'tool results as written';

/** The outcome for one conversation. */
export type Verdict =
  | { kind: 'identical' }
  | {
      kind: 'deliberate';
      reason: DeliberateReason;
      /** Further documented differences the same conversation shows (each counted). */
      also?: readonly DeliberateReason[];
    }
  | { kind: 'different'; where: 'generation prompt' | 'supervised example'; expected: string; got: string };

/** The template's variables for `messages` (system prompt first, tools in `tools`). */
function templateVariables(
  c: Conversation,
  messages: readonly Message[],
  spec: ConformanceSpec,
  mask: (s: string) => string,
) {
  const all = c.systemPrompt === undefined ? messages : [{ role: 'system', content: c.systemPrompt }, ...messages];
  return {
    messages: all.map((m) => {
      const out: Record<string, unknown> = { role: m.role, content: '' };
      if (typeof m.content === 'string') out.content = mask(m.content);
      else if (m.content.some((p) => p.type === 'image')) {
        // The template's content parts: an image is `{type: 'image'}` (the processor supplies the pixels).
        out.content = m.content.map((p) =>
          p.type === 'image' ? { type: 'image' } : { type: 'text', text: mask(p.type === 'text' ? p.text : '') },
        );
      } else {
        out.content = mask(m.content.map((p) => (p.type === 'text' ? p.text : '')).join(''));
        const r = m.content.filter((p) => p.type === 'thinking');
        if (r.length > 0) out[spec.reasoningKey ?? 'reasoning_content'] = mask(r.map((p) => p.thinking).join(''));
      }
      if (m.tool_calls) {
        out.tool_calls = m.tool_calls.map((tc) => ({
          ...tc,
          function: {
            name: tc.function.name,
            arguments: spec.argumentsAsObjects
              ? maskJson(JSON.parse(tc.function.arguments) as unknown, mask)
              : mask(tc.function.arguments),
          },
        }));
      }
      if (m.name !== undefined) out.name = m.name;
      if (m.tool_call_id !== undefined) out.tool_call_id = m.tool_call_id;
      return out;
    }),
    ...(c.tools === undefined
      ? {}
      : (spec.toolVariables?.(c.tools) ?? { tools: c.tools.map((t) => ({ type: 'function', function: t })) })),
  };
}

function maskJson(v: unknown, mask: (s: string) => string): unknown {
  if (typeof v === 'string') return mask(v);
  if (Array.isArray(v)) return v.map((x) => maskJson(x, mask));
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskJson(x, mask)]));
  return v;
}

/** Reference renders shared by every comparison in the process, per template source and variables (bounded). */
const referenceRenders = new Map<string, Map<string, string>>();
const MAX_REFERENCE_RENDERS = 20_000;

/**
 * Compares one renderer with one template over generated conversations.
 *
 * Cost: the template's text is encoded the way Hugging Face tokenizers do it — split at the added tokens (each one
 * becomes its id), the text between them encoded on its own — with each piece remembered ({@link MemoTokenizer}), so
 * the tool declarations and the messages a prompt shares with its supervised example are encoded once; the first
 * `verifyEncoding` conversations also encode the whole text at once and throw when the two differ. A template
 * rendering is remembered per variables across instances, and the renderer's tokens are decoded only when they
 * differ from the template's or the conversation quotes control strings.
 */
export class TemplateConformance {
  private readonly template: CompiledTemplate;
  private readonly templateSource: string;
  private readonly documented: CompiledTemplate | undefined;
  private readonly patches: readonly CompiledTemplate[];
  private readonly controlIds: Set<number>;
  private readonly quoted: readonly string[];
  /** The memoising view of the tokenizer (build the renderer on it too: `memoTokenizer(tok)`). */
  readonly tokenizer: MemoTokenizer;
  private readonly addedPattern: RegExp | undefined;
  private readonly addedIds: Map<string, number>;
  /** Conversations whose reference encoding is also checked against the whole-text encoding. */
  verifyEncoding = 0;
  private checked = 0;

  constructor(
    readonly renderer: Renderer,
    tokenizer: Tokenizer,
    templateSource: string,
    readonly spec: ConformanceSpec,
    /** The control strings quoted conversations splice into their texts. Default: every one the template writes. */
    quoted?: readonly string[],
  ) {
    this.tokenizer = memoTokenizer(tokenizer);
    this.template = new CompiledTemplate(templateSource, 'the reference template');
    this.templateSource = templateSource;
    this.documented =
      spec.documented === undefined
        ? undefined
        : new CompiledTemplate(spec.documented.template, 'the reference template with its documented differences');
    this.patches = (spec.documented?.each ?? []).map(
      (source, k) => new CompiledTemplate(source, `the reference template with documented patch ${k}`),
    );
    this.controlIds = new Set(tokenizer.controlTokens.map((t) => tokenizer.convertTokenToId(t)!));
    this.quoted = quoted ?? tokenizer.controlTokens.filter((t) => templateSource.includes(t));
    const added = [...tokenizer.controlTokens].sort((a, b) => b.length - a.length);
    this.addedIds = new Map(added.map((t) => [t, tokenizer.convertTokenToId(t)!]));
    this.addedPattern =
      added.length === 0
        ? undefined
        : new RegExp(added.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'gu');
  }

  /** Conversation `i` of the seeded series `seed` (every fourth one quotes control strings). */
  conversation(next: () => number, i: number): Conversation {
    return generateConversation(next, this.spec.features, i % 4 === 3 ? this.quoted : []);
  }

  private render(
    c: Conversation,
    messages: readonly Message[],
    gen: boolean,
    mask: (s: string) => string,
    /** The documented variant, or (a number) the official template with that one patch. */
    documented: boolean | number = false,
  ): string {
    const patch = typeof documented === 'number' ? this.patches[documented] : undefined;
    const [template, source] =
      patch !== undefined
        ? [patch, this.spec.documented!.each![documented as number]!]
        : documented === true && this.documented !== undefined
          ? [this.documented, this.spec.documented!.template]
          : [this.template, this.templateSource];
    const vars = {
      bos_token: this.tokenizer.bosToken ?? '',
      eos_token: this.tokenizer.eosToken ?? '',
      ...this.spec.variables,
      ...templateVariables(c, messages, this.spec, mask),
      add_generation_prompt: gen,
    };
    let renders = referenceRenders.get(source);
    if (renders === undefined) {
      renders = new Map();
      referenceRenders.set(source, renders);
    }
    const now = this.spec.now;
    const key = `${now?.toISOString() ?? ''}${JSON.stringify(vars)}`;
    let text = renders.get(key);
    if (text === undefined) {
      text = template.render(vars, now);
      if (renders.size >= MAX_REFERENCE_RENDERS) renders.clear();
      renders.set(key, text);
    }
    for (const [from, to] of Object.entries(this.spec.substitute ?? {})) text = text.replaceAll(from, to);
    return text;
  }

  /**
   * The reference text with the row's documented differences ({@link ConformanceSpec.documented} and `rewrite`), and
   * the reasons that changed it.
   */
  private documentedText(
    c: Conversation,
    messages: readonly Message[],
    gen: boolean,
    mask: (s: string) => string,
  ): { text: string; reasons: DeliberateReason[] } {
    const spec = this.spec.documented;
    let official: string | undefined;
    try {
      official = this.render(c, messages, gen, mask);
    } catch (e) {
      // The official template may refuse what the documented variant renders (Harmony's: reasoning and text beside a
      // tool call); the variant must then mark a difference.
      if (spec === undefined || !(e instanceof TemplateRunError) || e.kind !== 'raise_exception') throw e;
    }
    let text = official ?? '';
    const reasons: DeliberateReason[] = [];
    if (spec !== undefined) {
      const variant = this.render(c, messages, gen, mask, true);
      const marks = new Set(variant.match(MARKS) ?? []);
      text = variant.replace(MARKS, '');
      const unmarked = (what: string, t: string) =>
        new RendererError(
          `conformance: ${what} renders other text than the official template where it marks no difference ` +
            `(${JSON.stringify(t.slice(0, 200))}…): a patch changes more than it marks`,
        );
      if (marks.size === 0 && text !== official) throw unmarked('the template with its documented differences', text);
      if (this.checked < this.verifyEncoding) {
        for (let k = 0; k < this.patches.length; k++) {
          let alone: string;
          try {
            alone = this.render(c, messages, gen, mask, k);
          } catch (e) {
            // A patch that leaves the template's refusal in place is checked where the template renders.
            if (official === undefined && e instanceof TemplateRunError && e.kind === 'raise_exception') continue;
            throw e;
          }
          if (!HAS_MARK.test(alone) && alone !== official) throw unmarked(`documented patch ${k} alone`, alone);
        }
      }
      for (const m of [...marks].sort()) {
        const reason = spec.reasons[m.charCodeAt(0) - MARK_BASE];
        if (reason === undefined)
          throw new RendererError(`conformance: documented mark U+${m.charCodeAt(0).toString(16)} names no reason`);
        reasons.push(reason);
      }
    }
    const rewrite = this.spec.rewrite;
    if (rewrite !== undefined) {
      const rewritten = rewrite.apply(text, c);
      if (rewritten !== text) {
        reasons.push(rewrite.reason);
        text = rewritten;
      }
    }
    return { text, reasons };
  }

  /** `encode(text)` of the tokenizer, piece by piece between its added tokens (see the class comment). */
  private encodeReference(text: string): number[] {
    const out: number[] = [];
    let pos = 0;
    if (this.addedPattern !== undefined) {
      this.addedPattern.lastIndex = 0;
      for (const m of text.matchAll(this.addedPattern)) {
        if (m.index > pos) out.push(...this.tokenizer.encode(text.slice(pos, m.index)));
        out.push(this.addedIds.get(m[0])!);
        pos = m.index + m[0].length;
      }
    }
    if (pos < text.length) out.push(...this.tokenizer.encode(text.slice(pos)));
    if (this.checked < this.verifyEncoding) {
      const whole = this.tokenizer.inner.encode(text);
      if (!same(whole, out)) {
        throw new RendererError(
          `conformance: encoding ${this.tokenizer.name}'s template text piece by piece between its added tokens ` +
            `gives other ids than encoding it whole (${JSON.stringify(text.slice(0, 200))}…): the piecewise ` +
            'shortcut does not hold for this tokenizer',
        );
      }
    }
    return out;
  }

  /**
   * The renderer's tokens with each image chunk as the template's one pad token, or what is wrong with an image chunk
   * (no images expected, an unknown image, `expected_tokens` other than the family's rule count).
   */
  private flatten(input: ModelInput): number[] | string {
    const out: number[] = [];
    for (const c of input.chunks) {
      if (c.type === 'encoded_text') {
        out.push(...c.tokens);
        continue;
      }
      const images = this.spec.images;
      if (images === undefined) return `a ${c.type} chunk where the template has no images`;
      const size = c.type === 'image' ? imageSize(c.data) : undefined;
      if (size === undefined) return `a ${c.type} chunk that is none of the conversation's images`;
      const want = imageTokenCount(size[0], size[1], images.rule);
      if (c.expected_tokens !== want) {
        return `an image of ${size[0]}x${size[1]} with expected_tokens ${c.expected_tokens} (the family rule: ${want})`;
      }
      out.push(this.tokenizer.convertTokenToId(images.pad)!);
    }
    return out;
  }

  /** With {@link ConformanceSpec.sampledTurn}: the template's generation prompt, then the last message as sampled. */
  private sampledText(c: Conversation, messages: readonly Message[], mask: (s: string) => string): string | undefined {
    const spec = this.spec.sampledTurn;
    const last = messages.at(-1);
    if (spec === undefined || last === undefined) return undefined;
    const parts = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }] : last.content;
    const reasoning = parts.map((p) => (p.type === 'thinking' ? p.thinking : '')).join('');
    const answer = parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    const prompt = this.render(c, messages.slice(0, -1), true, mask);
    let turn = spec.turn(mask(reasoning), mask(answer));
    const prefill = spec.prefills.find((p) => prompt.endsWith(p) && turn.startsWith(p));
    if (prefill !== undefined) turn = turn.slice(prefill.length);
    return prompt + turn;
  }

  private controls(ids: readonly number[]): number[] {
    return ids.filter((t) => this.controlIds.has(t));
  }

  /** The verdict for one conversation (generation prompt, then the supervised example when it ends on the assistant). */
  check(c: Conversation): Verdict {
    try {
      return this.checkOne(c);
    } finally {
      this.checked++;
    }
  }

  private checkOne(c: Conversation): Verdict {
    const lastAssistant = c.messages.length - 1;
    const endsOnAssistant = c.messages[lastAssistant]?.role === 'assistant';
    const promptMessages = endsOnAssistant ? c.messages.slice(0, lastAssistant) : c.messages;
    const first = this.compare(c, promptMessages, true);
    if (first.kind === 'different' || !endsOnAssistant || this.spec.promptOnly === true) return first;
    const last = c.messages[lastAssistant]!;
    const reasoned = typeof last.content !== 'string' && last.content.some((p) => p.type === 'thinking');
    if (this.renderer.disablesThinking && reasoned) return first; // refused by design: thinking-off renderers
    const second = this.compare(c, c.messages, false);
    if (second.kind === 'different') return second;
    if (first.kind !== 'deliberate') return second;
    if (second.kind !== 'deliberate') return first;
    // A conversation counts under every documented template difference (`documented`, `rewrite`) its prompt or its
    // example shows; of the other reasons, under the prompt's.
    const patched = new Set<DeliberateReason>(this.spec.documented?.reasons ?? []);
    if (this.spec.rewrite !== undefined) patched.add(this.spec.rewrite.reason);
    const seen = [first.reason, ...(first.also ?? [])];
    const more = [second.reason, ...(second.also ?? [])].filter((r) => patched.has(r) && !seen.includes(r));
    return more.length === 0 ? first : { ...first, also: [...(first.also ?? []), ...more] };
  }

  private compare(c: Conversation, messages: readonly Message[], gen: boolean): Verdict {
    const where = gen ? 'generation prompt' : 'supervised example';
    const msgs = rendererConversation(this.renderer, { ...c, messages: [...messages] });
    let got: number[];
    try {
      const input = gen
        ? this.renderer.buildGenerationPrompt(msgs)
        : this.renderer.buildSupervisedExample(msgs).modelInput;
      const flat = this.flatten(input);
      if (typeof flat === 'string')
        return { kind: 'different', where, expected: 'image chunks by the family rule', got: flat };
      got = flat;
    } catch (e) {
      // chat_template refuses, by design, a trained message whose tokens the template does not place.
      if (e instanceof RendererError && /not prefix-stable/.test(e.message)) {
        return { kind: 'deliberate', reason: 'refused: not prefix-stable' };
      }
      throw e;
    }
    const masker = quoteMasker(c.quotes ? this.quoted : []);
    let { text, reasons: documented } = this.documentedText(c, messages, gen, masker.mask);
    const trailing = this.spec.trailing;
    const appended = !gen && trailing !== undefined && text.endsWith(trailing);
    if (appended) text = text.slice(0, text.length - trailing.length);
    const sampled = gen ? undefined : this.sampledText(c, messages, masker.mask);
    const asSampled = sampled !== undefined && sampled !== text.trimEnd();
    if (asSampled) text = sampled;
    const expectedIds = this.encodeReference(text);
    // The example ends at the end-of-turn token; the template may add whitespace after it (the next prompt's).
    const prefixOk = gen
      ? same(got, expectedIds)
      : same(got, expectedIds.slice(0, got.length)) &&
        (got.length === expectedIds.length || this.tokenizer.decode(expectedIds.slice(got.length)).trim() === '');
    const also = (reason: DeliberateReason): Verdict =>
      documented.length === 0 ? { kind: 'deliberate', reason } : { kind: 'deliberate', reason, also: documented };
    if (!c.quotes && prefixOk) {
      if (appended) return also('template appends a header after the example');
      if (asSampled) return also('trained turn as sampled');
      const [first, ...more] = documented;
      if (first === undefined) return { kind: 'identical' };
      return more.length === 0
        ? { kind: 'deliberate', reason: first }
        : { kind: 'deliberate', reason: first, also: more };
    }
    const gotText = this.tokenizer.decode(got);
    const wantText = masker.unmask(text);
    const textOk = gen
      ? gotText === wantText
      : wantText.startsWith(gotText) && wantText.slice(gotText.length).trim() === '';
    if (c.quotes && textOk && same(this.controls(got), this.controls(expectedIds))) {
      return also('quoted control strings stay text');
    }
    if (!c.quotes && textOk && this.spec.seam) return also('header/text seam');
    return { kind: 'different', where, expected: wantText, got: gotText };
  }
}

function same(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Hides quoted control strings behind private-use placeholders, and restores them. */
function quoteMasker(quoted: readonly string[]): { mask: (s: string) => string; unmask: (s: string) => string } {
  if (quoted.length === 0) return { mask: (s) => s, unmask: (s) => s };
  const sorted = [...quoted].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(sorted.map((q) => q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  return {
    mask: (s) => s.replace(pattern, (q) => `\uE000${sorted.indexOf(q)}\uE001`),
    unmask: (s) => s.replace(/\uE000(\d+)\uE001/g, (_, k: string) => sorted[Number(k)]!),
  };
}

/** Counts of a conformance run. */
export interface ConformanceCounts {
  conversations: number;
  identical: number;
  deliberate: Record<string, number>;
  /** Conversations with an undocumented difference. */
  different: number;
  /** The first real difference, if any. */
  firstDifference?: { index: number; conversation: Conversation; verdict: Verdict & { kind: 'different' } };
}

/** Runs `count` seeded conversations through {@link TemplateConformance.check}. */
export function runConformance(conf: TemplateConformance, count: number, seed: number): ConformanceCounts {
  const next = mulberry32(seed);
  const out: ConformanceCounts = { conversations: 0, identical: 0, deliberate: {}, different: 0 };
  for (let i = 0; i < count; i++) {
    const c = conf.conversation(next, i);
    const v = conf.check(c);
    out.conversations++;
    if (v.kind === 'identical') out.identical++;
    else if (v.kind === 'deliberate') {
      for (const reason of [v.reason, ...(v.also ?? [])]) out.deliberate[reason] = (out.deliberate[reason] ?? 0) + 1;
    } else {
      out.different++;
      out.firstDifference ??= { index: i, conversation: c, verdict: v };
    }
  }
  return out;
}
