/**
 * The RL training entry (upstream `rl/train.py: main`): one of three loops — synchronous on-policy, streaming
 * minibatches (sampling overlapped with training, still on-policy) or asynchronous off-policy with a staleness cap —
 * inside the shared run lifecycle (`runLoop`: log-dir policy, resume from `checkpoints.jsonl` at the exact next step,
 * metrics, report, SIGINT). Shared steps live in `train/loop-steps.ts`, the loops in `train/*-loop.ts`.
 * Differences from upstream: evaluations in the async loop run inline; on resume, metric rows at or after the resumed
 * step are dropped so each step appears once; an interrupted run saves a resumable checkpoint where it stopped.
 */
import { CheckpointError, ConfigError } from '@cookbook/core';
import { type CheckpointRecord, checkpointName } from '@cookbook/logging';
import { TinkerTokenCompleter } from '@cookbook/renderers';
import type { RLDataset } from '@cookbook/training';
import {
  CheckpointManager,
  checkpointStoreFor,
  openTrainingClient,
  type RunPlan,
  type RunPlanOptions,
  resolveEvaluators,
  resolveRunPlan,
  runLoop,
  runOutputOptions,
  runService,
} from '@cookbook/training';
import { resolveAlgorithm } from '../algorithms.js';
import type { RLSamplingClient, RLServiceClient, RLTrainingClient } from '../clients.js';
import { RLTestSetEvaluator } from '../evaluators.js';
import { doAsyncTraining } from './async-loop.js';
import {
  type RLTrainConfig,
  type RLTrainConfigInput,
  RLTrainConfigSchema,
  type RLTrainDeps,
  type RLTrainResult,
} from './config.js';
import { type LoopContext, rlCheckpointFields } from './loop-steps.js';
import { doStreamMinibatchTraining } from './stream-loop.js';
import { doSyncTraining } from './sync-loop.js';

