/**
 * The GEM trainer (GEM `examples/train_tinker/tinker_train.py`) written against the run contract: every step saves
 * the weights for a fresh on-policy sampler, plays episodes on `numEnv` envs concurrently until `batchSize`
 * transitions, computes per-turn discounted returns, ReBN over all transitions, subsamples exactly `batchSize`
 * (seeded), builds one datum per transition (advantage on the action tokens) and takes one `importance_sampling`
 * step. Runs inside `runLoop`: log-dir policy, `metrics.jsonl`, `checkpoints.jsonl`, resume at the exact next step,
 * SIGINT stops at a step boundary with a resumable checkpoint.
 *
 * Improvements on the seed (documented in the recipe): seeded envs, sampling and subsampling instead of the clock, an
 * unseeded sampler and numpy's global RNG; no NaN advantage from a one-transition batch; failed sampling is retried,
 * then counted in `sampler/failed_episodes` (never dropped silently); a step without signal (all advantages 0) skips
 * the optimizer step instead of letting Adam's momentum move the weights along stale gradients
 * (`train/skipped_no_signal`).
 */
import { performance } from 'node:perf_hooks';
import { Sfc32Rng as Rng, recordTime } from '@cookbook/core';
import { type Renderer, resolveModelSetup } from '@cookbook/renderers';
import { collectTrainStep, rlAdamParams, submitForwardBackward, transformAdvantages } from '@cookbook/rl';
import type { TrainingClientLike } from '@cookbook/tinker-client';
import {
  CheckpointManager,
  checkpointStoreFor,
  openTrainingClient,
  type RunPlan,
  type RunResult,
  resolveRunPlan,
  runLoop,
  runOutputOptions,
  runService,
} from '@cookbook/training';
import type { Env } from '../core/env.js';
import { make } from '../core/registry.js';
import { applyWrappers, getWrapperFns, type WrapperDeps } from '../wrappers/factory.js';
import {
  discountedReturns,
  type GemTransition,
  rebn,
  samplerLearnerMetrics,
  subsample,
  transitionDatum,
} from './algorithm.js';
import { collectEpisodes } from './collect.js';
import { type GemTrainConfig, type GemTrainConfigInput, GemTrainConfigSchema, type GemTrainDeps } from './config.js';
import { writeGemRolloutLog } from './rollout-log.js';
import { promptTokens, stopCondition } from './templates.js';

type GemTrainingClient = Pick<
  TrainingClientLike,
  'forwardBackward' | 'optimStep' | 'saveState' | 'saveWeightsForSampler' | 'saveWeightsAndGetSamplingClient'
>;

/** What {@link trainGem} returns in `value`. */
export interface GemTrainValue {
  /** `sampler/episode_return` of every step run by this call, in order. */
  episodeReturns: number[];
  /** Episodes abandoned because sampling failed, over the whole call. */
  failedEpisodes: number;
}

/** A 31-bit seed from the run seed, the step, the round and the env. */
export function episodeSeed(seed: number, step: number, round: number, env: number): number {
  return mixSeed(seed, step, round, env);
}

/**
 * The 31-bit sampling seed of one turn: from the run seed, the step, the round, the env and the turn (a path one longer
 * than {@link episodeSeed}'s, so the two never coincide by construction of the inputs).
 */
export function samplingSeed(seed: number, step: number, round: number, env: number, turn: number): number {
  return mixSeed(seed, step, round, env, turn);
}

