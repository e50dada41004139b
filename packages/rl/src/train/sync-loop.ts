/** The synchronous on-policy loop (upstream `do_sync_training`): sample the batch with the current policy, train. */
import { performance } from 'node:perf_hooks';
import { deriveSeed, recordTime, type TokenCompleter, TrainingError } from '@cookbook/core';
import type { EnvGroupBuilder, TrajectoryGroup } from '@cookbook/training';
import type { RLSamplingClient } from '../clients.js';
import { computeTrajectoryMetrics } from '../metrics.js';
import { actionTokens, hasSignal } from '../rollout-signal.js';
import {
  baseMetrics,
  exportSummaries,
  type LoopContext,
  logStep,
  prepareData,
  rolloutGroups,
  rolloutOptions,
  runEvals,
  tagsOf,
  trainAndUpdate,
} from './loop-steps.js';

/** Runs steps from `ctx.startStep` until `ctx.endStep` or an interruption; returns the step it stopped at. */
export async function doSyncTraining(ctx: LoopContext, sampler0: RLSamplingClient): Promise<number> {
  let sampler = sampler0;
  let i = ctx.startStep;
  for (; i < ctx.endStep && !ctx.run.signal.aborted; i++) {
    const stepStart = performance.now();
    const metrics = baseMetrics(ctx, i);
    const policy = ctx.policyFor(sampler);
    Object.assign(metrics, await runEvals(ctx, i, sampler));
    let builders = ctx.train.getBatch(i);
    const t0 = performance.now();
    let groups = await rolloutGroups(builders, policy, rolloutOptions(ctx, i));
    // The reward metrics describe the policy: the first round, before dynamic sampling picks groups.
    Object.assign(metrics, computeTrajectoryMetrics(groups, tagsOf(builders)));
    if (ctx.knobs.dynamicSampling)
      ({ groups, builders } = await dynamicSample(ctx, i, policy, builders, groups, metrics));
    recordTime(metrics, 'sample', t0);
    exportSummaries(ctx, i, groups, builders);
    const data_D = await prepareData(ctx, groups, metrics, builders);
    sampler = await trainAndUpdate(ctx, i, data_D, metrics);
    logStep(ctx, i, metrics, stepStart);
  }
  return i;
}

/**
 * DAPO's dynamic sampling: keeps the groups with signal and rolls the step's problems out again (fresh seeds) until
 * the batch holds as many groups with signal as it has problems, or `dynamicSamplingMaxRounds` rounds are drawn; a
 * batch that is not full trains on the groups it has. Logs `dynamic_sampling/{rounds,groups_drawn,groups_kept}` and
 * the action tokens sampled after the first round (`dynamic_sampling/extra_ac_tokens`).
 * @throws TrainingError when no group drawn had signal, naming the count of groups drawn.
 */
async function dynamicSample(
  ctx: LoopContext,
  step: number,
  policy: TokenCompleter,
  builders0: readonly EnvGroupBuilder[],
  groups0: readonly TrajectoryGroup[],
  metrics: Record<string, number>,
): Promise<{ groups: TrajectoryGroup[]; builders: EnvGroupBuilder[] }> {
  const target = builders0.length;
  const groups: TrajectoryGroup[] = [];
  const builders: EnvGroupBuilder[] = [];
  const keep = (gs: readonly TrajectoryGroup[]) =>
    gs.forEach((g, j) => {
      if (hasSignal(g) && groups.length < target) {
        groups.push(g);
        builders.push(builders0[j]!);
      }
    });
  keep(groups0);
  let rounds = 1;
  let drawn = groups0.length;
  let extraTokens = 0;
  while (groups.length < target && rounds < ctx.config.dynamicSamplingMaxRounds && !ctx.run.signal.aborted) {
    const base = rolloutOptions(ctx, step);
    const more = await rolloutGroups(builders0, policy, {
      ...base,
      numToLog: 0,
      ...(base.seed === undefined ? {} : { seed: deriveSeed(base.seed, 0x5eed, rounds) }),
    });
    rounds++;
    drawn += more.length;
    extraTokens += more.reduce((a, g) => a + actionTokens(g), 0);
    keep(more);
  }
  metrics['dynamic_sampling/rounds'] = rounds;
  metrics['dynamic_sampling/groups_drawn'] = drawn;
  metrics['dynamic_sampling/groups_kept'] = groups.length;
  metrics['dynamic_sampling/extra_ac_tokens'] = extraTokens;
  if (groups.length === 0) {
    throw new TrainingError(
      `dynamic sampling at step ${step}: none of the ${drawn} groups drawn in ${rounds} rounds had signal (every ` +
        "group's rollouts earned the same reward), so the batch can never fill. The task is solved (or never " +
        'solved) by this policy: make it harder (or easier), raise group_size, or set dynamic_sampling=false',
    );
  }
  return { groups, builders };
}
