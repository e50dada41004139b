/**
 * The pieces every RL loop shares (upstream `rl/train.py` helpers): rolling groups out with transcripts, turning
 * groups into datums (advantages, KL penalty), evaluations, the update and the next sampler, checkpoints, and the
 * per-step metrics line.
 */

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  CheckpointError,
  type Datum,
  deriveSeed,
  iterationDir,
  lossInput,
  recordTime,
  type TokenCompleter,
} from '@cookbook/core';
import { initTrace, scopeHeader } from '@cookbook/logging';
import { getTokenizer } from '@cookbook/tokenizers';

import type {
  CheckpointManager,
  EnvGroupBuilder,
  RLDataset,
  RunContext,
  SaveKind,
  TrajectoryGroup,
} from '@cookbook/training';
import { runEvaluators, type SamplingClientEvaluator } from '@cookbook/training';
import { estimateAdvantages, overlongPenalty } from '../advantages.js';
import type { AlgorithmKnobs } from '../algorithms.js';
import type { RLSamplingClient, RLServiceClient, RLTrainingClient } from '../clients.js';
import {
  assembleTrainingData,
  incorporateKlPenalty,
  removeConstantRewardGroups,
  transformAdvantages,
} from '../data-processing.js';
import { Semaphore } from '../internal/concurrency.js';
import { applyLossAggregation } from '../loss-variants.js';
import { computeKlSampleTrain, computePostKl } from '../metrics.js';
import { type DecodeTokens, rolloutSummaries, writeRolloutSummaries } from '../rollout-summaries.js';
import { doGroupRollout } from '../rollouts.js';
import { collectTrainStep, type SubmittedTrainStep, submitTrainStep } from '../train-step.js';
import type { RLTrainConfig, RLTrainDeps } from './config.js';

/** Everything a loop reads while it runs. */
export interface LoopContext {
  config: RLTrainConfig & { learningRate: number };
  /** The algorithm's knobs as resolved from the config and its preset (`resolveAlgorithm`). */
  knobs: AlgorithmKnobs;
  deps: RLTrainDeps;
  run: RunContext;
  training: RLTrainingClient;
  service: RLServiceClient;
  train: RLDataset;
  evaluators: SamplingClientEvaluator[];
  /** Run every `infrequentEvalEvery` steps. */
  infrequentEvaluators: SamplingClientEvaluator[];
  reference: RLSamplingClient | undefined;
  startStep: number;
  endStep: number;
  policyFor: (sampler: RLSamplingClient) => TokenCompleter;
  /** Steps whose data carried no training signal (every advantage 0, or no datum at all). */
  noSignalSteps: number[];
  /** When to save and what to keep (periodic, rolling, final); its records follow the steps' metrics rows. */
  checkpoints: CheckpointManager;
  /** Tokens trained so far (across resumes), for `saveEveryTokens`. */
  elapsedTokens: number;
}

