/**
 * The policy-loss variants of the RL algorithms on top of the service's losses: how per-token terms are aggregated
 * (a token weight folded into the advantage, exact for the losses linear in it, so the hosted service's built-in
 * losses compute them without a `weights` input, which they do not take) and GSPO's sequence-level importance ratio
 * (no built-in loss has it: a client-side loss through `forwardBackwardCustom`, which costs an extra forward pass).
 */
import { ConfigError, type Datum, lossInput, TrainingError, tensorFromFloat32 } from '@cookbook/core';
import type { CustomLossResult } from '@cookbook/tinker-client';
import { BUILTIN_LOSSES, type PolicyGradientLossFn } from '@cookbook/tinker-wire';

/**
 * How the per-token loss terms of a batch are combined:
 * - `sum`: summed (the service's built-in losses; upstream's default);
 * - `token`: divided by the number of trained tokens in the batch (DAPO's token-level mean; TRL `bnpo` / `dapo`);
 * - `sequence`: each sequence's mean, averaged over sequences (GRPO's; TRL `grpo`);
 * - `constant`: divided by sequences × `max_tokens` (Dr. GRPO; TRL `dr_grpo`).
 */
export const LOSS_AGGREGATIONS = ['sum', 'token', 'sequence', 'constant'] as const;
/** One of {@link LOSS_AGGREGATIONS}. */
export type LossAggregation = (typeof LOSS_AGGREGATIONS)[number];

/** Where the importance ratio is taken: per token (the built-in losses), or per sequence (GSPO). */
export const IMPORTANCE_RATIO_LEVELS = ['token', 'sequence'] as const;
/** One of {@link IMPORTANCE_RATIO_LEVELS}. */
export type ImportanceRatioLevel = (typeof IMPORTANCE_RATIO_LEVELS)[number];

/**
 * The token weights that turn the summed loss into `aggregation`, per datum, from each datum's `mask` (1 on trained
 * tokens). A "sequence" is a datum. Returns undefined for `sum` (no weights: the service's sum as it is).
 */
export function aggregationWeights(
  masks_D: readonly (readonly number[])[],
  aggregation: LossAggregation,
  maxTokens: number,
): number[][] | undefined {
  if (aggregation === 'sum') return undefined;
  const D = masks_D.length;
  const total = masks_D.reduce((a, m) => a + m.reduce((s, x) => s + x, 0), 0);
  return masks_D.map((m) => {
    const n = m.reduce((s, x) => s + x, 0);
    const scale =
      aggregation === 'token'
        ? 1 / Math.max(1, total)
        : aggregation === 'sequence'
          ? 1 / (Math.max(1, n) * D)
          : 1 / (D * maxTokens);
    return m.map((x) => x * scale);
  });
}

/**
 * Checks that `aggregation` can be sent with `lossFn`: every aggregation but `sum` is a token weight folded into the
 * advantage, which is exact only for a loss linear in the advantage per token (the wire's `weightFoldsIntoAdvantage`).
 * @throws ConfigError naming both keys and values otherwise (dro's ½·β·(lp − q)² does not scale with A, and the hosted
 *   dro takes no `weights`).
 */
export function checkLossAggregation(aggregation: LossAggregation, lossFn: PolicyGradientLossFn): void {
  if (aggregation === 'sum' || BUILTIN_LOSSES[lossFn].weightFoldsIntoAdvantage) return;
  throw new ConfigError(
    `loss_aggregation=${aggregation} cannot run with loss_fn=${lossFn}: the aggregation is a token weight folded into ` +
      `the advantage, and ${lossFn}'s loss is not linear in the advantage (nor does the hosted ${lossFn} take a ` +
      'weights input); use loss_aggregation=sum, or a loss linear in the advantage (importance_sampling, ppo, cispo)',
  );
}

/**
 * Folds `aggregation`'s token weights into each datum's `advantages` (`A ← w·A`; nothing for `sum`): the loss and
 * gradient of the losses linear in A per token equal those of `(A, weights)`, and the datums keep the hosted service's
 * inputs (no `weights`). Call it last, on the advantages the step trains on. Mutates `data_D`.
 * @throws ConfigError for a loss the weight does not fold into ({@link checkLossAggregation}).
 */
