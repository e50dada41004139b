/**
 * The per-step arithmetic of the GEM trainer (GEM `examples/train_tinker/tinker_train.py`, paper arXiv 2510.01051):
 * per-turn discounted returns, return batch-normalisation (ReBN), seeded subsampling, the importance-sampling datum of
 * one transition, and the sampler-vs-learner diagnostics.
 *
 * Differences from the seed, on purpose: ReBN of a single transition (or of returns that are all equal) gives
 * advantage 0 instead of NaN; subsampling draws from a seeded RNG instead of numpy's global one.
 */

import type { Sfc32Rng } from '@cookbook/core';
import { DataError, type Datum, ModelInput, tensorFromFloat32, tensorFromInt64, tensorToNumbers } from '@cookbook/core';

/** One turn of an episode, as the trainer stores it. */
export interface GemTransition {
  /** The prompt tokens of the turn. */
  obsTokens: number[];
  /** The sampled action tokens. */
  actTokens: number[];
  /** The sampler's logprob of each action token. */
  actLogprobs: number[];
  reward: number;
  done: boolean;
}

/** Per-turn discounted returns `G_t = r_t + gamma * G_{t+1}` (G after the last turn = 0). */
export function discountedReturns(rewards: readonly number[], gamma: number): number[] {
  const out = new Array<number>(rewards.length);
  let g = 0;
  for (let t = rewards.length - 1; t >= 0; t--) {
    g = rewards[t]! + gamma * g;
    out[t] = g;
  }
  return out;
}

/**
 * Return batch-normalisation over every transition: `(G − mean) / (std + 1e-9)` with the unbiased (N−1) standard
 * deviation, as the seed computes it. With one transition (the seed gets NaN) or returns equal up to rounding, A = 0.
 */
export function rebn(returns: readonly number[]): number[] {
  const n = returns.length;
  if (n === 0) return [];
  const mean = returns.reduce((a, b) => a + b, 0) / n;
  // Equal returns (up to rounding: the mean of eight −0.1 is not exactly −0.1) carry no signal. Without this guard
  // the rounding noise, divided by a std of ~1e-17 + 1e-9, becomes advantages of ~1e-8 that Adam rescales into
  // full-size updates.
  if (Math.max(...returns) - Math.min(...returns) <= 1e-9 * Math.max(1, Math.abs(mean))) return returns.map(() => 0);
  const variance = n > 1 ? returns.reduce((a, g) => a + (g - mean) ** 2, 0) / (n - 1) : 0;
  const std = Math.sqrt(variance);
  return returns.map((g) => Math.fround((g - mean) / (std + 1e-9)));
}

/** `k` distinct items drawn uniformly with `rng` (all of them, in order, when there are at most `k`). */
export function subsample<T>(items: readonly T[], k: number, rng: Sfc32Rng): T[] {
  if (items.length <= k) return [...items];
  const idx = rng.sample(
    items.map((_, i) => i),
    k,
  );
  return idx.sort((a, b) => a - b).map((i) => items[i]!);
}

/**
 * The datum of one transition in the shifted next-token layout (N = |obs| + |act| − 1 positions):
 * `model_input = (obs ++ act)[:-1]`, `target_tokens = (obs ++ act)[1:]`, `logprobs = [0]*(|obs|−1) ++ act_logprobs`,
 * `advantages = [0]*(|obs|−1) ++ [A]*|act|` — the advantage sits on the action tokens only.
 */
export function transitionDatum(
  t: Pick<GemTransition, 'obsTokens' | 'actTokens' | 'actLogprobs'>,
  advantage: number,
): Datum {
  if (t.obsTokens.length === 0) throw new DataError('a transition needs at least one prompt token');
  if (t.actLogprobs.length !== t.actTokens.length) {
    throw new DataError(`${t.actTokens.length} action tokens but ${t.actLogprobs.length} logprobs`);
  }
  const all = [...t.obsTokens, ...t.actTokens];
  const pad = t.obsTokens.length - 1;
  return {
    modelInput: ModelInput.fromInts(all.slice(0, -1)),
    lossFnInputs: {
      target_tokens: tensorFromInt64(all.slice(1)),
      logprobs: tensorFromFloat32([...new Array<number>(pad).fill(0), ...t.actLogprobs]),
      advantages: tensorFromFloat32([...new Array<number>(pad).fill(0), ...t.actTokens.map(() => advantage)]),
    },
  };
}

/**
 * The seed's diagnostics over the trained datums: per action token d = sampler logprob − learner logprob;
 * `kl_sample_train_v1 = mean(d)`, `kl_sample_train_v2 = 0.5·mean(d²)`, `token_entropy = −mean(sampler logprob)`.
 */
export function samplerLearnerMetrics(
  transitions: readonly Pick<GemTransition, 'actLogprobs'>[],
  learnerLogprobs_D: readonly (readonly number[])[],
): { klV1: number; klV2: number; tokenEntropy: number } {
  let n = 0;
  let d1 = 0;
  let d2 = 0;
  let nll = 0;
  transitions.forEach((t, i) => {
    const learner = learnerLogprobs_D[i] ?? [];
    const k = t.actLogprobs.length;
    const tail = learner.slice(learner.length - k);
    for (let j = 0; j < k; j++) {
      const s = t.actLogprobs[j]!;
      const d = s - (tail[j] ?? s);
      d1 += d;
      d2 += d * d;
      nll -= s;
      n++;
    }
  });
  return n === 0
    ? { klV1: 0, klV2: 0, tokenEntropy: 0 }
    : { klV1: d1 / n, klV2: (0.5 * d2) / n, tokenEntropy: nll / n };
}

/** The learner logprobs in a forward-backward output entry (`logprobs`), as numbers. */
export function learnerLogprobs(output: Record<string, unknown>): number[] {
  const t = output.logprobs;
  return t === undefined ? [] : tensorToNumbers(t as Parameters<typeof tensorToNumbers>[0]);
}