export function tagsOf(builders: readonly EnvGroupBuilder[]): (string | undefined)[] {
  return builders.map((b) => b.logtreeTag?.());
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/**
 * Starts rolling out `builders` with `policy` (at most `limit` groups at once); the first `numToLog` groups go to
 * an HTML transcript at `transcriptPath`. `onGroup` sees each group as soon as it is done (streaming loops train on
 * it); the promise resolves with every group in builder order.
 */
export async function rolloutGroups(
  builders: readonly EnvGroupBuilder[],
  policy: TokenCompleter,
  options: {
    numToLog: number;
    transcriptPath: string;
    title: string;
    limit: number;
    onGroup?: (group: TrajectoryGroup, builder: EnvGroupBuilder) => void;
    onProgress?: (done: number, total: number) => void;
    /** Sampling seed of the batch: group j rolls out with a seed derived from it and j. Omitted: random. */
    seed?: number;
  },
): Promise<TrajectoryGroup[]> {
  const sem = new Semaphore(options.limit);
  let done = 0;
  const { seed } = options;
  const run = (b: EnvGroupBuilder, j: number) =>
    sem
      .run(() => doGroupRollout(b, policy, seed === undefined ? {} : { seed: deriveSeed(seed, j) }))
      .then((group) => {
        done++;
        options.onProgress?.(done, builders.length);
        options.onGroup?.(group, b);
        return group;
      });
  const nLog = Math.min(options.numToLog, builders.length);
  const logged =
    nLog > 0
      ? initTrace(options.title, options.transcriptPath, () =>
          Promise.all(builders.slice(0, nLog).map((b, j) => scopeHeader(`Group ${j}`, () => run(b, j)))),
        )
      : Promise.resolve([] as TrajectoryGroup[]);
  const rest = Promise.all(builders.slice(nLog).map((b, j) => run(b, nLog + j)));
  return [...(await logged), ...(await rest)];
}

/** The rollout options of step `step` of a loop. */
export function rolloutOptions(ctx: LoopContext, step: number) {
  return {
    numToLog: ctx.config.numGroupsToLog,
    transcriptPath: join(ctx.config.logPath, iterationDir(step), 'train.html'),
    title: `RL iteration ${step}`,
    limit: ctx.config.maxConcurrentGroups,
    ...(ctx.config.samplingSeed === null ? {} : { seed: deriveSeed(ctx.config.samplingSeed, step) }),
    onProgress: (done: number, total: number) => ctx.run.setProgressDetail(`rollouts ${done}/${total}`),
  };
}

export function exportSummaries(
  ctx: LoopContext,
  step: number,
  groups: readonly TrajectoryGroup[],
  builders: readonly EnvGroupBuilder[],
  samplerSteps?: readonly number[],
): void {
  if (!ctx.config.rolloutJsonExport) return;
  const decode = decoderOf(ctx.config.modelName);
  const summaries = rolloutSummaries(groups, {
    split: 'train',
    iteration: step,
    tags_P: tagsOf(builders),
    ...(samplerSteps ? { samplerSteps_P: samplerSteps } : {}),
    ...(decode === undefined ? {} : { decode }),
    // The advantages this step trains on (the estimator over the shaped rewards, then the diagnostic transform).
    advantages_P_G: transformAdvantages(groupAdvantages(ctx, groups, {}), ctx.config.advantageTransform),
  });
  writeRolloutSummaries(join(ctx.config.logPath, iterationDir(step), 'train_rollout_summaries.jsonl'), summaries, {
    seed: step,
  });
}

const decoders = new Map<string, DecodeTokens | undefined>();

/** The text of tokens of `modelName` for the rollout log; undefined when its tokenizer is not available offline. */
function decoderOf(modelName: string): DecodeTokens | undefined {
  if (!decoders.has(modelName)) {
    let decode: DecodeTokens | undefined;
    try {
      const tokenizer = getTokenizer(modelName);
      decode = (tokens) => tokenizer.decode(tokens);
    } catch {
      decode = undefined;
    }
    decoders.set(modelName, decode);
  }
  return decoders.get(modelName);
}

/**
 * Advantages, datums, the KL penalty and the `adjustData` hook for a set of groups. `builders` are the groups'
 * builders in the same order (the hook sees them).
 */
export async function prepareData(
  ctx: LoopContext,
  groups: TrajectoryGroup[],
  metrics: Record<string, number>,
  builders: readonly EnvGroupBuilder[] = [],
): Promise<Datum[]> {
  const kept = ctx.config.removeConstantRewardGroups ? removeConstantRewardGroups(groups) : groups;
  const advantages_P_G = groupAdvantages(ctx, kept, metrics);
  const { data_D, metadata_D } = assembleTrainingData(
    kept,
    transformAdvantages(advantages_P_G, ctx.config.advantageTransform),
  );
  if (ctx.config.klPenaltyCoef > 0 && ctx.reference !== undefined && data_D.length > 0) {
    const kl = await incorporateKlPenalty(data_D, ctx.reference, ctx.config.klPenaltyCoef, ctx.config.klDiscountFactor);
    for (const [k, v] of Object.entries(kl)) metrics[k] = v;
  }
  // The signal the rewards carry, before any diagnostic transform (a distillation hook may add its own).
  let signal = advantages_P_G.some((g) => g.some((a) => a !== 0));
  if (ctx.deps.adjustData !== undefined && data_D.length > 0) {
    const builders_P = kept.map((g) => builders[groups.indexOf(g)]!);
    const step = metrics['progress/batch'] ?? ctx.startStep;
    const info = { metadata_D, groups_P: kept, builders_P, service: ctx.service, step };
    Object.assign(metrics, await ctx.deps.adjustData(data_D, info));
    signal = data_D.some((d) => lossInput(d, 'advantages').some((a) => a !== 0));
  }
  if (!signal) noteNoSignal(ctx, metrics);
  applyLossAggregation(data_D, ctx.knobs.lossAggregation, ctx.config.maxTokens, ctx.knobs.lossFn);
  return data_D;
}

/** The advantages of `groups` before any diagnostic transform: the run's estimator over the shaped rewards. */
function groupAdvantages(
  ctx: Pick<LoopContext, 'knobs' | 'config'>,
  groups: readonly TrajectoryGroup[],
  metrics: Record<string, number>,
): number[][] {
  return estimateAdvantages(shapedRewards(ctx, groups, metrics), ctx.knobs.advantageEstimator, trainedTokens(groups));
}

/**
 * The tokens each trajectory trains on: its action tokens, less those of turns masked for a parse error (the datums'
 * `mask`, {@link assembleTrainingData}).
 */
export function trainedTokens(groups: readonly TrajectoryGroup[]): number[][] {
  return groups.map((g) =>
    g.trajectories_G.map((traj) =>
      traj.transitions.reduce((a, t) => a + ((t.metrics.parse_error_masked ?? 0) >= 1 ? 0 : t.ac.tokens.length), 0),
    ),
  );
}

/**
 * Each trajectory's total reward, with DAPO's overlong penalty of every turn added when `overlongBufferTokens` > 0
 * (logged as `env/all/overlong_penalty`, the batch mean).
 */
export function shapedRewards(
  ctx: Pick<LoopContext, 'knobs' | 'config'>,
  groups: readonly TrajectoryGroup[],
  metrics: Record<string, number>,
): number[][] {
  const buffer = ctx.knobs.overlongBufferTokens;
  const rewards_P_G = groups.map((g) => g.getTotalRewards());
  if (buffer <= 0) return rewards_P_G;
  let sum = 0;
  let count = 0;
  const shaped = groups.map((g, p) =>
    g.trajectories_G.map((traj, i) => {
      const penalty = traj.transitions.reduce(
        (a, t) => a + overlongPenalty(t.ac.tokens.length, ctx.config.maxTokens, buffer),
        0,
      );
      sum += penalty;
      count++;
      return rewards_P_G[p]![i]! + penalty;
    }),
  );
  metrics['env/all/overlong_penalty'] = count > 0 ? sum / count : 0;
  return shaped;
}

/**
 * Records a step without training signal and says so the first time: every group's rewards were equal, so every
 * advantage is 0 and the update changes nothing. (The end of the run reports the count.)
 */
function noteNoSignal(ctx: LoopContext, metrics: Record<string, number>): void {
  const step = metrics['progress/batch'] ?? -1;
  if (ctx.noSignalSteps.at(-1) === step) return;
  ctx.noSignalSteps.push(step);
  if (ctx.noSignalSteps.length === 1) {
    ctx.run.log(
      `rl: step ${step} has no training signal: in every group all rollouts earned the same reward, so every ` +
        'advantage is 0 and nothing is learned. The policy never (or always) solves the task; see ' +
        'env/all/frac_groups_with_signal. Start from a model that sometimes succeeds (a warm start or a larger model), ' +
        'or make the task easier.',
    );
  }
}

/** The checkpoint record fields of the RL loops after `stepDone` steps. */
export function rlCheckpointFields(ctx: Pick<LoopContext, 'config' | 'elapsedTokens'>): Record<string, number> {
  return ctx.config.saveEveryTokens > 0 ? { elapsed_tokens: ctx.elapsedTokens } : {};
}

/**
 * After an update: the checkpoint due (`ctx.checkpoints`: a periodic one, whose sampler weights the next step samples
 * from, or a resume-only one beside an ephemeral sampler save) or an ephemeral save, and the new sampler. The
 * checkpoint's record is written later, once the step's metrics row is.
 */
export async function nextSampler(
  ctx: LoopContext,
  stepDone: number,
  metrics: Record<string, number>,
): Promise<RLSamplingClient> {
  const start = performance.now();
  let sampler: RLSamplingClient;
  const kind = ctx.checkpoints.due(stepDone, ctx.endStep, ctx.elapsedTokens);
  // The async loop may send the next step before this resolves: its save is queued at once, without waiting for the
  // previous one (a save of every step can then leave one state more on the service for a moment).
  const save = (k: SaveKind) =>
    ctx.config.asyncConfig !== null
      ? ctx.checkpoints.queueSave(k, stepDone, rlCheckpointFields(ctx), ctx.elapsedTokens)
      : ctx.checkpoints.submit(k, stepDone, rlCheckpointFields(ctx), ctx.elapsedTokens);
  if (kind === 'periodic') {
    const { name, paths } = await save(kind);
    const { sampler_path } = await paths;
    if (sampler_path === undefined) {
      throw new CheckpointError(`save_weights_for_sampler("${name}") returned no path`);
    }
    sampler = await ctx.service.createSamplingClient({ modelPath: sampler_path });
  } else {
    if (kind === 'rolling') await save(kind);
    sampler = await ctx.training.saveWeightsAndGetSamplingClient();
  }
  recordTime(metrics, 'save', start);
  return sampler;
}

/** True when {@link runEvals} has evaluators to run at `step`. */
export function evalsDue(ctx: LoopContext, step: number): boolean {
  const due = (every: number) => every > 0 && step % every === 0;
  return (
    (due(ctx.config.evalEvery) && ctx.evaluators.length > 0) ||
    (due(ctx.config.infrequentEvalEvery) && ctx.infrequentEvaluators.length > 0)
  );
}

/**
 * Runs the evaluators on `sampler` every `evalEvery` steps and the infrequent ones every `infrequentEvalEvery`
 * steps; transcripts go to `iteration_NNNNNN/eval_<name>.html`.
 */
export async function runEvals(
  ctx: LoopContext,
  step: number,
  sampler: RLSamplingClient,
): Promise<Record<string, number>> {
  const due = (every: number) => every > 0 && step % every === 0;
  const out: Record<string, number> = {};
  const run = async (list: readonly SamplingClientEvaluator[], timeKey: string) => {
    const start = performance.now();
    Object.assign(
      out,
      await runEvaluators(
        list,
        { sampler: async () => sampler },
        {
          step,
          logPath: ctx.config.logPath,
          transcriptPath: (name) =>
            ctx.config.numGroupsToLog > 0
              ? join(ctx.config.logPath, iterationDir(step), `eval_${name}.html`)
              : undefined,
          log: ctx.run.log,
        },
      ),
    );
    recordTime(out, timeKey, start);
  };
  if (due(ctx.config.evalEvery) && ctx.evaluators.length > 0) await run(ctx.evaluators, 'eval');
  if (due(ctx.config.infrequentEvalEvery) && ctx.infrequentEvaluators.length > 0) {
    await run(ctx.infrequentEvaluators, 'infrequent_eval');
  }
  return out;
}

/** The train-step options of the config. */
export function trainOptions(ctx: LoopContext) {
  return {
    learningRate: ctx.config.learningRate,
    numSubsteps: ctx.config.numSubsteps,
    lossFn: ctx.knobs.lossFn,
    importanceRatioLevel: ctx.knobs.importanceRatioLevel,
    ...(ctx.knobs.lossFnConfig ? { lossFnConfig: ctx.knobs.lossFnConfig } : {}),
  };
}

/** A step's update in flight: its training calls and the next sampler's save are submitted, nothing awaited. */
export interface UpdateInFlight {
  /** The next sampler: resolves once its save is out (the step's optim_step is done by then). */
  sampler: Promise<RLSamplingClient>;
  /** Collects the step's results into its metrics (loss, KL, times, post-update KL); resolves with the sampler. */
  finish(): Promise<RLSamplingClient>;
}

/**
 * Submits step `step`'s update: `submitted` (its forward_backwards and optim_steps, already sent) followed by the
 * save of the next sampler, which is sent now rather than after the results: it runs right after the last
 * optim_step in the model's order, so under clock cycles it comes out with the step's cycle instead of a round trip
 * later, and a loop that need not wait (async) can send the next step before collecting this one.
 */
export function submitUpdate(
  ctx: LoopContext,
  step: number,
  data_D: readonly Datum[],
  submitted: SubmittedTrainStep,
  metrics: Record<string, number>,
  timing: { start: number; key: string } = { start: performance.now(), key: 'time/train' },
): UpdateInFlight {
  ctx.elapsedTokens += data_D.reduce((a, d) => a + d.modelInput.length, 0);
  const sampler = nextSampler(ctx, step + 1, metrics);
  // Reported by finish(); a loop that fails before collecting must not also leave an unhandled rejection.
  sampler.catch(() => undefined);
  return {
    sampler,
    finish: async () => {
      const { trainingLogprobs_D, metrics: lossMetrics } = await collectTrainStep(submitted);
      recordTime(metrics, timing.key.replace(/^time\//, ''), timing.start);
      Object.assign(metrics, lossMetrics, computeKlSampleTrain([...data_D], trainingLogprobs_D));
      const next = await sampler;
      if (ctx.config.computePostKl && data_D.length > 0) {
        Object.assign(metrics, await computePostKl([...data_D], next));
      }
      return next;
    },
  };
}

/** Train on prepared data, then KL metrics, the new sampler and the optional post-update KL. */
export function trainAndUpdate(
  ctx: LoopContext,
  step: number,
  data_D: Datum[],
  metrics: Record<string, number>,
): Promise<RLSamplingClient> {
  const timing = { start: performance.now(), key: 'time/train' };
  return submitUpdate(
    ctx,
    step,
    data_D,
    submitTrainStep(data_D, ctx.training, trainOptions(ctx)),
    metrics,
    timing,
  ).finish();
}

export function baseMetrics(ctx: LoopContext, step: number): Record<string, number> {
  return {
    'progress/batch': step,
    'optim/lr': ctx.config.learningRate,
    'progress/done_frac': (step + 1) / ctx.endStep,
  };
}

/** Logs a step's metrics (with its wall time) and tells the caller. */
export function logStep(ctx: LoopContext, step: number, metrics: Record<string, number>, stepStart: number): void {
  metrics['time/total'] = (performance.now() - stepStart) / 1000;
  ctx.run.logger.logMetrics(metrics, step);
  ctx.checkpoints.logged(step);
  ctx.deps.onStep?.(step, metrics);
}
