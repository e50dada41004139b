/**
 * From rollouts to training data (upstream `rl/data_processing.py`): group-centred advantages, dropping groups
 * that carry no signal, and merging each trajectory into as few datums as its observations allow.
 */
import {
  DataError,
  type Datum,
  datumFullSequence,
  lossInput,
  ModelInput,
  TrainingError,
  tensorFromFloat32,
  tensorFromInt64,
} from '@cookbook/core';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import type { Trajectory, TrajectoryGroup } from '@cookbook/training';

/**
 * Advantages per group: each trajectory's total reward minus its group's mean (no std scaling, as upstream).
 * Returns `advantages_P_G`.
 */
export function computeAdvantages(groups_P: readonly TrajectoryGroup[]): number[][] {
  return groups_P.map((group) => {
    const rewards_G = group.getTotalRewards();
    const mean = rewards_G.reduce((a, b) => a + b, 0) / Math.max(1, rewards_G.length);
    return rewards_G.map((r) => r - mean);
  });
}

/**
 * Applies a diagnostic control to `advantages_P_G`: `negate` flips every sign (the policy is pushed away from what
 * earned reward), `zero` removes every advantage (the update has no policy-gradient signal), `none` returns the
 * input. A control run that still improves shows the improvement does not come from RL.
 */
export function transformAdvantages(advantages_P_G: number[][], transform: 'none' | 'negate' | 'zero'): number[][] {
  if (transform === 'none') return advantages_P_G;
  // `0 - a` rather than `-a`: a zero advantage stays +0 (no -0 in logs and datums).
  return advantages_P_G.map((g) => g.map((a) => (transform === 'negate' ? 0 - a : 0)));
}

/**
 * Drop the groups whose trajectories all earned the same total reward (their advantages are all zero). When every
 * group is constant, one is kept so the step still runs.
 */
export function removeConstantRewardGroups<G extends TrajectoryGroup>(groups_P: readonly G[]): G[] {
  const kept = groups_P.filter((g) => {
    const rewards = g.getTotalRewards();
    return !rewards.every((r) => r === rewards[0]);
  });
  if (kept.length === 0 && groups_P.length > 0) return [groups_P[0]!];
  return kept;
}

/** Where a datum came from. */
export interface DatumMetadata {
  groupIdx: number;
  trajIdx: number;
}

function isPrefix(prefix: readonly number[], seq: readonly number[]): boolean {
  if (prefix.length > seq.length) return false;
  for (let i = 0; i < prefix.length; i++) if (prefix[i] !== seq[i]) return false;
  return true;
}

/** Per-token sequences of one datum under construction. */
interface Accumulator {
  tokens: number[];
  logprobs: number[];
  advantages: number[];
  mask: number[];
}

function emptyAccumulator(): Accumulator {
  return { tokens: [], logprobs: [], advantages: [], mask: [] };
}

/** The shifted datum: input = S[:-1], targets = S[1:], per-token inputs shifted likewise. */
function accumulatorToDatum(acc: Accumulator): Datum | undefined {
  if (acc.tokens.length < 2) return undefined;
  return {
    modelInput: ModelInput.fromInts(acc.tokens.slice(0, -1)),
    lossFnInputs: {
      target_tokens: tensorFromInt64(acc.tokens.slice(1)),
      logprobs: tensorFromFloat32(acc.logprobs.slice(1)),
      advantages: tensorFromFloat32(acc.advantages.slice(1)),
      mask: tensorFromFloat32(acc.mask.slice(1)),
    },
  };
}

/**
 * The datums of one trajectory. Observation tokens get logprob 0, advantage 0 and mask 0; action tokens get the
 * sampler's logprobs, the trajectory's advantage and mask 1 (0 for a turn whose metrics set `parse_error_masked`).
 * While each observation extends the previous observation plus action exactly, the turns share one datum;
 * otherwise (a renderer that rewrites history) a new datum starts.
 */
