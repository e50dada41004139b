/**
 * The RL training loops (upstream `rl/train.py`): synchronous on-policy, streaming minibatches (sampling overlapped
 * with training, still on-policy) and asynchronous off-policy with a staleness cap. Shared: evaluations every
 * `eval_every` steps, HTML transcripts of the first groups of each iteration, checkpoints every `save_every` steps
 * with exact resume at the next batch, and upstream's metric names.
 * Differences from upstream: evaluations in the async loop run inline in the training loop; on resume, metric rows
 * at or after the resumed step (written after the last checkpoint) are dropped so each step appears once.
 */
import { join } from 'node:path';
import { CheckpointError, ConfigError, type Datum, iterationDir, type TokenCompleter } from '@cookbook/core';
import {
  appendCheckpointRecord,
  applyLogDirDecision,
  type CheckpointRecord,
  checkLogDir,
  checkpointName,
  getLastCheckpoint,
  initTrace,
  LOG_DIR_BEHAVIORS,
  logTable,
  type MetricsLogger,
  scopeHeader,
  setupLogging,
  submitCheckpointSave,
  truncateMetricsFrom,
  writeRunReport,
} from '@cookbook/logging';
import { TinkerTokenCompleter } from '@cookbook/renderers';
import { type ForwardBackwardOutput, ServiceClient } from '@cookbook/tinker-client';
import { z } from 'zod';
import type { RLSamplingClient, RLServiceClient, RLTrainingClient } from './clients.js';
import {
  assembleTrainingData,
  computeAdvantages,
  incorporateKlPenalty,
  removeConstantRewardGroups,
  removeMask,
} from './data-processing.js';
import { type RLEvaluator, RLTestSetEvaluator } from './evaluators.js';
import { AsyncQueue, Semaphore } from './internal/concurrency.js';
import { computeKlSampleTrain, computePostKl, computeTrajectoryMetrics } from './metrics.js';
import { rolloutSummaries, writeRolloutSummaries } from './rollout-summaries.js';
import { doGroupRollout } from './rollouts.js';
import { outputLogprobs, rlAdamParams, trainStep } from './train-step.js';
import type { EnvGroupBuilder, RLDataset, RLDatasetBuilder, TrajectoryGroup } from './types.js';

/** Streaming minibatches: train on each minibatch of groups as soon as its rollouts finish. */
export const StreamMinibatchConfigSchema = z.object({
  groups_per_batch: z.number().int().positive().describe('Groups rolled out per training step.'),
  num_minibatches: z
    .number()
    .int()
    .positive()
    .describe('forward_backward calls per optimizer substep; each runs once its groups are done.'),
});
export type StreamMinibatchConfig = z.infer<typeof StreamMinibatchConfigSchema>;

/** Asynchronous off-policy training with a staleness cap. */
export const AsyncConfigSchema = z.object({
  max_steps_off_policy: z
    .number()
    .int()
    .nonnegative()
    .describe('A group sampled by a policy more than this many steps old is discarded and resampled.'),
  groups_per_batch: z.number().int().positive().describe('Groups per training step (also the number of samplers).'),
});
export type AsyncConfig = z.infer<typeof AsyncConfigSchema>;

