/**
 * Off-policy distillation targets (upstream `distillation/train_off_policy.py`): a supervised datum is teacher-forced
 * through the teacher, which returns its top-K next-token logprobs at every position; each target row becomes the K
 * teacher tokens with the teacher's probabilities renormalised over those K (softmax of the K logprobs) as weights,
 * so `cross_entropy` trains the student towards the teacher's distribution instead of the one token in the text.
 * Rows whose original weight is 0 (the prompt) get weight 0.
 */
import {
  DataError,
  type Datum,
  type ModelInput,
  tensorFromFloat32,
  tensorFromInt64,
  tensorToNumbers,
} from '@cookbook/core';
import { datumTargetTokens, datumWeights } from '@cookbook/training';

/** One prompt position's top-K: `[token id, logprob]` pairs, or null (the first position has no prediction). */
export type TopkRow = readonly (readonly [number, number])[] | null;

/** The (N, K) targets of one datum. */
export interface TopkTargets {
  /** Row-major (N·K) token ids. */
  tokens_NK: number[];
  /** Row-major (N·K) weights: the original row weight × the renormalised teacher probability. */
  weights_NK: number[];
  N: number;
  K: number;
}

/** log Σ exp(x) without overflow. */
export function logSumExp(xs: readonly number[]): number {
  let max = Number.NEGATIVE_INFINITY;
  for (const x of xs) if (x > max) max = x;
  if (max === Number.NEGATIVE_INFINITY) return max;
  let s = 0;
  for (const x of xs) s += Math.exp(x - max);
  return max + Math.log(s);
}

/**
 * The teacher's top-K as (N, K) targets for target rows with weights `weights_N`. `topk_N[t]` is the teacher's top-K
 * for target row t (the prediction of target token t). A row with fewer than K teacher entries is padded with its
 * original target token at weight 0; a row whose weight is 0, or whose teacher row is null, gets the original target
 * at column 0 and weight 0 everywhere.
 * @throws DataError when the lengths differ, K < 1, or a teacher logprob is not finite.
 */
export function topkTargets(
  targets_N: readonly number[],
  weights_N: readonly number[],
  topk_N: readonly TopkRow[],
  K: number,
): TopkTargets {
  const N = targets_N.length;
  if (!Number.isInteger(K) || K < 1) throw new DataError(`top-K must be a positive integer, got ${K}`, { field: 'K' });
  if (weights_N.length !== N || topk_N.length !== N) {
    throw new DataError(
      `top-K targets: ${N} targets but ${weights_N.length} weights and ${topk_N.length} teacher rows`,
      { field: 'topk_prompt_logprobs' },
    );
  }
  const tokens_NK = new Array<number>(N * K);
  const weights_NK = new Array<number>(N * K).fill(0);
  for (let t = 0; t < N; t++) {
    const target = targets_N[t]!;
    const w = weights_N[t]!;
    const row = topk_N[t];
    for (let k = 0; k < K; k++) tokens_NK[t * K + k] = target;
    if (w === 0 || row === null || row === undefined || row.length === 0) continue;
    const entries = row.slice(0, K);
    const lps = entries.map(([, lp]) => lp);
    if (lps.some((lp) => !Number.isFinite(lp))) {
      throw new DataError(`teacher top-K row ${t} holds a non-finite logprob`, { field: 'topk_prompt_logprobs' });
    }
    const lse = logSumExp(lps);
    entries.forEach(([tok, lp], k) => {
      tokens_NK[t * K + k] = tok;
      weights_NK[t * K + k] = w * Math.exp(lp - lse);
    });
  }
  return { tokens_NK, weights_NK, N, K };
}

/** The full token sequence of a supervised datum: its input followed by its last target. */
export function fullSequence(datum: Datum): ModelInput {
  const targets = datumTargetTokens(datum);
  const last = targets.at(-1);
  return last === undefined ? datum.modelInput : datum.modelInput.appendInt(last);
}

/**
 * The distillation datum of `datum` given the teacher's top-K over its full sequence (`topkPromptLogprobs` of a
 * teacher-forced sample: entry j is the prediction of sequence token j, entry 0 is null). Target row t predicts
 * sequence token t + 1, so it takes teacher entry t + 1.
 * @throws DataError when the teacher returned a different number of positions than the sequence has.
 */
export function distillationDatum(datum: Datum, teacherTopk: readonly TopkRow[], K: number): Datum {
  const targets = datumTargetTokens(datum);
  const given = datumWeights(datum);
  const weights = given.length > 0 ? given : targets.map(() => 1);
  if (teacherTopk.length !== targets.length + 1) {
    throw new DataError(
      `the teacher returned top-K for ${teacherTopk.length} positions; the sequence has ${targets.length + 1}`,
      { field: 'topk_prompt_logprobs' },
    );
  }
  const t = topkTargets(targets, weights, teacherTopk.slice(1), K);
  return {
    modelInput: datum.modelInput,
    lossFnInputs: {
      target_tokens: tensorFromInt64(t.tokens_NK, [t.N, t.K]),
      weights: tensorFromFloat32(t.weights_NK, [t.N, t.K]),
    },
  };
}

/** Σ weights of a datum (all K columns), for a per-token mean of the loss. */
export function weightSum(datum: Datum): number {
  const w = datum.lossFnInputs.weights;
  if (w === undefined) return 0;
  let s = 0;
  for (const x of tensorToNumbers(w)) s += x;
  return s;
}
