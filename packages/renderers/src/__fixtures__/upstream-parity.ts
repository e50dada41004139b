/**
 * Parity with upstream's renderers: for the names whose model template cannot be obtained here
 * (`qwen3_vl_instruct`'s text turns, `nemotron3_low_thinking`, `nemotron3_ultra*`, `role_colon`) and for `gpt_oss_*`
 * beside its template rows, tokens and weights; for the other names held to a template, the weights. Seeded generated
 * conversations (the conformance generator's) are rendered by our renderer and — by `scripts/upstream-renderer-parity.py`,
 * from a checkout of the Python tinker-cookbook — by upstream's renderer of the same name on the same tokenizer. The
 * fixture keeps digests of upstream's tokens (and weights) per conversation, not the tokens: the test renders ours,
 * digests them the same way and names the first conversation that differs.
 *
 * Conversations quote no control strings: upstream encodes message text with the tokenizer's added tokens (a quoted
 * `<|im_end|>` becomes the token), where ours keeps it text — the documented difference the template conformance
 * rows already check.
 */
import { createHash } from 'node:crypto';
import { dirname } from 'node:path';
import { createRequire } from 'node:module';
import { type Message, type ModelInput, mulberry32, OFFLINE_TOKENIZERS, type OfflineTokenizerName } from '@cookbook/core';
import { getTokenizer, type Tokenizer } from '@cookbook/tokenizers';
import {
  type Conversation,
  type ConversationFeatures,
  generateConversation,
  rendererConversation,
} from '../internal/conversation-generator.js';
import { splitThinkingAndText } from '../internal/content-utils.js';
import { getRenderer } from '../registry.js';
import type { Renderer, TrainOnWhat } from '../renderer.js';

/** The offline tokenizers the rows use (their package's files; the Python side loads the same files). */
export type ParityTokenizer = OfflineTokenizerName;

/** A documented difference from upstream's renderer: which conversations it may touch, and why. */
export interface ParityDifference {
  reason: string;
  /** Whether conversation `c` (trained on `trainOnWhat`) shows what this difference is about. */
  applies: (c: Conversation, trainOnWhat: TrainOnWhat) => boolean;
  /** The tokens are upstream's; only the weights differ. */
  weightsOnly?: boolean;
}

/** One renderer name compared with upstream's renderer of that name. */
export interface ParityRow {
  name: string;
  /** The tokenizer both sides use (a stand-in where the family's own ships in no package: Nemotron on Qwen3's). */
  tokenizer: ParityTokenizer;
  features: ConversationFeatures;
  /** Conversations compared. */
  count: number;
  /** The documented differences (see the renderer's doc comment); any other difference fails. */
  differences?: readonly ParityDifference[];
  /**
   * `weights`: the name's tokens are held to its official template (the conformance table), where upstream's differ
   * in places; only conversations whose tokens agree with upstream's are compared, for their weights.
   */
  compare?: 'weights';
  /** The date gpt-oss's system message writes (fixed on both sides: the default is today's). */
  currentDate?: string;
}

const N = 250;
/** Tools, reasoning; no text opening with whitespace (upstream's Nemotron strips every message, see below). */
const ALL: ConversationFeatures = { tools: true, reasoning: true, leadingWhitespace: false };

const textOf = (m: Message): string => splitThinkingAndText(m).text;
const reasons = (m: Message): boolean => splitThinkingAndText(m).hasThinking;
const padded = (t: string) => t !== t.trim();

