/**
 * The pipelined supervised training loop (upstream `supervised/train.py`). Per step: evaluations (they see the weights
 * before the step), then forward_backward and optim_step are submitted back to back, and the oldest submitted step is
 * finished (awaited, logged) only once `submitAhead` newer steps are in flight, so the service never waits for the
 * client between steps.
 *
 * Deliberate differences, for exact resume:
 * - a periodic checkpoint is submitted right after the optim_step of the step it follows, so it holds exactly the
 *   first `step` updates, and its record names the NEXT batch (upstream records the batch it saved during, and
 *   replays it on resume);
 * - a step's metrics line is written before the record of the checkpoint that follows it, and a resumed run drops
 *   every metrics row at or past the checkpoint's step before appending, so metrics.jsonl never holds a step twice,
 *   whenever the previous process died.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  computeScheduleLrMultiplier,
  configToKeyStyle,
  DataError,
  type Datum,
  resolveLearningRate,
  timed,
} from '@cookbook/core';
import { computeMeanNll, datumWeights, NLLEvaluator } from '@cookbook/eval';
import {
  appendCheckpointRecord,
  type CheckpointRecord,
  checkpointName,
  type SavedPaths,
  submitCheckpointSave,
  Transcript,
} from '@cookbook/logging';
import { getTokenizer } from '@cookbook/renderers';
import { type ForwardBackwardOutput, ServiceClient } from '@cookbook/tinker-client';
import {
  checkpointConfigShape,
  type Evaluator,
  type EvaluatorOrBuilder,
  infrequentEvalEveryField,
  type LoopOutcome,
  loopService,
  openTrainingClient,
  type RunContext,
  type RunOutputDeps,
  type RunResult,
  resolveEvaluators,
  resumeStepOf,
  runConfigShape,
  runLoop,
  runOutputOptions,
  trainingClientEvaluation,
} from '@cookbook/training';
import { z } from 'zod';
import { adamConfigShape, adamParams } from './adam.js';
import type { SupervisedDatasetBuilder, SupervisedDatasets } from './dataset.js';
import { DatumFormatter } from './internal/datum-html.js';
import { deferred } from './internal/files.js';
import type { SupervisedServiceClient, SupervisedTrainingClient } from './types.js';

/** The SFT config (upstream `supervised/train.Config`): one description and one default per field. */
export const SupervisedTrainConfigSchema = z.object({
  ...runConfigShape,
  ...checkpointConfigShape,
  modelName: z
    .string()
    .default('local/qwen3-tiny')
    .describe('Base model to fine-tune with LoRA (hosted example: Qwen/Qwen3-8B)'),
  rendererName: z
    .string()
    .nullable()
    .default(null)
    .describe("Chat format of the data (stored in the run's metadata); null = the model's recommended renderer"),
  recipeName: z.string().nullable().default(null).describe("Recipe name stored in the run's metadata"),
  loadCheckpointPath: z
    .string()
    .nullable()
    .default(null)
    .describe('Start from these weights (tinker://…/weights/…) with a fresh optimizer; ignored when resuming'),
  learningRate: z
    .number()
    .positive()
    .nullable()
    .default(null)
    .describe('Base learning rate; null = 1e-2 for local/* tiny models, else the hyperparam_utils.get_lr heuristic'),
  lrSchedule: z.enum(['linear', 'cosine', 'constant']).default('linear').describe('Learning-rate schedule'),
  numEpochs: z.number().int().positive().default(1).describe('Passes over the training set'),
  loraRank: z.number().int().positive().default(32).describe('LoRA rank'),
  ...adamConfigShape,
  evalEvery: z.number().int().nonnegative().default(10).describe('Steps between evaluations (0 = never)'),
  infrequentEvalEvery: infrequentEvalEveryField,
  maxSteps: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('Stop after this many steps in total (across resumes); null = all epochs'),
  submitAhead: z.number().int().nonnegative().default(1).describe('Steps submitted before the previous one is awaited'),
});
/** The parsed SFT config. */
export type SupervisedTrainConfig = z.infer<typeof SupervisedTrainConfigSchema>;
/** The SFT config before defaults (what callers write). */
export type SupervisedTrainConfigInput = z.input<typeof SupervisedTrainConfigSchema>;

