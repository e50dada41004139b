/**
 * The asynchronous off-policy loop (upstream `do_async_training`): `groupsPerBatch` workers keep sampling with
 * whatever policy is current while the trainer consumes finished groups. A group sampled by a policy more than
 * `maxStepsOffPolicy` steps older than the step being trained is discarded and its builder resampled.
 * Differences from upstream: evaluations run inline in the training loop; with `maxStepsOffPolicy` ≥ 1 the trainer
 * sends step i + 1's training as soon as its groups are in, before collecting step i's results (step i + 1 may use
 * groups sampled before step i's update anyway), so under clock cycles a step takes one cycle, not a cycle plus the
 * boundary its results came out at. Workers switch to a new sampler as soon as its save is out.
 * With DAPO's dynamic sampling (`dynamic_sampling`), a fresh group whose rollouts all earned the same reward is not
 * trained on: its problem goes back to the workers to be drawn again, up to `dynamic_sampling_max_rounds` draws per
 * problem (the sync loop redraws a whole step's problems per round instead); a problem still without signal after its
 * last draw fills its place in the batch with nothing, so a step may train on fewer groups.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { iterationDir, recordTime, TrainingError } from '@cookbook/core';
import { initTrace, logTable, scopeHeader } from '@cookbook/logging';
import type { EnvGroupBuilder, TrajectoryGroup } from '@cookbook/training';
import type { RLSamplingClient } from '../clients.js';
import { AsyncQueue } from '../internal/concurrency.js';
import { computeTrajectoryMetrics } from '../metrics.js';
import { actionTokens, hasSignal } from '../rollout-signal.js';
import { doGroupRollout } from '../rollouts.js';
import { submitTrainStep } from '../train-step.js';
import type { AsyncConfig } from './config.js';
import {
  baseMetrics,
  evalsDue,
  exportSummaries,
  type LoopContext,
  logStep,
  mean,
  prepareData,
  runEvals,
  submitUpdate,
  tagsOf,
  trainOptions,
  type UpdateInFlight,
} from './loop-steps.js';

/** A problem handed to the workers, and how many times it has been drawn before (dynamic sampling redraws it). */
interface AsyncJob {
  builder: EnvGroupBuilder;
  /** 1 for a problem's first rollout, n for its n-th. */
  draw: number;
}

