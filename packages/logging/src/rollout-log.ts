/**
 * The bounded writer of rollout summaries, shared by every loop that samples trajectories (RL and its recipes, GEM):
 * one JSONL file per step, `iteration_NNNNNN/<split>_rollout_summaries.jsonl` (upstream's name and line format),
 * written atomically once the step's rollouts are done (a resumed run that replays a step replaces its file). A step
 * keeps at most `maxPerStep` lines: past that a seeded sample is kept, and every line says how many there were
 * (`rollouts_total`), so counts and rates stay right. Text fields are cut at `maxTextChars` (the cut is marked).
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { mulberry32 } from '@cookbook/core';
import { writeFileAtomicSync } from './atomic-write.js';

/** Default bounds of one step's rollout log. */
export const ROLLOUT_LOG_LIMITS = {
  /** Trajectories written per step (a seeded sample past this). */
  maxPerStep: 256,
  /** Characters of one text field (observation or action text). */
  maxTextChars: 16_000,
  /** Tokens of one action whose per-token text and logprobs are logged. */
  maxTokenTexts: 4096,
} as const;

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