const GPT_OSS_TOOLS: ParityDifference = {
  reason: "tool-channel note in the one system message, as the official template writes it (upstream's second system message)",
  applies: (c) => c.tools !== undefined,
};
const GPT_OSS_DATE = '2026-01-01';
const GPT_OSS_DECLARATION: ParityDifference = {
  reason:
    "a tool's parameters open `(_: {` on one line, as the official template and openai-harmony write them (upstream breaks the line)",
  applies: (c) => c.tools !== undefined,
};
const NEMOTRON_STRIP: ParityDifference = {
  reason: 'only the assistant turn is trimmed, where the template trims it (upstream strips every message)',
  applies: (c) => c.messages.some((m) => padded(textOf(m))) || (c.systemPrompt !== undefined && padded(c.systemPrompt)),
};
const NANO_CALL_NEWLINE: ParityDifference = {
  reason: "a newline between `<think></think>` and a call without text, as the Nano template writes it (upstream's none)",
  applies: (c) => c.messages.some((m) => m.role === 'assistant' && m.tool_calls !== undefined && textOf(m).trim() === ''),
};
const NANO_REASONING_ONLY: ParityDifference = {
  reason: 'a turn of reasoning alone ends at `</think>`, the template trimming it (upstream keeps a newline)',
  applies: (c) =>
    c.messages.some(
      (m) => m.role === 'assistant' && reasons(m) && textOf(m).trim() === '',
    ),
};
const NANO_HISTORY_NEWLINE: ParityDifference = {
  reason:
    "the newline after an earlier turn's dropped reasoning is encoded with its answer, as the template's text is (upstream encodes it in the untrained header)",
  weightsOnly: true,
  applies: (c, trainOnWhat) => {
    if (trainOnWhat !== 'all_assistant_messages') return false;
    const lastUser = c.messages.findLastIndex((m) => m.role === 'user');
    return c.messages.some(
      (m, i) => i < lastUser && m.role === 'assistant' && reasons(m) && textOf(m) !== '',
    );
  },
};
const NEMOTRON_ULTRA = [NEMOTRON_STRIP];
const PREFILL_UNTRAINED: ParityDifference = {
  reason:
    "the produced turn's `<think>⏎` is the generation prompt's prefill, untrained, as at sampling time (upstream trains it)",
  weightsOnly: true,
  applies: (c) => {
    const last = c.messages.at(-1);
    return last?.role === 'assistant' && reasons(last);
  },
};
/** Text turns only: no tools, no reasoning. */
const TEXT: ConversationFeatures = { tools: false, reasoning: false, leadingWhitespace: true };

/** A name held to a template, compared with upstream for its weights on 150 conversations. */
const weightRow = (
  name: string,
  tokenizer: ParityTokenizer,
  differences: readonly ParityDifference[] = [],
  features = ALL,
): ParityRow => ({ name, tokenizer, features, count: 150, compare: 'weights', differences });
const WEIGHT_ROWS: readonly ParityRow[] = [
  ...['qwen3', 'qwen3_disable_thinking', 'qwen3_instruct'].map((name) => weightRow(name, 'qwen3')),
  // Upstream's Llama 3 renderer declares no tools.
  weightRow('llama3', 'llama3_1', [], TEXT),
  ...['qwen3_5', 'qwen3_8_xhigh_reasoning', 'qwen3_8_medium_reasoning', 'qwen3_8_low_reasoning'].map((name) =>
    weightRow(name, 'qwen3', [PREFILL_UNTRAINED]),
  ),
  ...['qwen3_5_disable_thinking', 'qwen3_8_disable_thinking'].map((name) => weightRow(name, 'qwen3')),
  ...['deepseekv3', 'deepseekv3_disable_thinking', 'deepseekv3_thinking'].map((name) =>
    weightRow(name, 'deepseek_v3_1'),
  ),
  ...['nemotron3', 'nemotron3_disable_thinking', 'nemotron3_preserve_thinking'].map((name) =>
    weightRow(name, 'qwen3', [NANO_HISTORY_NEWLINE]),
  ),
];

export const PARITY_ROWS: readonly ParityRow[] = [
  { name: 'role_colon', tokenizer: 'llama3_1', features: TEXT, count: N },
  // Upstream's Qwen3-VL renderers write tool calls, tool results and reasoning unlike the Qwen templates, which ours
  // follow (see qwen3-vl-renderer.ts); the plain text turns are compared.
  { name: 'qwen3_vl_instruct', tokenizer: 'qwen3', features: TEXT, count: N },
  { name: 'gpt_oss_no_sysprompt', tokenizer: 'gpt_oss', features: ALL, count: N, differences: [GPT_OSS_DECLARATION], currentDate: GPT_OSS_DATE },
  { name: 'gpt_oss_low_reasoning', tokenizer: 'gpt_oss', features: ALL, count: N, differences: [GPT_OSS_TOOLS, GPT_OSS_DECLARATION], currentDate: GPT_OSS_DATE },
  { name: 'gpt_oss_medium_reasoning', tokenizer: 'gpt_oss', features: ALL, count: N, differences: [GPT_OSS_TOOLS, GPT_OSS_DECLARATION], currentDate: GPT_OSS_DATE },
  { name: 'gpt_oss_high_reasoning', tokenizer: 'gpt_oss', features: ALL, count: N, differences: [GPT_OSS_TOOLS, GPT_OSS_DECLARATION], currentDate: GPT_OSS_DATE },
  {
    name: 'nemotron3_low_thinking',
    tokenizer: 'qwen3',
    features: ALL,
    count: N,
    differences: [NEMOTRON_STRIP, NANO_CALL_NEWLINE, NANO_REASONING_ONLY, NANO_HISTORY_NEWLINE],
  },
  { name: 'nemotron3_ultra', tokenizer: 'qwen3', features: ALL, count: N, differences: NEMOTRON_ULTRA },
  { name: 'nemotron3_ultra_disable_thinking', tokenizer: 'qwen3', features: ALL, count: N, differences: NEMOTRON_ULTRA },
  { name: 'nemotron3_ultra_medium_thinking', tokenizer: 'qwen3', features: ALL, count: N, differences: NEMOTRON_ULTRA },
  { name: 'nemotron3_ultra_preserve_thinking', tokenizer: 'qwen3', features: ALL, count: N, differences: NEMOTRON_ULTRA },
  ...WEIGHT_ROWS,
];

