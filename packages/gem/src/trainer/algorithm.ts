/**
 * The per-step arithmetic that is the GEM trainer's own (GEM `examples/train_tinker/tinker_train.py`, paper arXiv
 * 2510.01051): per-turn discounted returns, return batch-normalisation (ReBN) and seeded subsampling. What it shares
 * with the RL loop comes from `@cookbook/rl`: the datum of a transition is rl's datum of a one-turn trajectory
 * (`trajectoryToData`), and the sampler-vs-learner diagnostics are rl's `computeKlSampleTrain`.
 *
 * Differences from the seed, on purpose: ReBN of a single transition (or of returns that are all equal) gives
 * advantage 0 instead of NaN; subsampling draws from a seeded RNG instead of numpy's global one.
 */
import { DataError, type Datum, ModelInput, type Sfc32Rng } from '@cookbook/core';
import { computeKlSampleTrain, trajectoryToData } from '@cookbook/rl';

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
 * The datum of one transition: rl's datum of a one-turn trajectory (`trajectoryToData`), in the shifted next-token
 * layout (N = |obs| + |act| − 1 positions): `model_input = (obs ++ act)[:-1]`, `target_tokens = (obs ++ act)[1:]`,
 * `logprobs = [0]*(|obs|−1) ++ act_logprobs`, `advantages = [0]*(|obs|−1) ++ [A]*|act|`, `mask = [0]*(|obs|−1) ++
 * [1]*|act|` — the advantage sits on the action tokens only (the mask is removed before the service sees the datum).
 */
export function transitionDatum(
  t: Pick<GemTransition, 'obsTokens' | 'actTokens' | 'actLogprobs'>,
  advantage: number,
): Datum {
  if (t.obsTokens.length === 0) throw new DataError('a transition needs at least one prompt token');
  const [datum] = trajectoryToData(
    {
      transitions: [
        {
          ob: ModelInput.fromInts(t.obsTokens),
          ac: { tokens: t.actTokens, maybeLogprobs: t.actLogprobs },
          reward: 0,
          episodeDone: true,
          metrics: {},
        },
      ],
      finalObservation: ModelInput.fromInts([]),
    },
    advantage,
  );
  if (datum === undefined) throw new DataError('a transition needs at least two tokens (prompt and action)');
  return datum;
}

/**
 * The seed's diagnostics over the trained datums, through rl's `computeKlSampleTrain`: per action token (mask > 0)
 * d = sampler logprob − learner logprob; `kl_sample_train_v1 = mean(d)`, `kl_sample_train_v2 = 0.5·mean(d²)`,
 * `token_entropy = −mean(sampler logprob)`; all 0 without action tokens.
 */
export function samplerLearnerMetrics(
  data_D: readonly Datum[],
  learnerLogprobs_D: readonly (readonly number[])[],
): { klV1: number; klV2: number; tokenEntropy: number } {
  const kl = computeKlSampleTrain(data_D, learnerLogprobs_D);
  return {
    klV1: kl['optim/kl_sample_train_v1'] ?? 0,
    klV2: kl['optim/kl_sample_train_v2'] ?? 0,
    tokenEntropy: kl['optim/entropy'] ?? 0,
  };
}
