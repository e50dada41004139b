/**
 * The bounded writer of rollout summaries, shared by every loop that samples trajectories (RL and its recipes, GEM):
 * one JSONL file per step, `iteration_NNNNNN/<split>_rollout_summaries.jsonl` (upstream's name and line format),
 * written atomically once the step's rollouts are done (a resumed run that replays a step replaces its file). A step
 * keeps at most `maxPerStep` lines: past that a seeded sample is kept, and every line says how many there were
 * (`rollouts_total`), so counts and rates stay right. Text fields are cut at `maxTextChars` (the cut is marked).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type ContentPart, type Message, mulberry32 } from '@cookbook/core';
import { writeFileAtomicSync } from './atomic-write.js';

/** Default bounds of one step's rollout log. */
export const ROLLOUT_LOG_LIMITS = {
  /** Trajectories written per step (a seeded sample past this). */
  maxPerStep: 256,
  /** Characters of one text field (observation or action text). */
  maxTextChars: 16_000,
  /** Tokens of one action whose per-token text and logprobs are logged. */
  maxTokenTexts: 4096,
  /** Messages of one trajectory's conversation (the first ones and the last ones past this). */
  maxMessages: 200,
  /** Characters of an image part's URL kept (a longer one, such as a data URL, is left out). */
  maxImageUrlChars: 2048,
} as const;

/** A message as the rollout log writes it (upstream's `message_to_jsonable` shape). */
export interface JsonableMessage {
  role: string;
  content: string | JsonableContentPart[];
  tool_calls?: { type: 'function'; id?: string; function: { name: string; arguments: string } }[];
  unparsed_tool_calls?: { raw_text: string; error: string }[];
  trainable?: boolean;
  tool_call_id?: string;
  name?: string;
}

/** A content part as logged: text and thinking as they are, an image as `{type: "image"}` (with its URL if short). */
export type JsonableContentPart =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string }
  | { type: 'image'; image?: string };

function jsonablePart(part: ContentPart, max: number): JsonableContentPart {
  if (part.type === 'text') return { type: 'text', text: clipText(part.text, max) };
  if (part.type === 'thinking') return { type: 'thinking', thinking: clipText(part.thinking, max) };
  // Image bytes are never logged; a URL is kept when short.
  return typeof part.image === 'string' && part.image.length <= ROLLOUT_LOG_LIMITS.maxImageUrlChars
    ? { type: 'image', image: part.image }
    : { type: 'image' };
}

/**
 * One message in upstream's `message_to_jsonable` shape (role, content, `tool_calls` as
 * `{type: "function", id, function: {name, arguments}}`, `unparsed_tool_calls`, `trainable`, `tool_call_id`,
 * `name`), every text cut at `maxTextChars` (tool call arguments included; the cut is marked).
 */
export function messageToJsonable(
  message: Message,
  maxTextChars: number = ROLLOUT_LOG_LIMITS.maxTextChars,
): JsonableMessage {
  const out: JsonableMessage = {
    role: message.role,
    content:
      typeof message.content === 'string'
        ? clipText(message.content, maxTextChars)
        : message.content.map((p) => jsonablePart(p, maxTextChars)),
  };
  if (message.tool_calls !== undefined)
    out.tool_calls = message.tool_calls.map((c) => ({
      type: 'function',
      ...(c.id === undefined ? {} : { id: c.id }),
      function: { name: clipText(c.function.name, 256), arguments: clipText(c.function.arguments, maxTextChars) },
    }));
  if (message.unparsed_tool_calls !== undefined)
    out.unparsed_tool_calls = message.unparsed_tool_calls.map((c) => ({
      raw_text: clipText(c.raw_text, maxTextChars),
      error: clipText(c.error, maxTextChars),
    }));
  if (message.trainable !== undefined) out.trainable = message.trainable;
  if (message.tool_call_id !== undefined) out.tool_call_id = message.tool_call_id;
  if (message.name !== undefined) out.name = message.name;
  return out;
}

/**
 * A trajectory's conversation for its rollout log line: `messages` (each by {@link messageToJsonable}), at most
 * `maxMessages` of them — past that the first quarter and the last three quarters are kept and `messages_total` says
 * how many there were.
 */
export function conversationRecord(
  messages: readonly Message[],
  maxMessages: number = ROLLOUT_LOG_LIMITS.maxMessages,
): { messages: JsonableMessage[]; messages_total?: number } {
  if (messages.length <= maxMessages) return { messages: messages.map((m) => messageToJsonable(m)) };
  const head = Math.floor(maxMessages / 4);
  const kept = [...messages.slice(0, head), ...messages.slice(messages.length - (maxMessages - head))];
  return { messages: kept.map((m) => messageToJsonable(m)), messages_total: messages.length };
}

/** Options of {@link writeRolloutLog}. */
export interface RolloutLogOptions {
  maxPerStep?: number;
  /** Seed of the sample (e.g. the step), so a run's logs repeat. */
  seed?: number;
}

/**
 * The indices of at most `max` of `n` items: all of them when `n <= max`, else a sample drawn with a seeded
 * partial Fisher–Yates shuffle, returned in increasing order.
 */
export function sampleIndices(n: number, max: number, seed: number): number[] {
  const idx = Array.from({ length: n }, (_, i) => i);
  if (n <= max) return idx;
  const next = mulberry32(seed >>> 0 || 0x9e3779b9);
  for (let i = 0; i < max; i++) {
    const j = i + Math.floor(next() * (n - i));
    const tmp = idx[i]!;
    idx[i] = idx[j]!;
    idx[j] = tmp;
  }
  return idx.slice(0, max).sort((a, b) => a - b);
}

/** `text` cut to `max` characters, the cut marked with how much was dropped. */
export function clipText(text: string, max: number = ROLLOUT_LOG_LIMITS.maxTextChars): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters not logged]`;
}

/**
 * The text of each of the first `max` tokens, for showing an action token by token beside its logprobs: one string per
 * token, whose concatenation is the decoded text. A character whose UTF-8 bytes span several tokens (byte-level BPE
 * splits emoji and many CJK characters) is shown at the token that completes it, the tokens before it get `''`;
 * decoding each token alone would show each part as U+FFFD. A token run still incomplete after 4 tokens (invalid
 * UTF-8 from the model) is shown as it decodes.
 */
export function tokenTexts(
  tokens: readonly number[],
  decode: (tokens: number[]) => string,
  max: number = ROLLOUT_LOG_LIMITS.maxTokenTexts,
): string[] {
  const n = Math.min(tokens.length, max);
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const text = decode(tokens.slice(start, i + 1));
    if (text.endsWith('\uFFFD') && i + 1 - start < 4 && i + 1 < n) {
      out.push('');
      continue;
    }
    out.push(text);
    start = i + 1;
  }
  return out;
}

/**
 * Writes one step's rollout records to `path` (parent folders created), at most `maxPerStep` of them (a seeded sample
 * past that), each with `rollouts_total` = the number before sampling. Returns how many were written.
 */
export function writeRolloutLog(
  path: string,
  records: readonly Record<string, unknown>[],
  options: RolloutLogOptions = {},
): number {
  const max = options.maxPerStep ?? ROLLOUT_LOG_LIMITS.maxPerStep;
  const kept = sampleIndices(records.length, max, options.seed ?? 0);
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomicSync(
    path,
    kept.map((i) => `${JSON.stringify({ ...records[i]!, rollouts_total: records.length })}\n`).join(''),
  );
  return kept.length;
}