/** The RL training config (upstream `rl/train.Config`; non-serialisable parts go in {@link RLTrainDeps}). */
export const RLTrainConfigSchema = z.object({
  log_path: z.string().describe('Folder for config.json, metrics.jsonl, checkpoints.jsonl and transcripts.'),
  model_name: z.string().default('local/qwen3-tiny').describe('Base model to train (LoRA).'),
  learning_rate: z.number().positive().default(4e-5).describe('Adam learning rate (constant).'),
  max_tokens: z.number().int().positive().default(256).describe('Most tokens sampled per turn.'),
  temperature: z.number().nonnegative().default(1).describe('Sampling temperature.'),
  lora_rank: z.number().int().positive().default(32).describe('LoRA rank.'),
  eval_every: z.number().int().nonnegative().default(20).describe('Evaluate every N steps (0 = never).'),
  save_every: z.number().int().nonnegative().default(20).describe('Save a checkpoint every N steps (0 = only final).'),
  num_substeps: z.number().int().positive().default(1).describe('Optimizer steps per batch.'),
  loss_fn: z
    .enum(['importance_sampling', 'ppo', 'cispo', 'dro'])
    .default('importance_sampling')
    .describe('Policy-gradient loss computed by the service.'),
  loss_fn_config: z
    .record(z.string(), z.number())
    .nullable()
    .default(null)
    .describe('Loss settings, e.g. {"clip_low_threshold":0.8,"clip_high_threshold":1.2} or {"beta":0.1}.'),
  kl_penalty_coef: z.number().nonnegative().default(0).describe('KL penalty against the reference model (0 = off).'),
  kl_discount_factor: z.number().min(0).max(1).default(0).describe('Discount of the KL penalty over future tokens.'),
  kl_reference_model: z
    .string()
    .nullable()
    .default(null)
    .describe('Reference model for the KL penalty. Default: model_name.'),
  compute_post_kl: z.boolean().default(false).describe('Log the KL between the policy before and after each step.'),
  remove_constant_reward_groups: z
    .boolean()
    .default(false)
    .describe('Drop groups whose rollouts all earned the same reward.'),
  num_groups_to_log: z.number().int().nonnegative().default(4).describe('Groups per iteration in the HTML transcript.'),
  rollout_json_export: z
    .boolean()
    .default(true)
    .describe('Write iteration_XXXXXX/train_rollout_summaries.jsonl (one line per trajectory).'),
  max_steps: z.number().int().positive().nullable().default(null).describe('Stop after this many steps.'),
  load_checkpoint_path: z
    .string()
    .nullable()
    .default(null)
    .describe('Start from these weights (tinker://…/weights/…), without optimizer state.'),
  behavior_if_log_dir_exists: z
    .enum(LOG_DIR_BEHAVIORS)
    .default('ask')
    .describe('What to do when log_path exists: resume continues from its last checkpoint.'),
  max_concurrent_groups: z
    .number()
    .int()
    .positive()
    .default(64)
    .describe('Most groups rolled out at once (sync and streaming loops).'),
  ttl_seconds: z.number().int().positive().nullable().default(604800).describe('Lifetime of periodic checkpoints.'),
  stream_minibatch_config: StreamMinibatchConfigSchema.nullable().default(null).describe('Streaming minibatches.'),
  async_config: AsyncConfigSchema.nullable().default(null).describe('Asynchronous off-policy training.'),
  wandb_project: z.string().nullable().default(null).describe('W&B project (needs WANDB_API_KEY).'),
  wandb_name: z.string().nullable().default(null).describe('W&B run name.'),
  base_url: z.string().nullable().default(null).describe('Tinker service URL. Default: TINKER_BASE_URL or embedded.'),
});
/** The parsed RL config. */
export type RLTrainConfig = z.infer<typeof RLTrainConfigSchema>;
/** The RL config before defaults (what callers write). */
export type RLTrainConfigInput = z.input<typeof RLTrainConfigSchema>;

/** What the loop needs besides its config. */
export interface RLTrainDeps {
  /** Builds the train (and optional test) dataset. */
  datasetBuilder: RLDatasetBuilder;
  /** Default: a ServiceClient on `base_url` (or the environment / embedded service). */
  serviceClient?: RLServiceClient;
  /** Extra evaluators, run with the test set every `eval_every` steps. */
  evaluators?: RLEvaluator[];
  /** Policy over a sampler. Default: TinkerTokenCompleter with max_tokens and temperature. */
  makePolicy?: (sampler: RLSamplingClient) => TokenCompleter;
  /** Metrics sink. Default: setupLogging on log_path (console table included unless `console: false`). */
  logger?: MetricsLogger;
  /** Console table of metrics. Default true. */
  console?: boolean;
  /** Called after each step's metrics are logged. */
  onStep?: (step: number, metrics: Record<string, number>) => void;
}

/** What a run returns. */
export interface RLTrainResult {
  /** Steps run by this call. */
  stepsRun: number;
  /** The batch this call started at (0, or the resumed checkpoint's batch). */
  startBatch: number;
  /** The final checkpoint, when one was saved. */
  finalCheckpoint?: CheckpointRecord;
}