/** What the SFT loop needs besides its config. */
export interface SupervisedTrainDeps extends RunOutputDeps {
  /** Datasets, or a builder (run before anything is written, so bad data fails early). */
  dataset: SupervisedDatasetBuilder | SupervisedDatasets;
  /**
   * Evaluators (or builders) run every `evalEvery` steps (`@cookbook/eval`); an NLL evaluator on the test set
   * (`test/nll`, `test/bpb`) is added automatically.
   */
  evaluators?: readonly EvaluatorOrBuilder[];
  /** Evaluators (or builders) run every `infrequentEvalEvery` steps. */
  infrequentEvaluators?: readonly EvaluatorOrBuilder[];
  /** The service to train on. Default: a new ServiceClient on `baseUrl` (closed at the end). */
  serviceClient?: SupervisedServiceClient;
  /** Called after each step's metrics are logged (before its checkpoint record); for tests and hooks. */
  onStepLogged?: (step: number, metrics: Record<string, number>) => void;
}

/** What {@link trainSupervised} returns: the shared result, with the training client as `value`. */
export type SupervisedTrainResult = RunResult<{ trainingClient: SupervisedTrainingClient }>;

interface SubmittedStep {
  step: number;
  epoch: number;
  batch: number;
  data: Datum[];
  learningRate: number;
  fwdBwd: Promise<ForwardBackwardOutput>;
  optim: Promise<{ metrics: Record<string, number> }>;
  metrics: Record<string, number>;
  save: { name: string; paths: Promise<SavedPaths>; record: Omit<CheckpointRecord, 'name'> } | undefined;
}

function learningRateOf(config: SupervisedTrainConfig): number {
  return resolveLearningRate(config.modelName, config.learningRate, { tinyModelLr: 1e-2, heuristicDivisor: 1 });
}

function checkDatasets(datasets: SupervisedDatasets): void {
  if (datasets.train.length === 0) {
    throw new DataError('the training set has fewer conversations than one batch; lower batch_size or add data', {
      field: 'batch_size',
    });
  }
}

/**
 * Fine-tunes `modelName` with LoRA on `deps.dataset`, logging to `logPath` and checkpointing every `saveEvery`
 * steps; resumes from the last checkpoint when the log dir exists and the behaviour is `resume` (or chosen at the
 * prompt).
 */
export async function trainSupervised(
  input: SupervisedTrainConfigInput,
  deps: SupervisedTrainDeps,
): Promise<SupervisedTrainResult> {
  const config = SupervisedTrainConfigSchema.parse(input);
  const learningRate = learningRateOf(config);
  let datasets: SupervisedDatasets | undefined;
  // The server is contacted before the run folder is touched (nothing created or deleted if it is unreachable).
  const connection = loopService<SupervisedServiceClient>(
    deps.serviceClient,
    () => new ServiceClient(config.baseUrl ? { baseURL: config.baseUrl } : {}),
  );
  return runLoop(
    {
      connect: connection.connect,
      ...config,
      ...runOutputOptions(deps, () =>
        configToKeyStyle(SupervisedTrainConfigSchema, { ...config, learningRate }, { keyStyle: 'snake_case' }),
      ),
      // The data is built and checked before an old run is deleted.
      prepare: async () => {
        datasets = typeof deps.dataset === 'function' ? await deps.dataset() : deps.dataset;
        checkDatasets(datasets);
      },
    },
    (run) => runSupervisedSteps(run, config, datasets!, { ...deps, serviceClient: connection.get() }),
  );
}

/** What {@link runSupervisedSteps} needs besides the config and the datasets. */
export type SupervisedStepsDeps = Pick<
  SupervisedTrainDeps,
  'evaluators' | 'infrequentEvaluators' | 'serviceClient' | 'onStepLogged'
>;

/**
 * The SFT loop's steps inside a run lifecycle the caller opened with `runLoop` (`@cookbook/logging`):
 * {@link trainSupervised} is `runLoop` around this. For a run that does more than SFT under one log-dir policy,
 * one `config.json` and one close, e.g. a recipe that first writes its training data into the log dir. Without
 * `deps.serviceClient` it opens a ServiceClient on `baseUrl` and registers it with `run.own`.
 * @throws DataError when the training set holds no batch.
 */
