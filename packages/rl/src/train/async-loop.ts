/**
 * The asynchronous off-policy loop (upstream `do_async_training`): `groupsPerBatch` workers keep sampling with
 * whatever policy is current while the trainer consumes finished groups. A group sampled by a policy more than
 * `maxStepsOffPolicy` steps older than the step being trained is discarded and its builder resampled.
 * Difference from upstream: evaluations run inline in the training loop.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { iterationDir } from '@cookbook/core';
import { initTrace, logTable, scopeHeader } from '@cookbook/logging';
import type { RLSamplingClient } from '../clients.js';
import { AsyncQueue } from '../internal/concurrency.js';
import { computeTrajectoryMetrics } from '../metrics.js';
import { doGroupRollout } from '../rollouts.js';
import type { EnvGroupBuilder, TrajectoryGroup } from '../types.js';
import type { AsyncConfig } from './config.js';
import {
  baseMetrics,
  exportSummaries,
  type LoopContext,
  logStep,
  mean,
  prepareData,
  runEvals,
  tagsOf,
  trainAndUpdate,
} from './loop-steps.js';

interface AsyncResult {
  group?: TrajectoryGroup;
  builder: EnvGroupBuilder;
  samplerStep: number;
  samplingSeconds: number;
  error?: unknown;
}

function logRewardsTable(group: TrajectoryGroup): void {
  const totals = group.getTotalRewards();
  logTable(
    totals.map((r, i) => ({ trajectory: i, total_reward: r, steps: group.trajectories_G[i]!.transitions.length })),
  );
}

/** Runs steps from `ctx.startStep` until `ctx.endStep`, an interruption or the end of the data; returns the step it stopped at. */
export async function doAsyncTraining(ctx: LoopContext, sampler0: RLSamplingClient, cfg: AsyncConfig): Promise<number> {
  let current = { sampler: sampler0, step: ctx.startStep, policy: ctx.policyFor(sampler0) };
  const builderQueue = new AsyncQueue<EnvGroupBuilder | null>();
  const results = new AsyncQueue<AsyncResult>();
  // Builders are fed batch by batch, a little ahead of the trainer, so workers never idle on the data loader.
  let nextBatchToFeed = ctx.startStep;
  // Builders handed to the workers whose result has not been consumed yet (each yields exactly one result).
  let outstanding = 0;
  const feed = () => {
    if (nextBatchToFeed < ctx.endStep) {
      for (const b of ctx.train.getBatch(nextBatchToFeed)) {
        outstanding++;
        builderQueue.put(b);
      }
      nextBatchToFeed++;
    }
  };
  feed();
  feed();
  let stopping = false;
  const worker = async () => {
    for (;;) {
      const builder = await builderQueue.get();
      if (builder === null || stopping) return;
      const { policy, step } = current;
      const t0 = performance.now();
      try {
        const group = await doGroupRollout(builder, policy);
        results.put({ group, builder, samplerStep: step, samplingSeconds: (performance.now() - t0) / 1000 });
      } catch (error) {
        results.put({ builder, samplerStep: step, samplingSeconds: 0, error });
      }
    }
  };
  const workers = Array.from({ length: cfg.groupsPerBatch }, () => worker());
  let i = ctx.startStep;
  try {
    for (; i < ctx.endStep && !ctx.run.signal.aborted; i++) {
      const stepStart = performance.now();
      const metrics = baseMetrics(ctx, i);
      Object.assign(metrics, await runEvals(ctx, i, current.sampler));
      const collected: AsyncResult[] = [];
      let discarded = 0;
      const tWait = performance.now();
      while (collected.length < cfg.groupsPerBatch) {
        if (builderQueue.size === 0) feed();
        if (outstanding === 0 && nextBatchToFeed >= ctx.endStep) {
          // The dataset cannot fill another step (its batches hold fewer groups than groups_per_batch).
          ctx.run.log(`rl: data exhausted after ${i - ctx.startStep} async steps`);
          return i;
        }
        const r = await results.get();
        outstanding--;
        if (r.error !== undefined) throw r.error;
        if (i - r.samplerStep > cfg.maxStepsOffPolicy) {
          discarded++;
          outstanding++;
          builderQueue.put(r.builder);
          continue;
        }
        collected.push(r);
        ctx.run.setProgressDetail(`rollouts ${collected.length}/${cfg.groupsPerBatch}`);
      }
      metrics['time/wait_for_samples'] = (performance.now() - tWait) / 1000;
      const groups = collected.map((r) => r.group!);
      const steps = collected.map((r) => r.samplerStep);
      const times = collected.map((r) => r.samplingSeconds);
      Object.assign(metrics, {
        'sampling_client/step_max': Math.max(...steps),
        'sampling_client/step_min': Math.min(...steps),
        'sampling_client/step_mean': mean(steps),
        'time/sampling_time_max': Math.max(...times),
        'time/sampling_time_min': Math.min(...times),
        'time/sampling_time_mean': mean(times),
        'async/discarded_stale_groups': discarded,
      });
      if (ctx.config.numGroupsToLog > 0) {
        await initTrace(`RL iteration ${i} (async)`, join(ctx.config.logPath, iterationDir(i), 'train.html'), () => {
          // Async rollouts ran outside any trace; record their rewards per group.
          for (const [j, r] of collected.slice(0, ctx.config.numGroupsToLog).entries()) {
            scopeHeader(`Group ${j} (sampler step ${r.samplerStep})`, () => logRewardsTable(r.group!));
          }
        });
      }
      const builders = collected.map((r) => r.builder);
      Object.assign(metrics, computeTrajectoryMetrics(groups, tagsOf(builders)));
      exportSummaries(ctx, i, groups, builders, steps);
      const data_D = await prepareData(ctx, groups, metrics, builders);
      const sampler = await trainAndUpdate(ctx, i, data_D, metrics);
      current = { sampler, step: i + 1, policy: ctx.policyFor(sampler) };
      logStep(ctx, i, metrics, stepStart);
    }
    return i;
  } finally {
    stopping = true;
    for (let w = 0; w < workers.length; w++) builderQueue.put(null);
    // In-flight rollouts finish in the background; their results are dropped.
  }
}