/** `lossFnConfig` → `loss_fn_config`. */
function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * The options of an RL run's plan (`resolveRunPlan` / `planRun` with {@link RLTrainConfigSchema}): the `rl` loop kind,
 * and `config.json` records the algorithm knobs used (the preset's, overridden by explicit ones) and the preset's own
 * values. A caller that builds the plan for {@link train} (e.g. a loop on top of RL) passes these.
 */
export function rlPlanOptions(hparams: unknown): RunPlanOptions<RLTrainConfig> {
  return {
    loop: 'rl',
    hparams,
    record: (resolved) => {
      const { knobs, preset } = resolveAlgorithm(resolved);
      return {
        ...Object.fromEntries(Object.entries(knobs).map(([k, v]) => [snakeCase(k), v])),
        ...(preset === undefined
          ? {}
          : { algorithm_preset: Object.fromEntries(Object.entries(preset).map(([k, v]) => [snakeCase(k), v])) }),
      };
    },
  };
}

/**
 * Runs RL training (`configInput`: a raw config, parsed once here, or a plan built with {@link rlPlanOptions}). Resumes from `logPath/checkpoints.jsonl` when the folder exists and `behaviorIfLogDirExists` is
 * `resume` (or answered so at the prompt).
 */
export async function train(
  configInput: RLTrainConfigInput | RunPlan<RLTrainConfig>,
  deps: RLTrainDeps,
): Promise<RLTrainResult> {
  const plan = resolveRunPlan(RLTrainConfigSchema, configInput, rlPlanOptions(deps.hparams));
  const config = plan.config;
  const { knobs } = resolveAlgorithm(config);
  if (knobs.dynamicSampling && config.streamMinibatchConfig !== null) {
    throw new ConfigError(
      'dynamic_sampling=true runs in the synchronous and the async loop, not with stream_minibatch_config (a streamed ' +
        'minibatch trains on groups as they finish, before the batch could be refilled); drop stream_minibatch_config ' +
        'or set dynamic_sampling=false',
    );
  }
  let datasets: { train: RLDataset; test?: RLDataset | undefined } | undefined;
  // The server is contacted before the run folder is touched (nothing created or deleted if it is unreachable).
  const connection = runService<RLServiceClient>(deps.serviceClient, config);
  return runLoop(
    {
      connect: connection.connect,
      ...config,
      ...runOutputOptions({ ...deps, hparams: plan.recorded }, () => plan.recorded),
      prepare: async () => {
        datasets = await deps.datasetBuilder();
      },
    },
    async (run) => {
      const { train: trainSet, test } = datasets!;
      const endStep = Math.min(config.maxSteps ?? trainSet.length, trainSet.length);
      if (run.startStep >= endStep) return { totalSteps: endStep, endStep: run.startStep };
      run.setTotalSteps(endStep);
      const service: RLServiceClient = connection.get();
      const resume = run.resumeFrom;
      const { client: training, origin } = await openTrainingClient<RLTrainingClient>(run, service, {
        modelName: config.modelName,
        loraRank: config.loraRank,
        loadCheckpointPath: config.loadCheckpointPath,
        loadCheckpointOptimizer: config.loadCheckpointOptimizer,
      });
      const sampler: RLSamplingClient =
        origin === 'resume' && resume?.sampler_path !== undefined
          ? await service.createSamplingClient({ modelPath: resume.sampler_path })
          : await training.saveWeightsAndGetSamplingClient();
      const reference =
        config.klPenaltyCoef > 0
          ? await service.createSamplingClient({ baseModel: config.klReferenceModel ?? config.modelName })
          : undefined;
      const policyFor =
        deps.makePolicy ??
        ((s: RLSamplingClient) =>
          new TinkerTokenCompleter({
            samplingClient: s,
            maxTokens: config.maxTokens,
            temperature: config.temperature,
          }));
      const resumeTokens = resume?.elapsed_tokens;
      const startTokens = typeof resumeTokens === 'number' ? resumeTokens : 0;
      const checkpoints = new CheckpointManager({
        client: training,
        logPath: config.logPath,
        policy: config,
        store: checkpointStoreFor(service),
        startStep: run.startStep,
        startTokens,
        log: run.log,
      });
      const ctx: LoopContext = {
        config,
        knobs,
        deps,
        run,
        training,
        service,
        train: trainSet,
        evaluators: [
          ...(test ? [new RLTestSetEvaluator(test, 'test', config.numGroupsToLog, { policyFor })] : []),
          ...(await resolveEvaluators(deps.evaluators)),
        ],
        infrequentEvaluators: await resolveEvaluators(deps.infrequentEvaluators),
        reference,
        startStep: run.startStep,
        endStep,
        policyFor,
        noSignalSteps: [],
        checkpoints,
        elapsedTokens: startTokens,
      };
      let stoppedAt: number;
      try {
        if (config.asyncConfig !== null) stoppedAt = await doAsyncTraining(ctx, sampler, config.asyncConfig);
        else if (config.streamMinibatchConfig !== null)
          stoppedAt = await doStreamMinibatchTraining(ctx, sampler, config.streamMinibatchConfig);
        else stoppedAt = await doSyncTraining(ctx, sampler);
        await checkpoints.drain();
      } finally {
        await checkpoints.settle();
      }

      if (ctx.noSignalSteps.length > 0) {
        run.log(
          `rl: ${ctx.noSignalSteps.length} of ${stoppedAt - run.startStep} steps had no training signal (all advantages 0)`,
        );
      }
      let finalCheckpoint: CheckpointRecord | undefined;
      const fields = { step: stoppedAt, ...rlCheckpointFields(ctx) };
      if (run.signal.aborted && stoppedAt < endStep) {
        // Interrupted: a resumable checkpoint where the run stopped (unless the last save is there already).
        if (stoppedAt > run.startStep && !checkpoints.hasSaveAt(stoppedAt)) {
          await checkpoints.saveNow(checkpointName(stoppedAt), fields);
        }
      } else if (run.startStep < stoppedAt || run.startStep < endStep) {
        finalCheckpoint = await checkpoints.saveNow('final', fields, true);
        if (finalCheckpoint.sampler_path === undefined) {
          throw new CheckpointError('save_weights_for_sampler("final") returned no path');
        }
      }
      return { totalSteps: endStep, endStep: stoppedAt, finalCheckpoint };
    },
  );
}
