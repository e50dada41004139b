/** The synchronous on-policy loop (upstream `do_sync_training`): sample the batch with the current policy, train. */
import { performance } from 'node:perf_hooks';
import type { RLSamplingClient } from '../clients.js';
import { computeTrajectoryMetrics } from '../metrics.js';
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
    const builders = ctx.train.getBatch(i);
    const t0 = performance.now();
    const groups = await rolloutGroups(builders, policy, rolloutOptions(ctx, i));
    metrics['time/sample'] = (performance.now() - t0) / 1000;
    Object.assign(metrics, computeTrajectoryMetrics(groups, tagsOf(builders)));
    exportSummaries(ctx, i, groups, builders);
    const data_D = await prepareData(ctx, groups, metrics, builders);
    sampler = await trainAndUpdate(ctx, i, data_D, metrics);
    logStep(ctx, i, metrics, stepStart);
  }
  return i;
}
