/**
 * The DPO loss (upstream `preference/train_dpo.py: compute_dpo_loss` and its custom-loss closure). Data come as
 * interleaved pairs: datum 2i is the chosen sequence of pair i, datum 2i+1 the rejected one. A sequence's logprob is
 * Σ_t logprob_t · weight_t; its implicit reward is r = π − ref; per pair the loss is −log σ(β·(r_c − r_r)), averaged
 * over pairs. The gradient with respect to each token logprob is what `forwardBackwardCustom` applies.
 */
import { DataError, type Datum } from '@cookbook/core';
import { datumWeights } from '@cookbook/training';

/** Σ values[t]·weights[t] over the common length. */
export function weightedSum(values: ArrayLike<number>, weights: ArrayLike<number>): number {
  const n = Math.min(values.length, weights.length);
  let s = 0;
  for (let t = 0; t < n; t++) {
    const w = weights[t]!;
    if (w !== 0) s += values[t]! * w;
  }
  return s;
}

/** −log σ(x), computed without overflow. */
export function negLogSigmoid(x: number): number {
  return x >= 0 ? Math.log1p(Math.exp(-x)) : -x + Math.log1p(Math.exp(x));
}

/** σ(x). */
export function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

/** The DPO metrics of one batch. */
export type DpoMetrics = {
  dpo_loss: number;
  /** Share of pairs whose chosen reward is strictly above the rejected one. */
  accuracy: number;
  /** mean(β·r_c − β·r_r). */
  margin: number;
  /** mean(β·r_c). */
  chosen_reward: number;
  /** mean(β·r_r). */
  rejected_reward: number;
  num_pairs: number;
};

/** The DPO loss, its metrics and the per-pair gradient factor, from per-pair sequence logprobs. */
export function dpoFromSequenceLogprobs(
  policyChosen: readonly number[],
  policyRejected: readonly number[],
  refChosen: readonly number[],
  refRejected: readonly number[],
  beta: number,
): DpoMetrics & { dLossDMargin: number[] } {
  const n = policyChosen.length;
  if (policyRejected.length !== n || refChosen.length !== n || refRejected.length !== n) {
    throw new DataError(
      `DPO needs as many chosen as rejected sequences with their reference logprobs; got ${n}, ${policyRejected.length}, ${refChosen.length}, ${refRejected.length}`,
    );
  }
  if (n === 0) throw new DataError('DPO needs at least one pair in a batch', { field: 'batch_size' });
  let loss = 0;
  let correct = 0;
  let chosen = 0;
  let rejected = 0;
  // dL/d(r_c − r_r) per pair: −β·(1 − σ(β·Δ))/n.
  const dLossDMargin: number[] = [];
  for (let i = 0; i < n; i++) {
    const rc = policyChosen[i]! - refChosen[i]!;
    const rr = policyRejected[i]! - refRejected[i]!;
    const x = beta * (rc - rr);
    loss += negLogSigmoid(x);
    if (rc > rr) correct++;
    chosen += beta * rc;
    rejected += beta * rr;
    dLossDMargin.push((-beta * (1 - sigmoid(x))) / n);
  }
  return {
    dpo_loss: loss / n,
    accuracy: correct / n,
    margin: (chosen - rejected) / n,
    chosen_reward: chosen / n,
    rejected_reward: rejected / n,
    num_pairs: n,
    dLossDMargin,
  };
}

/** What {@link dpoLoss} returns: the loss, d loss / d logprob per datum and token, and the metrics. */
export interface DpoLossResult {
  loss: number;
  gradLogprobs: Float32Array[];
  metrics: DpoMetrics;
}

/**
 * The DPO loss over interleaved chosen/rejected datums, given the policy's per-token logprobs of each datum (as
 * the forward pass returns them) and the reference's sequence logprob of each datum.
 */
export function dpoLoss(
  data: readonly Datum[],
  logprobs: readonly ArrayLike<number>[],
  refSequenceLogprobs: readonly number[],
  beta: number,
): DpoLossResult {
  if (data.length % 2 !== 0) {
    throw new DataError(`DPO data must hold chosen/rejected pairs; got an odd count of ${data.length} datums`);
  }
  if (logprobs.length !== data.length || refSequenceLogprobs.length !== data.length) {
    throw new DataError(
      `DPO got ${data.length} datums but ${logprobs.length} logprob rows and ${refSequenceLogprobs.length} reference logprobs`,
    );
  }
  const weights = data.map((d) => datumWeights(d));
  const seq = logprobs.map((lp, i) => weightedSum(lp, weights[i]!));
  const even = <T>(xs: readonly T[]) => xs.filter((_, i) => i % 2 === 0);
  const odd = <T>(xs: readonly T[]) => xs.filter((_, i) => i % 2 === 1);
  const r = dpoFromSequenceLogprobs(even(seq), odd(seq), even(refSequenceLogprobs), odd(refSequenceLogprobs), beta);
  const gradLogprobs = logprobs.map((lp, i) => {
    const pair = Math.floor(i / 2);
    const sign = i % 2 === 0 ? 1 : -1;
    const g = r.dLossDMargin[pair]! * sign;
    const w = weights[i]!;
    const out = new Float32Array(lp.length);
    for (let t = 0; t < out.length; t++) {
      const wt = w[t] ?? 0;
      if (wt !== 0) out[t] = g * wt;
    }
    return out;
  });
  const { dLossDMargin: _, ...metrics } = r;
  return { loss: metrics.dpo_loss, gradLogprobs, metrics };
}