interface LoopContext {
  config: RLTrainConfig;
  deps: RLTrainDeps;
  training: RLTrainingClient;
  service: RLServiceClient;
  train: RLDataset;
  evaluators: RLEvaluator[];
  reference: RLSamplingClient | undefined;
  logger: MetricsLogger;
  startBatch: number;
  endBatch: number;
  policyFor: (sampler: RLSamplingClient) => TokenCompleter;
}

function tagsOf(builders: readonly EnvGroupBuilder[]): (string | undefined)[] {
  return builders.map((b) => b.logtreeTag?.());
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/**
 * Saves the state and the sampler weights and appends the checkpoint record. Unlike the shared `saveCheckpoint`, a
 * save without a sampler path throws before anything is recorded: the loops sample from that path next.
 */
async function saveRlCheckpoint(
  training: RLTrainingClient,
  name: string,
  logPath: string,
  loopState: Omit<CheckpointRecord, 'name'>,
  ttlSeconds: number | null,
): Promise<CheckpointRecord & { sampler_path: string }> {
  const { sampler_path, ...paths } = await submitCheckpointSave(training, name, { kind: 'both', ttlSeconds });
  if (sampler_path === undefined) throw new CheckpointError(`save_weights_for_sampler("${name}") returned no path`);
  const record = { name, ...loopState, ...paths, sampler_path };
  appendCheckpointRecord(logPath, record);
  return record;
}

/** Roll out `builders` with `policy`; the first `numToLog` groups go to an HTML transcript at `transcriptPath`. */
async function rolloutGroups(
  builders: readonly EnvGroupBuilder[],
  policy: TokenCompleter,
  numToLog: number,
  transcriptPath: string,
  title: string,
  limit: number,
): Promise<TrajectoryGroup[]> {
  const sem = new Semaphore(limit);
  const run = (b: EnvGroupBuilder) => sem.run(() => doGroupRollout(b, policy));
  const nLog = Math.min(numToLog, builders.length);
  const logged =
    nLog > 0
      ? initTrace(title, transcriptPath, () =>
          Promise.all(builders.slice(0, nLog).map((b, j) => scopeHeader(`Group ${j}`, () => run(b)))),
        )
      : Promise.resolve([] as TrajectoryGroup[]);
  const rest = Promise.all(builders.slice(nLog).map(run));
  return [...(await logged), ...(await rest)];
}

function exportSummaries(
  ctx: LoopContext,
  step: number,
  groups: readonly TrajectoryGroup[],
  builders: readonly EnvGroupBuilder[],
  samplerSteps?: readonly number[],
): void {
  if (!ctx.config.rollout_json_export) return;
  const summaries = rolloutSummaries(groups, {
    split: 'train',
    iteration: step,
    tags_P: tagsOf(builders),
    ...(samplerSteps ? { samplerSteps_P: samplerSteps } : {}),
  });
  writeRolloutSummaries(join(ctx.config.log_path, iterationDir(step), 'train_rollout_summaries.jsonl'), summaries);
}

/** Advantages, datums and the KL penalty for a set of groups. */
async function prepareData(
  ctx: LoopContext,
  groups: TrajectoryGroup[],
  metrics: Record<string, number>,
): Promise<Datum[]> {
  const kept = ctx.config.remove_constant_reward_groups ? removeConstantRewardGroups(groups) : groups;
  const advantages_P_G = computeAdvantages(kept);
  const { data_D } = assembleTrainingData(kept, advantages_P_G);
  if (ctx.config.kl_penalty_coef > 0 && ctx.reference !== undefined && data_D.length > 0) {
    const kl = await incorporateKlPenalty(
      data_D,
      ctx.reference,
      ctx.config.kl_penalty_coef,
      ctx.config.kl_discount_factor,
    );
    for (const [k, v] of Object.entries(kl)) metrics[k] = v;
  }
  return data_D;
}

/** After an update: a checkpoint (every save_every steps) or an ephemeral save, and the new sampler. */
async function nextSampler(
  ctx: LoopContext,
  stepDone: number,
  metrics: Record<string, number>,
): Promise<RLSamplingClient> {
  const start = performance.now();
  let sampler: RLSamplingClient;
  const { save_every, log_path, ttl_seconds } = ctx.config;
  if (save_every > 0 && stepDone % save_every === 0 && stepDone < ctx.endBatch) {
    const rec = await saveRlCheckpoint(
      ctx.training,
      checkpointName(stepDone),
      log_path,
      { batch: stepDone },
      ttl_seconds,
    );
    sampler = await ctx.service.createSamplingClient({ modelPath: rec.sampler_path });
  } else {
    sampler = await ctx.training.saveWeightsAndGetSamplingClient();
  }
  metrics['time/save'] = (performance.now() - start) / 1000;
  return sampler;
}

async function runEvals(ctx: LoopContext, step: number, policy: TokenCompleter): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  if (ctx.config.eval_every <= 0 || step % ctx.config.eval_every !== 0 || ctx.evaluators.length === 0) return out;
  const start = performance.now();
  for (const ev of ctx.evaluators) {
    const path = join(ctx.config.log_path, iterationDir(step), `eval_${ev.name}.html`);
    Object.assign(out, await ev.evaluate(policy, ctx.config.num_groups_to_log > 0 ? path : undefined));
  }
  out['time/eval'] = (performance.now() - start) / 1000;
  return out;
}

