/**
 * Reference logprobs for DPO and the held-out pair evaluator: the share of held-out comparisons whose implicit reward
 * β·(π − ref) ranks the chosen completion above the rejected one, with the DPO loss and margin on them. Upstream
 * evaluates DPO by NLL only; pair accuracy is what says whether the preference was learned.
 */
import { type Datum, datumFullSequence, tensorToNumbers } from '@cookbook/core';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import type { EvalTrainingClient, TrainingClientEvaluator } from '@cookbook/training';
import { datumWeights } from '@cookbook/training';
import { dpoFromSequenceLogprobs, weightedSum } from './dpo-loss.js';

/** What reference logprobs need of a sampler. */
export type ReferenceLogprobs = Pick<SamplingClientLike, 'computeLogprobs'>;

/**
 * The reference's sequence logprob Σ logprob·weight of each datum: the full sequence (inputs plus the last target)
 * is scored, and its first position (no logprob) dropped so position t lines up with target t.
 */
export async function referenceSequenceLogprobs(
  reference: ReferenceLogprobs,
  data: readonly Datum[],
): Promise<number[]> {
  return Promise.all(
    data.map(async (d) => {
      const lp = (await reference.computeLogprobs(datumFullSequence(d))).slice(1).map((x) => x ?? 0);
      return weightedSum(lp, datumWeights(d));
    }),
  );
}

/** Reward differences (nats) below this count as ties: the float noise between a training forward and a sampler. */
export const PAIR_TIE_TOLERANCE = 1e-3;

/**
 * The share of pairs (interleaved chosen/rejected sequence logprobs) whose chosen implicit reward is above the
 * rejected one, a tie (|r_c − r_r| ≤ {@link PAIR_TIE_TOLERANCE}) counting one half: a model with no preference (the
 * policy at step 0 equals its reference) scores 0.5, as chance would, where the strict training `accuracy` reads
 * whatever side the float noise falls on.
 */
export function pairAccuracy(policySeq: readonly number[], refSeq: readonly number[]): number {
  let score = 0;
  const pairs = Math.floor(policySeq.length / 2);
  for (let p = 0; p < pairs; p++) {
    const rc = policySeq[2 * p]! - refSeq[2 * p]!;
    const rr = policySeq[2 * p + 1]! - refSeq[2 * p + 1]!;
    score += Math.abs(rc - rr) <= PAIR_TIE_TOLERANCE ? 0.5 : rc > rr ? 1 : 0;
  }
  return pairs === 0 ? 0 : score / pairs;
}

/** Options of {@link DpoPairEvaluator}. */
export interface DpoPairEvaluatorOptions {
  /** Interleaved chosen/rejected datums (as `dpoDatums` builds them). */
  datums: readonly Datum[];
  /** The frozen reference (its logprobs are computed once, on the first evaluation). */
  reference: ReferenceLogprobs;
  beta: number;
  /** Metric prefix. Default `test`. */
  name?: string;
}

/** Held-out DPO metrics through `forward`: `<name>/pair_accuracy` (ties count ½), `<name>/dpo_loss`, `<name>/margin`. */
export class DpoPairEvaluator implements TrainingClientEvaluator {
  readonly kind = 'training_client' as const;
  readonly name: string;
  private readonly datums: Datum[];
  private readonly reference: ReferenceLogprobs;
  private readonly beta: number;
  private refLogprobs: Promise<number[]> | undefined;

  constructor(options: DpoPairEvaluatorOptions) {
    this.datums = [...options.datums];
    this.reference = options.reference;
    this.beta = options.beta;
    this.name = options.name ?? 'test';
  }

  async evaluate(client: EvalTrainingClient): Promise<Record<string, number>> {
    this.refLogprobs ??= referenceSequenceLogprobs(this.reference, this.datums);
    const [ref, out] = await Promise.all([this.refLogprobs, client.forward(this.datums, 'cross_entropy')]);
    const seq = this.datums.map((d, i) => {
      const lp = out.lossFnOutputs[i]?.logprobs;
      return weightedSum(lp === undefined ? [] : tensorToNumbers(lp), datumWeights(d));
    });
    const pick = (xs: number[], parity: number) => xs.filter((_, i) => i % 2 === parity);
    const m = dpoFromSequenceLogprobs(pick(seq, 0), pick(seq, 1), pick(ref, 0), pick(ref, 1), this.beta);
    return {
      [`${this.name}/pair_accuracy`]: pairAccuracy(seq, ref),
      [`${this.name}/dpo_loss`]: m.dpo_loss,
      [`${this.name}/margin`]: m.margin,
    };
  }
}
