/**
 * RL metrics (upstream `rl/metrics.py` and `rl/metric_util.py`): trajectory statistics per environment tag,
 * sampler-vs-learner KL on the trained tokens, and the KL between the policy before and after an update.
 */
import { type Datum, datumFullSequence, lossInput } from '@cookbook/core';
import type { TrajectoryGroup } from '@cookbook/training';
import type { LogprobComputer } from './data-processing.js';

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

function meanOfKeys(dicts: readonly Record<string, number>[]): Record<string, number> {
  const sums = new Map<string, { sum: number; n: number }>();
  for (const d of dicts) {
    for (const [k, v] of Object.entries(d)) {
      const s = sums.get(k) ?? { sum: 0, n: 0 };
      s.sum += v;
      s.n += 1;
      sums.set(k, s);
    }
  }
  const out: Record<string, number> = {};
  for (const [k, s] of sums) out[k] = s.sum / s.n;
  return out;
}

function metricsOfGroups(groups: readonly TrajectoryGroup[]): Record<string, number> {
  const acTokens: number[] = [];
  const obTokens: number[] = [];
  const turnsPerEpisode: number[] = [];
  const rewards: number[] = [];
  const transitionMetrics: Record<string, number>[] = [];
  const groupMetrics: Record<string, number>[] = [];
  let mixed = 0;
  let allGood = 0;
  let allBad = 0;
  for (const g of groups) {
    const totals = g.getTotalRewards();
    rewards.push(...totals);
    if (totals.every((r) => r === totals[0])) {
      if ((totals[0] ?? 0) >= 0.5) allGood++;
      else allBad++;
    } else mixed++;
    g.trajectories_G.forEach((traj, i) => {
      turnsPerEpisode.push(traj.transitions.length);
      for (const t of traj.transitions) {
        acTokens.push(t.ac.tokens.length);
        obTokens.push(t.ob.length);
        transitionMetrics.push(t.metrics);
      }
      groupMetrics.push(g.metrics_G[i] ?? {});
    });
  }
  const out: Record<string, number> = {
    ac_tokens_per_turn: mean(acTokens),
    ob_tokens_per_turn: mean(obTokens),
    turns_per_episode: mean(turnsPerEpisode),
    total_episodes: turnsPerEpisode.length,
    total_turns: acTokens.length,
    total_ac_tokens: acTokens.reduce((a, b) => a + b, 0),
    total_ob_tokens: obTokens.reduce((a, b) => a + b, 0),
    'reward/total': mean(rewards),
    'by_group/frac_mixed': groups.length === 0 ? 0 : mixed / groups.length,
    // The share of groups whose rewards differ: only those carry a policy-gradient signal (centred advantages ≠ 0).
    frac_groups_with_signal: groups.length === 0 ? 0 : mixed / groups.length,
    'by_group/frac_all_good': groups.length === 0 ? 0 : allGood / groups.length,
    'by_group/frac_all_bad': groups.length === 0 ? 0 : allBad / groups.length,
  };
  for (const [k, v] of Object.entries(meanOfKeys(transitionMetrics))) out[k] = v;
  for (const [k, v] of Object.entries(meanOfKeys(groupMetrics))) out[k] = v;
  return out;
}

/**
 * Trajectory metrics under `env/all/…`, and under `env/<tag>/…` for each tag that selects a strict subset of the
 * groups. `tags_P[p]` is group p's tag (or undefined).
 */
export function computeTrajectoryMetrics(
  groups_P: readonly TrajectoryGroup[],
  tags_P: readonly (string | undefined)[] = [],
): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(metricsOfGroups(groups_P))) out[`env/all/${k}`] = v;
  const byTag = new Map<string, TrajectoryGroup[]>();
  groups_P.forEach((g, p) => {
    const tag = tags_P[p];
    if (tag === undefined) return;
    const list = byTag.get(tag) ?? [];
    list.push(g);
    byTag.set(tag, list);
  });
  for (const [tag, groups] of byTag) {
    if (groups.length === groups_P.length) continue;
    for (const [k, v] of Object.entries(metricsOfGroups(groups))) out[`env/${tag}/${k}`] = v;
  }
  return out;
}

/**
 * KL between the sampler and the learner on the trained tokens (mask > 0): with d = sampler lp − learner lp,
 * `optim/kl_sample_train_v1` = mean d, `_v2` = ½·mean d², and `optim/entropy` = −mean sampler lp (an entropy
 * estimate of the sampling policy).
 */
export function computeKlSampleTrain(
  data_D: readonly Datum[],
  trainingLogprobs_D: readonly (readonly number[])[],
): Record<string, number> {
  let sumD = 0;
  let sumD2 = 0;
  let sumLp = 0;
  let n = 0;
  data_D.forEach((d, i) => {
    const sampled = lossInput(d, 'logprobs');
    const mask = d.lossFnInputs.mask === undefined ? sampled.map(() => 1) : lossInput(d, 'mask');
    const train = trainingLogprobs_D[i] ?? [];
    for (let t = 0; t < sampled.length; t++) {
      if (!(mask[t]! > 0) || train[t] === undefined) continue;
      const diff = sampled[t]! - train[t]!;
      sumD += diff;
      sumD2 += diff * diff;
      sumLp += sampled[t]!;
      n++;
    }
  });
  if (n === 0) return {};
  return {
    'optim/kl_sample_train_v1': sumD / n,
    'optim/kl_sample_train_v2': (0.5 * sumD2) / n,
    'optim/entropy': -sumLp / n,
  };
}

/**
 * KL between the policy that sampled the data and the updated policy, on the trained tokens: d = old lp − new lp,
 * `kl_pre_post_v1` = mean d, `_v2` = ½·mean d².
 */
export async function computePostKl(
  data_D: readonly Datum[],
  newSampler: LogprobComputer,
): Promise<Record<string, number>> {
  const newLogprobs_D = await Promise.all(
    data_D.map(async (d) => (await newSampler.computeLogprobs(datumFullSequence(d))).slice(1)),
  );
  let sumD = 0;
  let sumD2 = 0;
  let n = 0;
  data_D.forEach((d, i) => {
    const old = lossInput(d, 'logprobs');
    const mask = lossInput(d, 'mask');
    const lp = newLogprobs_D[i]!;
    for (let t = 0; t < old.length; t++) {
      const nl = lp[t];
      if (!(mask[t]! > 0) || nl === null || nl === undefined) continue;
      const diff = old[t]! - nl;
      sumD += diff;
      sumD2 += diff * diff;
      n++;
    }
  });
  if (n === 0) return {};
  return { kl_pre_post_v1: sumD / n, kl_pre_post_v2: (0.5 * sumD2) / n };
}