export function trajectoryToData(trajectory: Trajectory, advantage: number): Datum[] {
  const out: Datum[] = [];
  let acc = emptyAccumulator();
  const emit = () => {
    const d = accumulatorToDatum(acc);
    if (d !== undefined) out.push(d);
    acc = emptyAccumulator();
  };
  for (const [t, transition] of trajectory.transitions.entries()) {
    const ob = transition.ob.toInts();
    let delta: number[];
    if (acc.tokens.length === 0) delta = ob;
    else if (isPrefix(acc.tokens, ob)) delta = ob.slice(acc.tokens.length);
    else {
      emit();
      delta = ob;
    }
    for (const tok of delta) {
      acc.tokens.push(tok);
      acc.logprobs.push(0);
      acc.advantages.push(0);
      acc.mask.push(0);
    }
    const { tokens, maybeLogprobs } = transition.ac;
    if (maybeLogprobs === undefined || maybeLogprobs.length !== tokens.length) {
      throw new DataError(
        `transition ${t}: the action has ${tokens.length} tokens but ${maybeLogprobs?.length ?? 'no'} logprobs; RL needs the sampler's logprobs`,
        { field: 'ac.maybeLogprobs' },
      );
    }
    const masked = (transition.metrics.parse_error_masked ?? 0) >= 1;
    for (let i = 0; i < tokens.length; i++) {
      acc.tokens.push(tokens[i]!);
      acc.logprobs.push(maybeLogprobs[i]!);
      acc.advantages.push(masked ? 0 : advantage);
      acc.mask.push(masked ? 0 : 1);
    }
  }
  emit();
  return out;
}

/**
 * The datums of every trajectory of every group, with where each came from. `advantages_P_G[p][g]` is the
 * advantage of trajectory g of group p.
 */
export function assembleTrainingData(
  groups_P: readonly TrajectoryGroup[],
  advantages_P_G: readonly (readonly number[])[],
): { data_D: Datum[]; metadata_D: DatumMetadata[] } {
  const data_D: Datum[] = [];
  const metadata_D: DatumMetadata[] = [];
  groups_P.forEach((group, groupIdx) => {
    const advantages_G = advantages_P_G[groupIdx];
    if (advantages_G === undefined || advantages_G.length !== group.trajectories_G.length) {
      throw new TrainingError(
        `group ${groupIdx}: advantages do not match its ${group.trajectories_G.length} trajectories`,
      );
    }
    group.trajectories_G.forEach((traj, trajIdx) => {
      for (const datum of trajectoryToData(traj, advantages_G[trajIdx]!)) {
        data_D.push(datum);
        metadata_D.push({ groupIdx, trajIdx });
      }
    });
  });
  return { data_D, metadata_D };
}

/** The datum without its `mask` (the service's RL losses do not take one). */
export function removeMask(datum: Datum): Datum {
  const { mask: _mask, ...rest } = datum.lossFnInputs;
  return { modelInput: datum.modelInput, lossFnInputs: rest };
}

/** Moved to `@cookbook/core` (Datum helpers sit below the loops); re-exported for rl's callers. */

/** What a KL reference needs: logprobs of every token of a prompt (the first is null). */
export type LogprobComputer = Pick<SamplingClientLike, 'computeLogprobs'>;

/**
 * Fold a KL penalty against a reference (base) model into the advantages (upstream `incorporate_kl_penalty`).
 * Per action token, d = sampled logprob − reference logprob; with `avg` the mean of d over all action tokens,
 * `advantages += coef · (avg − d)`. With `discountFactor` γ > 0 the per-token term is first replaced by its
 * discounted future sum. Mutates `data_D`; returns `{kl_policy_base}`.
 */
export async function incorporateKlPenalty(
  data_D: Datum[],
  reference: LogprobComputer,
  coef: number,
  discountFactor = 0,
): Promise<Record<string, number>> {
  const refLogprobs_D = await Promise.all(
    data_D.map(async (d) => (await reference.computeLogprobs(datumFullSequence(d))).slice(1)),
  );
  const diffs_D: number[][] = [];
  let sum = 0;
  let count = 0;
  data_D.forEach((d, i) => {
    const sampled = lossInput(d, 'logprobs');
    const mask = lossInput(d, 'mask');
    const ref = refLogprobs_D[i]!;
    const diff = sampled.map((lp, t) => (mask[t]! > 0 ? (lp - (ref[t] ?? 0)) * mask[t]! : 0));
    for (let t = 0; t < diff.length; t++) {
      sum += diff[t]!;
      count += mask[t]!;
    }
    diffs_D.push(diff);
  });
  const avg = count > 0 ? sum / count : 0;
  data_D.forEach((d, i) => {
    const mask = lossInput(d, 'mask');
    const adv = lossInput(d, 'advantages');
    let penalty = diffs_D[i]!.map((diff, t) => mask[t]! * (avg - diff));
    if (discountFactor > 0) {
      const disc = new Array<number>(penalty.length).fill(0);
      let running = 0;
      for (let t = penalty.length - 1; t >= 0; t--) {
        running = penalty[t]! + discountFactor * running;
        disc[t] = running;
      }
      penalty = disc;
    }
    d.lossFnInputs.advantages = tensorFromFloat32(adv.map((a, t) => a + coef * penalty[t]!));
  });
  return { kl_policy_base: avg };
}
