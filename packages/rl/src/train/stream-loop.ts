/**
 * Streaming minibatches (upstream `do_sync_training_with_stream_minibatch`): every group of the step is sampled with
 * the current policy; each minibatch's forward_backward is submitted as soon as its groups are done, and one
 * optim_step closes each substep. Still on-policy: the step's update happens after all its samples.
 */
import { performance } from 'node:perf_hooks';
import { ConfigError, type Datum, recordTime } from '@cookbook/core';
import type { EnvGroupBuilder, TrajectoryGroup } from '@cookbook/training';
import type { RLSamplingClient } from '../clients.js';
import { AsyncQueue } from '../internal/concurrency.js';
import { computeTrajectoryMetrics } from '../metrics.js';
import { rlAdamParams, type SubmittedTrainStep, submitForwardBackward } from '../train-step.js';
import type { StreamMinibatchConfig } from './config.js';
import {
  baseMetrics,
  exportSummaries,
  type LoopContext,
  logStep,
  prepareData,
  rolloutGroups,
  rolloutOptions,
  runEvals,
  submitUpdate,
  tagsOf,
  trainOptions,
} from './loop-steps.js';

function checkStreamConfig(stream: StreamMinibatchConfig, numSubsteps: number): number {
  if (
    stream.groupsPerBatch % numSubsteps !== 0 ||
    (stream.groupsPerBatch / numSubsteps) % stream.numMinibatches !== 0
  ) {
    throw new ConfigError(
      `stream_minibatch_config: groups_per_batch (${stream.groupsPerBatch}) must split evenly into num_substeps ` +
        `(${numSubsteps}) × num_minibatches (${stream.numMinibatches})`,
      { key: 'stream_minibatch_config.num_minibatches' },
    );
  }
  return stream.groupsPerBatch / numSubsteps / stream.numMinibatches;
}

/** Runs steps from `ctx.startStep` until `ctx.endStep` or an interruption; returns the step it stopped at. */
export async function doStreamMinibatchTraining(
  ctx: LoopContext,
  sampler0: RLSamplingClient,
  stream: StreamMinibatchConfig,
): Promise<number> {
  const nSub = ctx.config.numSubsteps;
  const perMinibatch = checkStreamConfig(stream, nSub);
  const opts = trainOptions(ctx);
  let sampler = sampler0;
  let i = ctx.startStep;
  for (; i < ctx.endStep && !ctx.run.signal.aborted; i++) {
    const stepStart = performance.now();
    const metrics = baseMetrics(ctx, i);
    const policy = ctx.policyFor(sampler);
    Object.assign(metrics, await runEvals(ctx, i, sampler));
    const builders = ctx.train.getBatch(i);
    if (builders.length !== stream.groupsPerBatch) {
      throw new ConfigError(
        `the dataset serves ${builders.length} groups per batch but stream_minibatch_config.groups_per_batch is ${stream.groupsPerBatch}`,
        { key: 'stream_minibatch_config.groups_per_batch' },
      );
    }
    const finished = new AsyncQueue<{ group: TrajectoryGroup; builder: EnvGroupBuilder }>();
    const t0 = performance.now();
    const rollouts = rolloutGroups(builders, policy, {
      ...rolloutOptions(ctx, i),
      onGroup: (group, builder) => finished.put({ group, builder }),
    });
    // A failed rollout rejects `rollouts`; racing it against the queue surfaces the error instead of waiting forever.
    const failure = rollouts.then(
      () => new Promise<never>(() => {}),
      (error: unknown) => Promise.reject(error),
    );
    const allGroups: TrajectoryGroup[] = [];
    const allBuilders: EnvGroupBuilder[] = [];
    const allData: Datum[] = [];
    const submitted: SubmittedTrainStep = { forwardBackwards: [], optimSteps: [] };
    let lastSampleDone = t0;
    for (let s = 0; s < nSub; s++) {
      for (let m = 0; m < stream.numMinibatches; m++) {
        const mini: TrajectoryGroup[] = [];
        const miniBuilders: EnvGroupBuilder[] = [];
        while (mini.length < perMinibatch) {
          const item = await Promise.race([finished.get(), failure]);
          mini.push(item.group);
          miniBuilders.push(item.builder);
          allBuilders.push(item.builder);
        }
        lastSampleDone = performance.now();
        allGroups.push(...mini);
        const data = await prepareData(ctx, mini, metrics, miniBuilders);
        if (data.length === 0) continue;
        allData.push(...data);
        submitted.forwardBackwards.push(submitForwardBackward(data, ctx.training, opts));
      }
      submitted.optimSteps.push(ctx.training.optimStep(rlAdamParams(ctx.config.learningRate)));
    }
    // The next sampler's save goes right behind the last optim_step (it comes out with the step's cycle).
    const update = submitUpdate(ctx, i, allData, submitted, metrics, {
      start: performance.now(),
      key: 'time/train_tail',
    });
    await rollouts;
    recordTime(metrics, 'sample', t0, lastSampleDone);
    sampler = await update.finish();
    Object.assign(metrics, computeTrajectoryMetrics(allGroups, tagsOf(allBuilders)));
    exportSummaries(ctx, i, allGroups, allBuilders);
    logStep(ctx, i, metrics, stepStart);
  }
  return i;
}