/** Train on prepared data, then KL metrics, new sampler and optional post-update KL. */
async function trainAndUpdate(
  ctx: LoopContext,
  step: number,
  data_D: Datum[],
  metrics: Record<string, number>,
): Promise<RLSamplingClient> {
  const t0 = performance.now();
  const { trainingLogprobs_D, metrics: lossMetrics } = await trainStep(data_D, ctx.training, {
    learningRate: ctx.config.learning_rate,
    numSubsteps: ctx.config.num_substeps,
    lossFn: ctx.config.loss_fn,
    ...(ctx.config.loss_fn_config ? { lossFnConfig: ctx.config.loss_fn_config } : {}),
  });
  metrics['time/train'] = (performance.now() - t0) / 1000;
  Object.assign(metrics, lossMetrics, computeKlSampleTrain(data_D, trainingLogprobs_D));
  const sampler = await nextSampler(ctx, step + 1, metrics);
  if (ctx.config.compute_post_kl && data_D.length > 0) Object.assign(metrics, await computePostKl(data_D, sampler));
  return sampler;
}

function baseMetrics(ctx: LoopContext, step: number): Record<string, number> {
  return {
    'progress/batch': step,
    'optim/lr': ctx.config.learning_rate,
    'progress/done_frac': (step + 1) / ctx.endBatch,
  };
}

function logStep(ctx: LoopContext, step: number, metrics: Record<string, number>, stepStart: number): void {
  metrics['time/total'] = (performance.now() - stepStart) / 1000;
  ctx.logger.logMetrics(metrics, step);
  ctx.deps.onStep?.(step, metrics);
}

/** Synchronous on-policy loop: sample the batch with the current policy, train, repeat. */
async function doSyncTraining(ctx: LoopContext, sampler0: RLSamplingClient): Promise<void> {
  let sampler = sampler0;
  for (let i = ctx.startBatch; i < ctx.endBatch; i++) {
    const stepStart = performance.now();
    const metrics = baseMetrics(ctx, i);
    const policy = ctx.policyFor(sampler);
    Object.assign(metrics, await runEvals(ctx, i, policy));
    const builders = ctx.train.getBatch(i);
    const t0 = performance.now();
    const groups = await rolloutGroups(
      builders,
      policy,
      ctx.config.num_groups_to_log,
      join(ctx.config.log_path, iterationDir(i), 'train.html'),
      `RL iteration ${i}`,
      ctx.config.max_concurrent_groups,
    );
    metrics['time/sample'] = (performance.now() - t0) / 1000;
    Object.assign(metrics, computeTrajectoryMetrics(groups, tagsOf(builders)));
    exportSummaries(ctx, i, groups, builders);
    const data_D = await prepareData(ctx, groups, metrics);
    sampler = await trainAndUpdate(ctx, i, data_D, metrics);
    logStep(ctx, i, metrics, stepStart);
  }
}

