/**
 * Advantage estimators: how a batch's rewards become each trajectory's advantage. `mean` is upstream's (the reward
 * minus its group's mean); the others are the ones the GRPO, RLOO and REINFORCE++ papers use.
 */
import { TrainingError } from '@cookbook/core';

/** The estimators, by `advantage_estimator` value. */
export const ADVANTAGE_ESTIMATORS = ['mean', 'grpo', 'rloo', 'reinforce_pp', 'reinforce_pp_baseline'] as const;
/** One of {@link ADVANTAGE_ESTIMATORS}. */
export type AdvantageEstimator = (typeof ADVANTAGE_ESTIMATORS)[number];

/** Added to a standard deviation before dividing by it (TRL's GRPO trainer uses the same 1e-4). */
export const ADVANTAGE_STD_EPS = 1e-4;

/** REINFORCE++'s floor on the batch variance before its inverse square root (OpenRLHF's `clamp(min=1e-8)`). */
export const REINFORCE_PP_VAR_FLOOR = 1e-8;

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** The unbiased (n − 1) standard deviation, 0 for fewer than two values (TRL's `nanstd` gives NaN, then 0). */
function std(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
}

/**
 * The advantage of every trajectory, `advantages_P_G[p][g]`, from the total rewards `rewards_P_G[p][g]`:
 * - `mean`: `r − mean(group)` (upstream's `compute_advantages`; no scaling).
 * - `grpo`: `(r − mean(group)) / (std(group) + 1e-4)`, std unbiased (Shao et al. 2024, DeepSeekMath; as TRL's
 *   GRPO trainer computes it). A group of one gets 0.
 * - `rloo`: `r − mean of the group's other rewards` (Ahmadian et al. 2024, "Back to Basics"); needs groups of two or
 *   more.
 * - `reinforce_pp`: `(r − μ) / √max(σ², 1e-8)`, no group baseline (Hu 2025, REINFORCE++, arXiv 2501.03262): the
 *   return of every token (γ = 1, the outcome reward: `r` on each of the trajectory's tokens) whitened over every
 *   trained token of the batch, so μ and σ² (population) weigh each trajectory by its token count `tokens_P_G[p][g]`
 *   — the paper's own framework (OpenRLHF's experience maker) computes it so; verl's `masked_whiten` too (unbiased
 *   variance, a difference of order 1/tokens). Without `tokens_P_G` every trajectory weighs 1.
 * - `reinforce_pp_baseline`: REINFORCE++ w/ Baseline, the paper's variant for group sampling (k > 1 rollouts per
 *   prompt, reasoning tasks): `r − mean(group)`, then whitened over the batch's tokens as `reinforce_pp` (OpenRLHF's
 *   `reinforce_baseline`, verl's `reinforce_plus_plus_baseline`). Needs groups of two or more.
 * @throws TrainingError for `rloo` or `reinforce_pp_baseline` with a group of fewer than two trajectories (naming the
 *   group), or `tokens_P_G` not shaped like `rewards_P_G`.
 */
export function estimateAdvantages(
  rewards_P_G: readonly (readonly number[])[],
  estimator: AdvantageEstimator,
  tokens_P_G?: readonly (readonly number[])[],
): number[][] {
  switch (estimator) {
    case 'mean':
      return rewards_P_G.map((g) => {
        const m = mean(g);
        return g.map((r) => r - m);
      });
    case 'grpo':
      return rewards_P_G.map((g) => {
        const m = mean(g);
        const s = std(g);
        return g.map((r) => (r - m) / (s + ADVANTAGE_STD_EPS));
      });
    case 'rloo':
      return rewards_P_G.map((g, p) => {
        needsGroups(estimator, g, p);
        const sum = g.reduce((a, b) => a + b, 0);
        return g.map((r) => r - (sum - r) / (g.length - 1));
      });
    case 'reinforce_pp':
      return whitenOverTokens(rewards_P_G, tokens_P_G, estimator);
    case 'reinforce_pp_baseline': {
      const centred = rewards_P_G.map((g, p) => {
        needsGroups(estimator, g, p);
        const m = mean(g);
        return g.map((r) => r - m);
      });
      return whitenOverTokens(centred, tokens_P_G, estimator);
    }
  }
}

/** @throws TrainingError when group `p` has fewer than two rollouts (the estimator's baseline is the group's). */
function needsGroups(estimator: AdvantageEstimator, g: readonly number[], p: number): void {
  if (g.length < 2) {
    throw new TrainingError(
      `advantage_estimator=${estimator} needs groups of two or more rollouts, but group ${p} has ${g.length} (raise group_size)`,
    );
  }
}

/**
 * REINFORCE++'s global normalisation: `(x − μ) / √max(σ², 1e-8)` with μ and σ² (population) over every trained token
 * of the batch, each trajectory's value on each of its `tokens_P_G[p][g]` tokens (1 each when omitted).
 */
function whitenOverTokens(
  x_P_G: readonly (readonly number[])[],
  tokens_P_G: readonly (readonly number[])[] | undefined,
  estimator: AdvantageEstimator,
): number[][] {
  if (tokens_P_G?.some((g, p) => g.length !== x_P_G[p]?.length)) {
    throw new TrainingError(`advantage_estimator=${estimator}: the token counts are not shaped like the rewards`);
  }
  const all = x_P_G.flat();
  const weights = tokens_P_G?.flat() ?? all.map(() => 1);
  const total = weights.reduce((a, w) => a + w, 0);
  if (total === 0) return x_P_G.map((g) => g.map(() => 0));
  const m = all.reduce((a, r, i) => a + weights[i]! * r, 0) / total;
  const v = all.reduce((a, r, i) => a + weights[i]! * (r - m) ** 2, 0) / total;
  const scale = 1 / Math.sqrt(Math.max(v, REINFORCE_PP_VAR_FLOOR));
  return x_P_G.map((g) => g.map((r) => (r - m) * scale));
}

/**
 * DAPO's overlong reward shaping (Yu et al. 2025, eq. 13): 0 for a response of at most `maxTokens − buffer` tokens,
 * then a linear penalty reaching −1 at `maxTokens` (and −1 beyond). `buffer` 0 = off (always 0).
 */
export function overlongPenalty(length: number, maxTokens: number, buffer: number): number {
  if (buffer <= 0 || length <= maxTokens - buffer) return 0;
  if (length <= maxTokens) return (maxTokens - buffer - length) / buffer;
  return -1;
}