export function applyLossAggregation(
  data_D: Datum[],
  aggregation: LossAggregation,
  maxTokens: number,
  lossFn: PolicyGradientLossFn,
): void {
  checkLossAggregation(aggregation, lossFn);
  const weights = aggregationWeights(
    data_D.map((d) => lossInput(d, 'mask')),
    aggregation,
    maxTokens,
  );
  if (weights === undefined) return;
  data_D.forEach((d, i) => {
    const w = weights[i]!;
    d.lossFnInputs.advantages = tensorFromFloat32(lossInput(d, 'advantages').map((a, t) => a * w[t]!));
  });
}

/** GSPO's clip range of the sequence ratio (the paper's ε_low 3e-4, ε_high 4e-4), used when no bounds are given. */
export const GSPO_CLIP = { low: 1 - 3e-4, high: 1 + 4e-4 } as const;

/** What the sequence-ratio loss reads of one datum (all of length N, the datum's targets). */
export interface SequenceRatioInputs {
  /** The sampler's logprobs q. */
  logprobs: ArrayLike<number>;
  advantages: ArrayLike<number>;
  /** 1 on trained tokens. */
  mask: ArrayLike<number>;
  /** Token weights (aggregation); absent = 1. */
  weights?: ArrayLike<number>;
}

/**
 * GSPO's loss (Zheng et al. 2025): one importance ratio per sequence, the length-normalised
 * `s = exp(Σ m·(lp − q) / Σ m)`, clipped like PPO's: `L = −Σ_t w_t·m_t·min(s·A_t, clip(s, lo, hi)·A_t)`. The gradient
 * of every token flows through `s` (∂s/∂lp_u = s·m_u / Σ m) unless the clipped branch is taken with `s` outside
 * [lo, hi]. Returns the loss, ∂L/∂lp per datum and the fraction of sequences clipped.
 */
export function sequenceRatioLoss(
  inputs_D: readonly SequenceRatioInputs[],
  lp_D: readonly ArrayLike<number>[],
  clip: { low: number; high: number },
): CustomLossResult {
  let loss = 0;
  let clipped = 0;
  let counted = 0;
  const gradLogprobs = inputs_D.map((d, i) => {
    const lp = lp_D[i]!;
    const N = d.mask.length;
    if (lp.length !== N) {
      throw new TrainingError(`sequence-ratio loss: datum ${i} has ${N} targets but ${lp.length} logprobs`);
    }
    let n = 0;
    let logRatio = 0;
    for (let t = 0; t < N; t++) {
      n += d.mask[t]!;
      logRatio += d.mask[t]! * (lp[t]! - d.logprobs[t]!);
    }
    const grad = new Float64Array(N);
    if (n === 0) return grad;
    const s = Math.exp(logRatio / n);
    const sc = Math.min(Math.max(s, clip.low), clip.high);
    counted++;
    if (sc !== s) clipped++;
    // ∂L/∂s summed over the sequence's tokens, then spread over its tokens through s.
    let dLds = 0;
    for (let t = 0; t < N; t++) {
      const m = d.mask[t]!;
      if (m === 0) continue;
      const w = (d.weights?.[t] ?? 1) * m;
      const a = d.advantages[t]!;
      if (s * a <= sc * a) {
        loss -= w * s * a;
        dLds -= w * a;
      } else {
        loss -= w * sc * a;
        if (s > clip.low && s < clip.high) dLds -= w * a;
      }
    }
    for (let t = 0; t < N; t++) grad[t] = (dLds * s * d.mask[t]!) / n;
    return grad;
  });
  return { loss, gradLogprobs, metrics: { 'gspo/clip_frac': counted > 0 ? clipped / counted : 0 } };
}

/** The RL datum's inputs the sequence-ratio loss reads. */
export function sequenceRatioInputs(d: Datum): SequenceRatioInputs {
  return {
    logprobs: lossInput(d, 'logprobs'),
    advantages: lossInput(d, 'advantages'),
    mask: lossInput(d, 'mask'),
    ...(d.lossFnInputs.weights !== undefined ? { weights: lossInput(d, 'weights') } : {}),
  };
}