interface AsyncResult extends AsyncJob {
  group?: TrajectoryGroup;
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
  const builderQueue = new AsyncQueue<AsyncJob | null>();
  const results = new AsyncQueue<AsyncResult>();
  // Builders are fed batch by batch, a little ahead of the trainer, so workers never idle on the data loader.
  let nextBatchToFeed = ctx.startStep;
  // Builders handed to the workers whose result has not been consumed yet (each yields exactly one result).
  let outstanding = 0;
  const feed = () => {
    if (nextBatchToFeed < ctx.endStep) {
      for (const b of ctx.train.getBatch(nextBatchToFeed)) {
        outstanding++;
        builderQueue.put({ builder: b, draw: 1 });
      }
      nextBatchToFeed++;
    }
  };
  feed();
  feed();
  let stopping = false;
  // Which step a rollout started now will feed: results are consumed in order, `groupsPerBatch` per step, so it is
  // the step being collected plus the batches that the groups it already holds and those in flight fill first.
  let collecting = ctx.startStep;
  let collectedNow = 0;
  let unconsumed = 0;
  const targetStep = () => collecting + Math.floor((collectedNow + unconsumed) / cfg.groupsPerBatch);
  // Workers waiting for a sampler fresh enough for the step their rollout would feed.
  const waiters: (() => void)[] = [];
  const wakeWorkers = () => {
    for (const wake of waiters.splice(0)) wake();
  };
  const setCurrent = (sampler: RLSamplingClient, step: number) => {
    if (current.step >= step) return;
    current = { sampler, step, policy: ctx.policyFor(sampler) };
    wakeWorkers();
  };
  const worker = async () => {
    for (;;) {
      const job = await builderQueue.get();
      if (job === null || stopping) return;
      // With a sampler already too old for the step this rollout would feed, wait for the next one rather than
      // sample a group that would be discarded (and hold up the fresh ones).
      while (targetStep() - current.step > cfg.maxStepsOffPolicy && !stopping) {
        await new Promise<void>((wake) => waiters.push(wake));
      }
      if (stopping) return;
      unconsumed++;
      const { policy, step } = current;
      const t0 = performance.now();
      try {
        const group = await doGroupRollout(job.builder, policy);
        results.put({ ...job, group, samplerStep: step, samplingSeconds: (performance.now() - t0) / 1000 });
      } catch (error) {
        results.put({ ...job, samplerStep: step, samplingSeconds: 0, error });
      }
    }
  };
  const workers = Array.from({ length: cfg.groupsPerBatch }, () => worker());
  // The step whose training is sent but not yet collected (at most one).
  let pending: { step: number; update: UpdateInFlight; metrics: Record<string, number>; stepStart: number } | undefined;
  const finishPending = async () => {
    const p = pending;
    if (p === undefined) return;
    pending = undefined;
    setCurrent(await p.update.finish(), p.step + 1);
    logStep(ctx, p.step, p.metrics, p.stepStart);
  };
  let i = ctx.startStep;
  try {
    for (; i < ctx.endStep && !ctx.run.signal.aborted; i++) {
      const stepStart = performance.now();
      const metrics = baseMetrics(ctx, i);
      // Evaluations see the sampler after every earlier step; on-policy steps need the last step's sampler.
      if (cfg.maxStepsOffPolicy < 1 || evalsDue(ctx, i)) await finishPending();
      Object.assign(metrics, await runEvals(ctx, i, current.sampler));
      const collected: AsyncResult[] = [];
      let discarded = 0;
      // Dynamic sampling: the fresh groups consumed (kept or not), and the places of problems that ran out of draws.
      const drawn: AsyncResult[] = [];
      let exhausted = 0;
      const tWait = performance.now();
      while (collected.length + exhausted < cfg.groupsPerBatch) {
        if (builderQueue.size === 0) feed();
        if (outstanding === 0 && nextBatchToFeed >= ctx.endStep) {
          // The dataset cannot fill another step (its batches hold fewer groups than groups_per_batch).
          await finishPending();
          ctx.run.log(`rl: data exhausted after ${i - ctx.startStep} async steps`);
          return i;
        }
        const r = await results.get();
        outstanding--;
        unconsumed--;
        if (r.error !== undefined) throw r.error;
        if (i - r.samplerStep > cfg.maxStepsOffPolicy) {
          discarded++;
          outstanding++;
          builderQueue.put({ builder: r.builder, draw: r.draw });
          wakeWorkers();
          continue;
        }
        if (ctx.knobs.dynamicSampling) {
          drawn.push(r);
          if (!hasSignal(r.group!)) {
            if (r.draw < ctx.config.dynamicSamplingMaxRounds) {
              outstanding++;
              builderQueue.put({ builder: r.builder, draw: r.draw + 1 });
              wakeWorkers();
            } else {
              exhausted++;
              collectedNow++;
            }
            continue;
          }
        }
        collected.push(r);
        collectedNow++;
        ctx.run.setProgressDetail(`rollouts ${collected.length}/${cfg.groupsPerBatch}`);
      }
      collecting = i + 1;
      collectedNow = 0;
      recordTime(metrics, 'wait_for_samples', tWait);
      if (ctx.knobs.dynamicSampling) {
        Object.assign(metrics, {
          'dynamic_sampling/rounds': Math.max(...drawn.map((r) => r.draw)),
          'dynamic_sampling/groups_drawn': drawn.length,
          'dynamic_sampling/groups_kept': collected.length,
          'dynamic_sampling/extra_ac_tokens': drawn
            .filter((r) => r.draw > 1)
            .reduce((a, r) => a + actionTokens(r.group!), 0),
        });
        if (collected.length === 0) {
          throw new TrainingError(
            `dynamic sampling at step ${i}: none of the ${drawn.length} groups drawn had signal (every group's ` +
              `rollouts earned the same reward, each problem drawn up to dynamic_sampling_max_rounds=` +
              `${ctx.config.dynamicSamplingMaxRounds} times), so the batch can never fill. The task is solved (or never ` +
              'solved) by this policy: make it harder (or easier), raise group_size, or set dynamic_sampling=false',
          );
        }
      }
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
      // The reward metrics describe the policy: with dynamic sampling, every fresh group drawn, not only those kept.
      const described = ctx.knobs.dynamicSampling ? drawn : collected;
      Object.assign(
        metrics,
        computeTrajectoryMetrics(
          described.map((r) => r.group!),
          tagsOf(described.map((r) => r.builder)),
        ),
      );
      exportSummaries(ctx, i, groups, builders, steps);
      const data_D = await prepareData(ctx, groups, metrics, builders);
      const timing = { start: performance.now(), key: 'time/train' };
      const submitted = submitTrainStep(data_D, ctx.training, trainOptions(ctx));
      const update = submitUpdate(ctx, i, data_D, submitted, metrics, timing);
      // Workers sample with the new weights as soon as they are saved, whether or not the trainer has collected.
      const step = i;
      update.sampler.then(
        (sampler) => setCurrent(sampler, step + 1),
        () => undefined,
      );
      // Collect the previous step only now that this one is sent: the service runs this one meanwhile.
      await finishPending();
      pending = { step: i, update, metrics, stepStart };
    }
    await finishPending();
    return i;
  } finally {
    // A step sent but never collected (the loop failed): its results are dropped, without an unhandled rejection.
    pending?.update.finish().catch(() => undefined);
    stopping = true;
    wakeWorkers();
    for (let w = 0; w < workers.length; w++) builderQueue.put(null);
    // In-flight rollouts finish in the background; their results are dropped.
  }
}