function mixSeed(...xs: number[]): number {
  let h = 0x811c9dc5;
  for (const x of xs) {
    h = Math.imul(h ^ (x & 0xffff), 0x01000193);
    h = Math.imul(h ^ (x >>> 16), 0x01000193);
  }
  return (h >>> 1) & 0x7fffffff;
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** What the wrappers of a run need besides the renderer (the search tools' collection). */
export function gemWrapperDeps(config: Pick<GemTrainConfig, 'searchCollection'>): Omit<WrapperDeps, 'renderer'> {
  return config.searchCollection === null ? {} : { search: { collectionPath: config.searchCollection } };
}

/** The renderer of a run: explicit, else `rendererName`, else the model's recommended one. */
export function gemRenderer(config: Pick<GemTrainConfig, 'modelName' | 'rendererName'>): Renderer {
  return resolveModelSetup(config).renderer;
}

/**
 * Runs the GEM trainer.
 * @throws ConfigError for an unknown env id or wrapper; TrainingError when sampling keeps failing.
 */
export async function trainGem(
  configInput: GemTrainConfigInput | RunPlan<GemTrainConfig>,
  deps: GemTrainDeps = {},
): Promise<RunResult<GemTrainValue>> {
  const plan = resolveRunPlan(GemTrainConfigSchema, configInput, { loop: 'rl', hparams: deps.hparams });
  const config = plan.config;
  let renderer: Renderer | undefined = deps.renderer;
  let envs: Env[] = [];
  let templateWarning: string | undefined;
  // The server is contacted before the run folder is touched (nothing created or deleted if it is unreachable).
  const connection = runService(deps.serviceClient, config);
  return runLoop<GemTrainValue>(
    {
      connect: connection.connect,
      ...config,
      ...runOutputOptions({ ...deps, hparams: plan.recorded }, () => plan.recorded),
      prepare: () => {
        // Bad env ids, wrappers or data fail here, before an old run folder is deleted.
        renderer ??= gemRenderer({ modelName: config.modelName, rendererName: plan.rendererName ?? null });
        const wrappers = getWrapperFns(config.envWrappers, { renderer, ...gemWrapperDeps(config) });
        envs = Array.from({ length: config.numEnv }, (_, i) =>
          deps.makeEnv
            ? deps.makeEnv(i)
            : applyWrappers(make(config.envId, { ...config.envKwargs, seed: config.seed + i }), wrappers),
        );
        if (config.template === 'no' && !config.envWrappers.includes('concat_chat')) {
          templateWarning = 'template=no sends the raw observation: pair it with env_wrappers=concat_chat';
        }
      },
    },
    async (run) => {
      if (templateWarning !== undefined) run.log(`gem: ${templateWarning}`);
      const total = config.maxSteps;
      const value: GemTrainValue = { episodeReturns: [], failedEpisodes: 0 };
      if (run.startStep >= total) return { totalSteps: total, endStep: run.startStep, value };
      run.setTotalSteps(total);
      const r = renderer!;
      const service = connection.get();
      const { client: training } = await openTrainingClient<GemTrainingClient>(run, service, {
        modelName: config.modelName,
        loraRank: config.loraRank,
        loadCheckpointPath: config.loadCheckpointPath,
        loadCheckpointOptimizer: config.loadCheckpointOptimizer,
      });
      const stop = stopCondition(r);
      // One owner of when and which checkpoints are saved (steps / seconds / rolling, keep_last), as in every loop.
      const checkpoints = new CheckpointManager({
        client: training,
        logPath: config.logPath,
        policy: config,
        store: checkpointStoreFor(service),
        startStep: run.startStep,
        log: run.log,
      });

      let step = run.startStep;
      let skipped = 0;
      try {
        for (; step < total && !run.signal.aborted; step++) {
          const t0 = performance.now();
          const sampler = await training.saveWeightsAndGetSamplingClient();
          const collected = await collectEpisodes({
            envs,
            sampler,
            prompt: (obs) => promptTokens(config.template, obs, r),
            decode: (tokens) => r.tokenizer.decode(tokens),
            stop,
            maxTokens: config.maxTokens,
            temperature: config.temperature,
            batchSize: config.batchSize,
            retries: config.samplingRetries,
            episodeSeed: (round, env) => episodeSeed(config.seed, step, round, env),
            samplingSeed: (round, env, turn) => samplingSeed(config.seed, step, round, env, turn),
            onProgress: (n) =>
              run.setProgressDetail(`transitions ${Math.min(n, config.batchSize)}/${config.batchSize}`),
          });
          const tSample = recordTime({}, 'sample', t0);
          const episodes = collected.episodes;
          value.failedEpisodes += collected.failedEpisodes;
          if (collected.failedEpisodes > 0) {
            run.log(
              `gem: step ${step}: ${collected.failedEpisodes} episode(s) abandoned after ${config.samplingRetries} retries (${collected.lastError ?? ''})`,
            );
          }
          for (const ep of episodes.slice(0, 2)) {
            deps.onEpisode?.({
              step,
              observations: ep.observations,
              actions: ep.actions,
              rewards: ep.transitions.map((t) => t.reward),
            });
          }
          const returns_E = episodes.map((ep) => ep.transitions.reduce((a, t) => a + t.reward, 0));
          const all: { t: GemTransition; g: number }[] = [];
          for (const ep of episodes) {
            const gs = discountedReturns(
              ep.transitions.map((t) => t.reward),
              config.gamma,
            );
            ep.transitions.forEach((t, i) => {
              all.push({ t, g: gs[i]! });
            });
          }
          const normalised = config.useRebn ? rebn(all.map((x) => x.g)) : all.map((x) => x.g);
          // The diagnostic control (rl's): negated (or zeroed) advantages must not improve the policy.
          const advantages = transformAdvantages([normalised], config.advantageTransform)[0]!;
          writeGemRolloutLog(config.logPath, step, config.envId, episodes, advantages, (tokens) =>
            r.tokenizer.decode(tokens),
          );
          const withAdv = all.map((x, i) => ({ t: x.t, a: advantages[i]! }));
          const batch = subsample(withAdv, config.batchSize, new Rng(episodeSeed(config.seed, step, 0x7fff, 0x7fff)));
          const datums = batch.map((x) => transitionDatum(x.t, x.a));

          const t1 = performance.now();
          // No signal (every advantage 0: equal returns under ReBN): the seed still steps Adam, whose momentum keeps
          // moving the weights along old gradients; here the update is skipped (the forward pass still runs for the
          // diagnostics) and counted in train/skipped_no_signal.
          // The update is rl's train step (one forward_backward and its optim_step, submitted back to back).
          const noSignal = batch.every((x) => x.a === 0);
          const fb = Promise.resolve(submitForwardBackward(datums, training, { lossFn: config.lossFn }));
          const optim = noSignal ? undefined : Promise.resolve(training.optimStep(rlAdamParams(config.learningRate)));
          fb.catch(() => undefined);
          optim?.catch(() => undefined);
          const { trainingLogprobs_D, metrics: lossMetrics } = await collectTrainStep({
            forwardBackwards: [fb],
            optimSteps: optim === undefined ? [] : [optim],
          });
          // A due save goes right behind this step's update (it holds step + 1 updates); it is recorded once this
          // step's metrics row is written, and the next step does not wait for it.
          const due = checkpoints.due(step + 1, total);
          if (due !== undefined) await checkpoints.submit(due, step + 1, { step: step + 1 });
          if (noSignal) skipped++;
          const tTrain = recordTime({}, 'train', t1);
          const diag = samplerLearnerMetrics(datums, trainingLogprobs_D);
          const metrics: Record<string, number> = {
            'sampler/episode_return': mean(returns_E),
            'sampler/num_turns_per_episode': mean(episodes.map((ep) => ep.transitions.length)),
            'sampler/action_num_tokens': mean(
              episodes.map((ep) => ep.transitions.reduce((a, t) => a + t.actTokens.length, 0)),
            ),
            'sampler/num_episodes': episodes.length,
            'sampler/num_transitions': all.length,
            'sampler/failed_episodes': collected.failedEpisodes,
            'sampler/sample_errors': collected.sampleErrors,
            'sampler/unfinished_rollout': all.length === 0 ? 0 : collected.truncatedTurns / all.length,
            'sampler/token_entropy': diag.tokenEntropy,
            'train/kl_sample_train_v1': diag.klV1,
            'train/kl_sample_train_v2': diag.klV2,
            'train/n_samples': datums.length,
            'train/skipped_no_signal': noSignal ? 1 : 0,
            'time/sample': tSample,
            'time/train': tTrain,
            'time/total': (performance.now() - t0) / 1000,
          };
          for (const [k, v] of Object.entries(lossMetrics)) metrics[`train/${k}`] = v;
          value.episodeReturns.push(metrics['sampler/episode_return']!);
          run.logger.logMetrics(metrics, step);
          checkpoints.logged(step);
          deps.onStep?.(step, metrics);
        }
      } catch (error) {
        // A failed step: the saves in flight settle (recorded or not) before the run reports the error.
        await checkpoints.settle();
        throw error;
      }

      if (skipped > 0) {
        run.log(
          `gem: ${skipped} of ${step - run.startStep} steps had no training signal (all returns equal); no update`,
        );
      }
      const finalCheckpoint = await checkpoints.saveAtEnd(step, total, { step });
      return { totalSteps: total, endStep: step, finalCheckpoint, value };
    },
  );
}