/**
 * Streaming minibatches: all groups of the step are sampled with the current policy; each minibatch's
 * forward_backward is submitted as soon as its groups are done, and one optim_step closes each substep.
 */
async function doStreamMinibatchTraining(
  ctx: LoopContext,
  sampler0: RLSamplingClient,
  stream: StreamMinibatchConfig,
): Promise<void> {
  const nSub = ctx.config.num_substeps;
  if (stream.groups_per_batch % nSub !== 0 || (stream.groups_per_batch / nSub) % stream.num_minibatches !== 0) {
    throw new ConfigError(
      `stream_minibatch_config: groups_per_batch (${stream.groups_per_batch}) must split evenly into num_substeps ` +
        `(${nSub}) × num_minibatches (${stream.num_minibatches})`,
      { key: 'stream_minibatch_config.num_minibatches' },
    );
  }
  const perMinibatch = stream.groups_per_batch / nSub / stream.num_minibatches;
  let sampler = sampler0;
  for (let i = ctx.startBatch; i < ctx.endBatch; i++) {
    const stepStart = performance.now();
    const metrics = baseMetrics(ctx, i);
    const policy = ctx.policyFor(sampler);
    Object.assign(metrics, await runEvals(ctx, i, policy));
    const builders = ctx.train.getBatch(i);
    if (builders.length !== stream.groups_per_batch) {
      throw new ConfigError(
        `the dataset serves ${builders.length} groups per batch but stream_minibatch_config.groups_per_batch is ${stream.groups_per_batch}`,
        { key: 'stream_minibatch_config.groups_per_batch' },
      );
    }
    const queue = new AsyncQueue<{ group?: TrajectoryGroup; builder?: EnvGroupBuilder; error?: unknown }>();
    const sem = new Semaphore(ctx.config.max_concurrent_groups);
    const nLog = Math.min(ctx.config.num_groups_to_log, builders.length);
    const t0 = performance.now();
    const launch = (b: EnvGroupBuilder) =>
      sem
        .run(() => doGroupRollout(b, policy))
        .then(
          (group) => queue.put({ group, builder: b }),
          (error: unknown) => queue.put({ error }),
        );
    const logged =
      nLog > 0
        ? initTrace(`RL iteration ${i}`, join(ctx.config.log_path, iterationDir(i), 'train.html'), () =>
            Promise.all(builders.slice(0, nLog).map((b, j) => scopeHeader(`Group ${j}`, () => launch(b)))),
          )
        : Promise.resolve([]);
    const rest = Promise.all(builders.slice(nLog).map(launch));

    const allGroups: TrajectoryGroup[] = [];
    const allBuilders: EnvGroupBuilder[] = [];
    const allData: Datum[] = [];
    const fbFutures: PromiseLike<ForwardBackwardOutput>[] = [];
    const optimFutures: PromiseLike<unknown>[] = [];
    let lastSampleDone = 0;
    for (let s = 0; s < nSub; s++) {
      for (let m = 0; m < stream.num_minibatches; m++) {
        const mini: TrajectoryGroup[] = [];
        while (mini.length < perMinibatch) {
          const item = await queue.get();
          if (item.error !== undefined) throw item.error;
          mini.push(item.group!);
          allBuilders.push(item.builder!);
        }
        lastSampleDone = performance.now();
        allGroups.push(...mini);
        const data = await prepareData(ctx, mini, metrics);
        if (data.length === 0) continue;
        allData.push(...data);
        fbFutures.push(
          ctx.training.forwardBackward(
            data.map(removeMask),
            ctx.config.loss_fn,
            ctx.config.loss_fn_config ?? undefined,
          ),
        );
      }
      optimFutures.push(ctx.training.optimStep(rlAdamParams(ctx.config.learning_rate)));
    }
    await Promise.all([logged, rest]);
    metrics['time/sample'] = (lastSampleDone - t0) / 1000;
    const tTrain = performance.now();
    const outs = await Promise.all(fbFutures);
    await Promise.all(optimFutures);
    metrics['time/train_tail'] = (performance.now() - tTrain) / 1000;
    const trainingLogprobs_D = outs.flatMap(outputLogprobs);
    for (const out of outs)
      for (const [k, v] of Object.entries(out.metrics)) metrics[k] = (metrics[k] ?? 0) + v / outs.length;
    Object.assign(metrics, computeTrajectoryMetrics(allGroups, tagsOf(allBuilders)));
    exportSummaries(ctx, i, allGroups, allBuilders);
    Object.assign(metrics, computeKlSampleTrain(allData, trainingLogprobs_D));
    sampler = await nextSampler(ctx, i + 1, metrics);
    if (ctx.config.compute_post_kl && allData.length > 0) Object.assign(metrics, await computePostKl(allData, sampler));
    logStep(ctx, i, metrics, stepStart);
  }
}