/** The added tokens a row tokenizer renames from its package's files (DeepSeek-V3.1's `<think>`, `</think>`). */
export function parityTokenRenames(tokenizer: ParityTokenizer): Readonly<Record<number, string>> {
  const spec: { package: string; addedTokens?: Readonly<Record<number, string>> } = OFFLINE_TOKENIZERS[tokenizer];
  return spec.addedTokens ?? {};
}

/** The row's tokenizer (from its package, offline). */
export function parityTokenizer(row: ParityRow): Tokenizer {
  return getTokenizer(row.tokenizer);
}

/** The folder holding a row tokenizer's `tokenizer.json` and `tokenizer_config.json` (for the Python side). */
export function parityTokenizerDir(tokenizer: ParityTokenizer): string {
  const require = createRequire(import.meta.url);
  return dirname(require.resolve(`${OFFLINE_TOKENIZERS[tokenizer].package}/models/tokenizer.json`));
}

/** The row's seed: its name's FNV-1a hash, so adding a row moves no other row's conversations. */
function rowSeed(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/** The row's conversations, in order. */
export function parityConversations(row: ParityRow): Conversation[] {
  const next = mulberry32(rowSeed(row.name));
  return Array.from({ length: row.count }, () => generateConversation(next, row.features, []));
}

/** Conversation `i`'s training target: every other conversation trains all assistant messages. */
export function parityTrainOnWhat(i: number): TrainOnWhat {
  return i % 2 === 0 ? 'last_assistant_message' : 'all_assistant_messages';
}

/** What one conversation renders to, on one side. */
export interface ParityRender {
  /** The generation prompt: before the last assistant message, or after the last user message. */
  prompt: (number | string)[];
  /** The supervised example's tokens and weights, when the conversation ends on the assistant. */
  supervised?: { tokens: (number | string)[]; weights: number[] };
}

/** A chunk sequence as tokens; an image chunk as `image:<expected tokens>`. */
function flat(input: ModelInput): (number | string)[] {
  const out: (number | string)[] = [];
  for (const c of input.chunks) {
    if (c.type === 'encoded_text') out.push(...c.tokens);
    else out.push(`image:${c.expected_tokens ?? '?'}`);
  }
  return out;
}

/** The row's renderer (with its fixed date, if any). */
export function parityRenderer(row: ParityRow, tokenizer: Tokenizer): Renderer {
  return getRenderer(row.name, tokenizer, row.currentDate === undefined ? undefined : { currentDate: row.currentDate });
}

/** Our renderer's rendering of conversation `i` (the same calls the Python script makes on upstream's). */
export function renderOurs(renderer: Renderer, c: Conversation, i: number): ParityRender {
  const messages: Message[] = rendererConversation(renderer, c);
  const last = messages.at(-1)!;
  if (last.role !== 'assistant') return { prompt: flat(renderer.buildGenerationPrompt(messages)) };
  const example = renderer.buildSupervisedExample(messages, parityTrainOnWhat(i));
  return {
    prompt: flat(renderer.buildGenerationPrompt(messages.slice(0, -1))),
    supervised: { tokens: flat(example.modelInput), weights: example.weights.map((w) => (w > 0 ? 1 : 0)) },
  };
}

const digest = (r: unknown): string => createHash('sha256').update(JSON.stringify(r)).digest('hex').slice(0, 16);

/**
 * The digests the fixture keeps for a rendering (as the Python script computes them): the first 16 hex digits of
 * SHA-256 over its JSON without the weights, and with them.
 */
export function parityDigests(r: ParityRender): { tokens: string; all: string } {
  const tokensOnly = r.supervised === undefined ? r : { prompt: r.prompt, supervised: { tokens: r.supervised.tokens } };
  return { tokens: digest(tokensOnly), all: digest(r) };
}