export async function runSupervisedSteps(
  run: RunContext,
  input: SupervisedTrainConfigInput,
  datasets: SupervisedDatasets,
  deps: SupervisedStepsDeps = {},
): Promise<LoopOutcome<{ trainingClient: SupervisedTrainingClient }>> {
  const config = SupervisedTrainConfigSchema.parse(input);
  checkDatasets(datasets);
  const learningRate = learningRateOf(config);
  const { numEpochs, saveEvery, evalEvery, infrequentEvalEvery, submitAhead, ttlSeconds } = config;
  const log = run.log;
  const train = datasets.train;
  const nBatches = train.length;
  const totalSteps = Math.min(nBatches * numEpochs, config.maxSteps ?? Number.POSITIVE_INFINITY);
  const resumeFrom = run.resumeFrom;
  const startStep = resumeFrom === undefined ? 0 : resumeStepOf(resumeFrom, nBatches);
  if (startStep >= totalSteps) return { totalSteps, endStep: startStep, finalCheckpoint: resumeFrom };
  run.setTotalSteps(totalSteps);
  const service: SupervisedServiceClient =
    deps.serviceClient ?? run.own(new ServiceClient(config.baseUrl ? { baseURL: config.baseUrl } : {}));
  const userMetadata: Record<string, unknown> = {};
  if (config.rendererName) userMetadata.renderer_name = config.rendererName;
  if (config.recipeName) userMetadata.recipe_name = config.recipeName;

  const { client } = await openTrainingClient<SupervisedTrainingClient>(run, service, { ...config, userMetadata });

  let tokenizerForDisplay: ReturnType<typeof getTokenizer> | undefined;
  try {
    tokenizerForDisplay = getTokenizer(config.modelName);
  } catch {
    tokenizerForDisplay = undefined;
  }
  const evaluators: Evaluator[] = await resolveEvaluators(deps.evaluators);
  if (datasets.test !== undefined) evaluators.push(new NLLEvaluator(datasets.test, 'test', tokenizerForDisplay));
  const infrequent = await resolveEvaluators(deps.infrequentEvaluators);

  const evaluate = trainingClientEvaluation(client, { logPath: config.logPath, log });
  const adam = (lr: number) => adamParams(config, lr);

  let elapsedTokens = typeof resumeFrom?.elapsed_tokens === 'number' ? resumeFrom.elapsed_tokens : 0;
  let lastFinish = performance.now();

  const finish = async (sb: SubmittedStep) => {
    const [fb, opt] = await timed('await_results', sb.metrics, () => Promise.all([sb.fwdBwd, sb.optim]));
    const logprobs = sb.data.map((_, i) => fb.lossFnOutputs[i]?.logprobs ?? { data: [], dtype: 'float32' as const });
    let numTokens = 0;
    let numLossTokens = 0;
    for (const d of sb.data) {
      numTokens += d.modelInput.length;
      numLossTokens += datumWeights(d).filter((w) => w > 0).length;
    }
    const now = performance.now();
    sb.metrics['time/total'] = (now - lastFinish) / 1000;
    lastFinish = now;
    const metrics: Record<string, number> = {
      epoch: sb.epoch,
      progress: sb.step / totalSteps,
      learning_rate: sb.learningRate,
      num_sequences: sb.data.length,
      num_tokens: numTokens,
      num_loss_tokens: numLossTokens,
      train_mean_nll: computeMeanNll(
        logprobs,
        sb.data.map((d) => datumWeights(d)),
      ),
      ...opt.metrics,
      ...sb.metrics,
    };
    run.logger.logMetrics(metrics, sb.step);
    deps.onStepLogged?.(sb.step, metrics);
    if (sb.save !== undefined) {
      const paths = await sb.save.paths;
      appendCheckpointRecord(config.logPath, { name: sb.save.name, ...sb.save.record, ...paths });
    }
  };

  const record = (done: number): Omit<CheckpointRecord, 'name'> => ({
    epoch: Math.floor(done / nBatches),
    batch: done % nBatches,
    step: done,
    elapsed_tokens: elapsedTokens,
  });
  const pending: SubmittedStep[] = [];
  let currentEpoch = -1;
  log(
    `training ${config.modelName}: ${totalSteps} steps (${nBatches} batches × ${numEpochs} epochs${config.maxSteps ? `, max_steps ${config.maxSteps}` : ''}) from step ${startStep}`,
  );
  let step = startStep;
  try {
    for (; step < totalSteps && !run.signal.aborted; step++) {
      const epoch = Math.floor(step / nBatches);
      const batch = step % nBatches;
      if (epoch !== currentEpoch) {
        train.setEpoch(epoch);
        currentEpoch = epoch;
      }
      const metrics: Record<string, number> = {};
      if (evalEvery > 0 && step % evalEvery === 0 && evaluators.length > 0) {
        Object.assign(metrics, await timed('evaluation', metrics, () => evaluate(evaluators, step)));
      }
      if (infrequentEvalEvery > 0 && step % infrequentEvalEvery === 0 && infrequent.length > 0) {
        Object.assign(metrics, await timed('infrequent_evaluation', metrics, () => evaluate(infrequent, step)));
      }
      const data = await timed('get_batch', metrics, () => train.getBatch(batch));
      if (step === startStep && tokenizerForDisplay !== undefined && data.length > 0) {
        const t = new Transcript(`Training examples (step ${step})`);
        for (const d of data.slice(0, 4)) t.add(new DatumFormatter(d, tokenizerForDisplay));
        await t.write(join(config.logPath, 'transcripts', `train_examples_step_${checkpointName(step)}.html`));
      }
      elapsedTokens += data.reduce((a, d) => a + d.modelInput.length, 0);
      const lr = learningRate * computeScheduleLrMultiplier(config.lrSchedule, step, totalSteps);
      const t0 = performance.now();
      const fwdBwd = deferred(client.forwardBackward(data, 'cross_entropy'));
      const optim = deferred(client.optimStep(adam(lr)));
      const done = step + 1;
      let save: SubmittedStep['save'];
      if (saveEvery > 0 && done % saveEvery === 0 && done < totalSteps) {
        const name = checkpointName(done);
        save = {
          name,
          paths: submitCheckpointSave(client, name, { kind: 'both', ttlSeconds }),
          record: record(done),
        };
      }
      metrics['time/submit'] = (performance.now() - t0) / 1000;
      pending.push({ step, epoch, batch, data, learningRate: lr, fwdBwd, optim, metrics, save });
      while (pending.length > submitAhead) await finish(pending.shift()!);
    }
    while (pending.length > 0) await finish(pending.shift()!);
  } finally {
    // On an error, settle what is in flight so no rejection goes unobserved.
    await Promise.allSettled(pending.flatMap((p) => [p.fwdBwd, p.optim, ...(p.save ? [p.save.paths] : [])]));
  }

  if (step < totalSteps) {
    // Interrupted: a resumable checkpoint at the step reached (unless the last periodic one is there already).
    if (step > startStep && !(saveEvery > 0 && step % saveEvery === 0)) {
      const name = checkpointName(step);
      const paths = await submitCheckpointSave(client, name, { kind: 'both', ttlSeconds });
      appendCheckpointRecord(config.logPath, { name, ...record(step), ...paths });
    }
    return { totalSteps, endStep: step, value: { trainingClient: client } };
  }

  // Final evaluation (after the last update) and final checkpoint.
  const finalMetrics: Record<string, number> = {};
  const finalEvals = [...(evalEvery > 0 ? evaluators : []), ...(infrequentEvalEvery > 0 ? infrequent : [])];
  if (finalEvals.length > 0) {
    Object.assign(finalMetrics, await timed('evaluation', finalMetrics, () => evaluate(finalEvals, totalSteps)));
    run.logger.logMetrics({ ...finalMetrics, progress: 1 }, totalSteps);
  }
  const paths = await submitCheckpointSave(client, 'final', { kind: 'both', ttlSeconds: null });
  const finalCheckpoint: CheckpointRecord = { name: 'final', ...record(totalSteps), final: true, ...paths };
  appendCheckpointRecord(config.logPath, finalCheckpoint);
  log(`done: final checkpoint ${paths.state_path ?? ''} (sampler ${paths.sampler_path ?? 'none'})`);
  return { totalSteps, endStep: totalSteps, finalCheckpoint, value: { trainingClient: client } };
}