interface AsyncResult {
  group?: TrajectoryGroup;
  builder: EnvGroupBuilder;
  samplerStep: number;
  samplingSeconds: number;
  error?: unknown;
}

/**
 * Asynchronous off-policy loop: `groups_per_batch` workers keep sampling with whatever policy is current while
 * the trainer consumes finished groups. A group sampled by a policy more than `max_steps_off_policy` steps older
 * than the step being trained is discarded and its builder resampled.
 */
async function doAsyncTraining(ctx: LoopContext, sampler0: RLSamplingClient, cfg: AsyncConfig): Promise<void> {
  let current = { sampler: sampler0, step: ctx.startBatch, policy: ctx.policyFor(sampler0) };
  const builderQueue = new AsyncQueue<EnvGroupBuilder | null>();
  const results = new AsyncQueue<AsyncResult>();
  // Builders are fed batch by batch, a little ahead of the trainer, so workers never idle on the data loader.
  let nextBatchToFeed = ctx.startBatch;
  // Builders handed to the workers whose result has not been consumed yet (each yields exactly one result).
  let outstanding = 0;
  const feed = () => {
    if (nextBatchToFeed < ctx.endBatch) {
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
  const workers = Array.from({ length: cfg.groups_per_batch }, () => worker());
  try {
    for (let i = ctx.startBatch; i < ctx.endBatch; i++) {
      const stepStart = performance.now();
      const metrics = baseMetrics(ctx, i);
      Object.assign(metrics, await runEvals(ctx, i, current.policy));
      const collected: AsyncResult[] = [];
      let discarded = 0;
      const tWait = performance.now();
      while (collected.length < cfg.groups_per_batch) {
        if (builderQueue.size === 0) feed();
        if (outstanding === 0 && nextBatchToFeed >= ctx.endBatch) {
          // The dataset cannot fill another step (its batches hold fewer groups than groups_per_batch).
          process.stderr.write(`rl: data exhausted after ${i - ctx.startBatch} async steps\n`);
          return;
        }
        const r = await results.get();
        outstanding--;
        if (r.error !== undefined) throw r.error;
        if (i - r.samplerStep > cfg.max_steps_off_policy) {
          discarded++;
          outstanding++;
          builderQueue.put(r.builder);
          continue;
        }
        collected.push(r);
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
      if (ctx.config.num_groups_to_log > 0) {
        await initTrace(`RL iteration ${i} (async)`, join(ctx.config.log_path, iterationDir(i), 'train.html'), () => {
          // Async rollouts ran outside any trace; record their rewards per group.
          for (const [j, r] of collected.slice(0, ctx.config.num_groups_to_log).entries()) {
            scopeHeader(`Group ${j} (sampler step ${r.samplerStep})`, () => logRewardsTable(r.group!));
          }
        });
      }
      Object.assign(metrics, computeTrajectoryMetrics(groups, tagsOf(collected.map((r) => r.builder))));
      exportSummaries(
        ctx,
        i,
        groups,
        collected.map((r) => r.builder),
        steps,
      );
      const data_D = await prepareData(ctx, groups, metrics);
      const sampler = await trainAndUpdate(ctx, i, data_D, metrics);
      current = { sampler, step: i + 1, policy: ctx.policyFor(sampler) };
      logStep(ctx, i, metrics, stepStart);
    }
  } finally {
    stopping = true;
    for (let w = 0; w < workers.length; w++) builderQueue.put(null);
    // In-flight rollouts finish in the background; their results are dropped.
  }
}

function logRewardsTable(group: TrajectoryGroup): void {
  const totals = group.getTotalRewards();
  logTable(
    totals.map((r, i) => ({ trajectory: i, total_reward: r, steps: group.trajectories_G[i]!.transitions.length })),
  );
}

/**
 * Run RL training. Resumes from `log_path/checkpoints.jsonl` when the folder exists and
 * `behavior_if_log_dir_exists` is `resume` (or answered so).
 */
export async function train(configInput: RLTrainConfigInput, deps: RLTrainDeps): Promise<RLTrainResult> {
  const config = RLTrainConfigSchema.parse(configInput);
  const decision = await checkLogDir(config.log_path, config.behavior_if_log_dir_exists);
  if (decision === 'exit') return { stepsRun: 0, startBatch: 0 };
  applyLogDirDecision(config.log_path, decision);
  const resume = decision === 'resume' ? getLastCheckpoint(config.log_path) : undefined;
  const startBatch = resume?.batch ?? 0;
  if (decision === 'resume') truncateMetricsFrom(config.log_path, startBatch);
  const logger =
    deps.logger ??
    setupLogging({
      logDir: config.log_path,
      config,
      console: deps.console ?? true,
      ...(config.wandb_project ? { wandbProject: config.wandb_project } : {}),
      ...(config.wandb_name ? { wandbName: config.wandb_name } : {}),
    });
  if (deps.logger !== undefined) deps.logger.logHparams(config);
  const service: RLServiceClient =
    deps.serviceClient ?? new ServiceClient(config.base_url ? { baseURL: config.base_url } : {});
  try {
    const { train: trainSet, test } = await deps.datasetBuilder();
    const endBatch = Math.min(config.max_steps ?? trainSet.length, trainSet.length);
    let training: RLTrainingClient;
    let sampler: RLSamplingClient;
    if (resume?.state_path !== undefined) {
      training = await service.createTrainingClientFromState(resume.state_path, { optimizer: true });
      sampler =
        resume.sampler_path !== undefined
          ? await service.createSamplingClient({ modelPath: resume.sampler_path })
          : await training.saveWeightsAndGetSamplingClient();
    } else {
      training =
        config.load_checkpoint_path !== null
          ? await service.createTrainingClientFromState(config.load_checkpoint_path, { optimizer: false })
          : await service.createLoraTrainingClient({ baseModel: config.model_name, rank: config.lora_rank });
      sampler = await training.saveWeightsAndGetSamplingClient();
    }
    const reference =
      config.kl_penalty_coef > 0
        ? await service.createSamplingClient({ baseModel: config.kl_reference_model ?? config.model_name })
        : undefined;
    const policyFor =
      deps.makePolicy ??
      ((s: RLSamplingClient) =>
        new TinkerTokenCompleter({ samplingClient: s, maxTokens: config.max_tokens, temperature: config.temperature }));
    const evaluators = [
      ...(test ? [new RLTestSetEvaluator(test, 'test', config.num_groups_to_log)] : []),
      ...(deps.evaluators ?? []),
    ];
    const ctx: LoopContext = {
      config,
      deps,
      training,
      service,
      train: trainSet,
      evaluators,
      reference,
      logger,
      startBatch,
      endBatch,
      policyFor,
    };
    if (config.async_config !== null) await doAsyncTraining(ctx, sampler, config.async_config);
    else if (config.stream_minibatch_config !== null)
      await doStreamMinibatchTraining(ctx, sampler, config.stream_minibatch_config);
    else await doSyncTraining(ctx, sampler);

    let finalCheckpoint: CheckpointRecord | undefined;
    if (startBatch < endBatch) {
      finalCheckpoint = await saveRlCheckpoint(
        training,
        'final',
        config.log_path,
        { batch: endBatch, final: true },
        null,
      );
    }
    return {
      stepsRun: Math.max(0, endBatch - startBatch),
      startBatch,
      ...(finalCheckpoint ? { finalCheckpoint } : {}),
    };
  } finally {
    await logger.close();
    try {
      await writeRunReport(config.log_path);
    } catch {
      // the report is a convenience; a failure must not hide the run's outcome
    }
  }
}
