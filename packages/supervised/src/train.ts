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
  ConfigError,
  computeScheduleLrMultiplier,
  DataError,
  type Datum,
  type LrScheduleName,
  timed,
} from '@cookbook/core';
import {
  appendCheckpointRecord,
  applyLogDirDecision,
  type CheckLogDirOptions,
  type CheckpointRecord,
  checkLogDir,
  checkpointName,
  getLastCheckpoint,
  type LogDirBehavior,
  type MetricsLogger,
  type SavedPaths,
  setupLogging,
  submitCheckpointSave,
  type TextSink,
  Transcript,
  truncateMetricsFrom,
  writeRunReport,
} from '@cookbook/logging';
import { getTokenizer } from '@cookbook/renderers';
import type { AdamParams, ForwardBackwardOutput } from '@cookbook/tinker-client';
import { computeMeanNll, datumWeights } from './conversation-to-datum.js';
import type { SupervisedDatasetBuilder, SupervisedDatasets } from './dataset.js';
import { NLLEvaluator } from './evaluators.js';
import { DatumFormatter } from './internal/datum-html.js';
import { deferred } from './internal/files.js';
import type { ServiceClientLike, SupervisedEvaluator, TrainingClientLike } from './types.js';

/** Configuration of {@link trainSupervised}; defaults follow upstream `train.Config`. */
export interface SupervisedTrainConfig {
  /** Folder of the run: config.json, metrics.jsonl, checkpoints.jsonl, transcripts/, report.html. */
  logPath: string;
  /** Base model to fine-tune with LoRA, e.g. `local/qwen3-tiny` or `Qwen/Qwen3-8B`. */
  modelName: string;
  /** Datasets, or a builder (run before anything is written, so bad data fails early). */
  dataset: SupervisedDatasetBuilder | SupervisedDatasets;
  /** Renderer the data was rendered with; stored in the run's user metadata. */
  rendererName?: string | null;
  /** Recipe name, stored in the run's user metadata. */
  recipeName?: string | null;
  /** Start from these weights (`tinker://…/weights/…`) with a fresh optimizer; ignored when resuming. */
  loadCheckpointPath?: string | null;
  /** Base learning rate. Default 1e-4. */
  learningRate?: number;
  /** LR schedule over the run's steps. Default `linear`. */
  lrSchedule?: LrScheduleName;
  /** Passes over the training set. Default 1. */
  numEpochs?: number;
  /** LoRA rank. Default 32. */
  loraRank?: number;
  /** Adam β1. Default 0.9. */
  adamBeta1?: number;
  /** Adam β2. Default 0.95. */
  adamBeta2?: number;
  /** Adam ε. Default 1e-8. */
  adamEps?: number;
  /** Steps between checkpoints (state + sampler weights); 0 = only the final one. Default 20. */
  saveEvery?: number;
  /** Steps between evaluations; 0 = never. Default 10. */
  evalEvery?: number;
  /** Steps between infrequent evaluations; 0 = never. Default 100. */
  infrequentEvalEvery?: number;
  /** Lifetime of periodic checkpoints in seconds; null = forever. Default 604 800 (7 days). */
  ttlSeconds?: number | null;
  /** Evaluators run every `evalEvery` steps (an NLL evaluator on the test set is added automatically). */
  evaluators?: readonly SupervisedEvaluator[];
  /** Evaluators run every `infrequentEvalEvery` steps. */
  infrequentEvaluators?: readonly SupervisedEvaluator[];
  /** Stop after this many steps in total (across resumes). Default: all epochs. */
  maxSteps?: number | null;
  /** Steps submitted ahead of the one being awaited. Default 1. */
  submitAhead?: number;
  /** What to do when `logPath` exists. Default `ask`. */
  behaviorIfLogDirExists?: LogDirBehavior;
  /** Options of the log-dir check (TTY detection, prompt). */
  logDirOptions?: CheckLogDirOptions;
  /** W&B project (needs WANDB_API_KEY). */
  wandbProject?: string | null;
  wandbName?: string | null;
  /** Written to config.json; default: the serialisable fields of this config. */
  hparams?: unknown;
  /** Console table per step (true = stdout). Default true. */
  console?: boolean | TextSink;
  /** Write report.html at the end. Default true. */
  writeReport?: boolean;
  /** The service to train on. Default: a new `ServiceClient` (embedded local service unless configured). */
  serviceClient?: ServiceClientLike;
  /** Progress and notices. Default: stderr. */
  log?: (line: string) => void;
  /** Called after each step's metrics are logged (before its checkpoint record); for tests and hooks. */
  onStepLogged?: (step: number, metrics: Record<string, number>) => void;
}

/** What {@link trainSupervised} returns. */
export interface SupervisedTrainResult {
  /** False when the user chose `exit` at the log-dir prompt. */
  ran: boolean;
  /** The step training started at (> 0 when resumed). */
  startStep: number;
  /** Total steps of the run. */
  totalSteps: number;
  /** The final checkpoint record, if the run reached the end. */
  finalCheckpoint: CheckpointRecord | undefined;
  /** The training client (for sampling from the result); undefined when nothing ran. */
  trainingClient: TrainingClientLike | undefined;
}

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

function serialisableConfig(config: SupervisedTrainConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (v === undefined || typeof v === 'function' || (typeof v === 'object' && v !== null && !Array.isArray(v)))
      continue;
    out[k] = Array.isArray(v)
      ? v.map((e: unknown) => (typeof e === 'object' && e !== null && 'name' in e ? e.name : e))
      : v;
  }
  return out;
}

function checkPositiveInt(name: string, value: number, allowZero = false): void {
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new ConfigError(`${name} must be ${allowZero ? 'a non-negative' : 'a positive'} integer, got ${value}`, {
      key: name,
    });
  }
}

/**
 * Fine-tunes `modelName` with LoRA on `dataset`, logging to `logPath` and checkpointing every `saveEvery` steps;
 * resumes from the last checkpoint when the log dir exists and the behaviour is `resume` (or chosen at the prompt).
 */
export async function trainSupervised(config: SupervisedTrainConfig): Promise<SupervisedTrainResult> {
  const log = config.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const learningRate = config.learningRate ?? 1e-4;
  const lrSchedule = config.lrSchedule ?? 'linear';
  const numEpochs = config.numEpochs ?? 1;
  const saveEvery = config.saveEvery ?? 20;
  const evalEvery = config.evalEvery ?? 10;
  const infrequentEvalEvery = config.infrequentEvalEvery ?? 100;
  const submitAhead = config.submitAhead ?? 1;
  const ttlSeconds = config.ttlSeconds === undefined ? 604_800 : config.ttlSeconds;
  checkPositiveInt('num_epochs', numEpochs);
  checkPositiveInt('save_every', saveEvery, true);
  checkPositiveInt('eval_every', evalEvery, true);
  checkPositiveInt('infrequent_eval_every', infrequentEvalEvery, true);
  checkPositiveInt('submit_ahead', submitAhead, true);
  if (config.maxSteps !== undefined && config.maxSteps !== null) checkPositiveInt('max_steps', config.maxSteps);

  // 1. Decide about the log dir (may prompt or refuse), 2. build and validate the data, 3. only then touch files.
  const decision = await checkLogDir(config.logPath, config.behaviorIfLogDirExists ?? 'ask', config.logDirOptions);
  if (decision === 'exit') {
    log(`log dir ${config.logPath} left as it is; nothing to do`);
    return { ran: false, startStep: 0, totalSteps: 0, finalCheckpoint: undefined, trainingClient: undefined };
  }
  const datasets = typeof config.dataset === 'function' ? await config.dataset() : config.dataset;
  const train = datasets.train;
  const nBatches = train.length;
  if (nBatches === 0) {
    throw new DataError('the training set has fewer conversations than one batch; lower batch_size or add data', {
      field: 'batch_size',
    });
  }
  const totalSteps = Math.min(nBatches * numEpochs, config.maxSteps ?? Number.POSITIVE_INFINITY);
  applyLogDirDecision(config.logPath, decision);

  const resumeFrom = decision === 'resume' ? getLastCheckpoint(config.logPath) : undefined;
  let startStep = 0;
  if (resumeFrom !== undefined) {
    startStep =
      typeof resumeFrom.step === 'number'
        ? resumeFrom.step
        : (resumeFrom.epoch ?? 0) * nBatches + (resumeFrom.batch ?? 0);
    if (resumeFrom.final === true || startStep >= totalSteps) {
      log(`${config.logPath}: the run already finished (checkpoint "${resumeFrom.name}"); nothing to do`);
      return { ran: false, startStep, totalSteps, finalCheckpoint: resumeFrom, trainingClient: undefined };
    }
  }
  // A resumed run continues the metric series: rows the dead process wrote past its checkpoint are recomputed.
  const dropped = truncateMetricsFrom(config.logPath, startStep);
  if (dropped > 0) log(`dropped ${dropped} metrics rows at or after step ${startStep}; they will be recomputed`);

  const logger: MetricsLogger = setupLogging({
    logDir: config.logPath,
    config: config.hparams ?? serialisableConfig(config),
    console: config.console ?? true,
    ...(config.wandbProject ? { wandbProject: config.wandbProject } : {}),
    ...(config.wandbName ? { wandbName: config.wandbName } : {}),
  });

  let service = config.serviceClient;
  let ownsService = false;
  if (service === undefined) {
    const { ServiceClient } = await import('@cookbook/tinker-client');
    service = new ServiceClient() as unknown as ServiceClientLike;
    ownsService = true;
  }
  const userMetadata: Record<string, unknown> = {};
  if (config.rendererName) userMetadata.renderer_name = config.rendererName;
  if (config.recipeName) userMetadata.recipe_name = config.recipeName;

  try {
    let client: TrainingClientLike;
    if (resumeFrom !== undefined) {
      log(`resuming from checkpoint "${resumeFrom.name}" (${resumeFrom.state_path}) at step ${startStep}`);
      client = await service.createTrainingClientFromState(resumeFrom.state_path!, { optimizer: true, userMetadata });
    } else if (config.loadCheckpointPath) {
      log(`loading weights from ${config.loadCheckpointPath} (fresh optimizer)`);
      client = await service.createTrainingClientFromState(config.loadCheckpointPath, {
        optimizer: false,
        userMetadata,
      });
    } else {
      client = await service.createLoraTrainingClient({
        baseModel: config.modelName,
        rank: config.loraRank ?? 32,
        userMetadata,
      });
    }

    const evaluators: SupervisedEvaluator[] = [...(config.evaluators ?? [])];
    if (datasets.test !== undefined) evaluators.push(new NLLEvaluator(datasets.test, 'test'));
    const infrequent = [...(config.infrequentEvaluators ?? [])];

    const runEvaluators = async (list: readonly SupervisedEvaluator[], step: number) => {
      const out: Record<string, number> = {};
      const ctx = { step, logPath: config.logPath };
      const needsSampler = list.some((e) => e.kind === 'sampling_client');
      let sampler: Awaited<ReturnType<NonNullable<TrainingClientLike['saveWeightsAndGetSamplingClient']>>> | undefined;
      if (needsSampler) {
        if (client.saveWeightsAndGetSamplingClient === undefined) {
          log('the training client cannot create a sampling client; skipping sampling evaluators');
        } else {
          sampler = await client.saveWeightsAndGetSamplingClient();
        }
      }
      for (const e of list) {
        if (e.kind === 'training_client') Object.assign(out, await e.evaluate(client, ctx));
        else if (sampler !== undefined) Object.assign(out, await e.evaluate(sampler, ctx));
      }
      return out;
    };

    const adam = (lr: number): AdamParams => ({
      learningRate: lr,
      beta1: config.adamBeta1 ?? 0.9,
      beta2: config.adamBeta2 ?? 0.95,
      eps: config.adamEps ?? 1e-8,
    });

    let tokenizerForDisplay: ReturnType<typeof getTokenizer> | undefined;
    try {
      tokenizerForDisplay = getTokenizer(config.modelName);
    } catch {
      tokenizerForDisplay = undefined;
    }
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
      logger.logMetrics(metrics, sb.step);
      config.onStepLogged?.(sb.step, metrics);
      if (sb.save !== undefined) {
        const paths = await sb.save.paths;
        appendCheckpointRecord(config.logPath, { name: sb.save.name, ...sb.save.record, ...paths });
      }
    };

    const pending: SubmittedStep[] = [];
    let currentEpoch = -1;
    log(
      `training ${config.modelName}: ${totalSteps} steps (${nBatches} batches × ${numEpochs} epochs${config.maxSteps ? `, max_steps ${config.maxSteps}` : ''}) from step ${startStep}`,
    );
    try {
      for (let step = startStep; step < totalSteps; step++) {
        const epoch = Math.floor(step / nBatches);
        const batch = step % nBatches;
        if (epoch !== currentEpoch) {
          train.setEpoch(epoch);
          currentEpoch = epoch;
        }
        const metrics: Record<string, number> = {};
        if (evalEvery > 0 && step % evalEvery === 0 && evaluators.length > 0) {
          Object.assign(metrics, await timed('evaluation', metrics, () => runEvaluators(evaluators, step)));
        }
        if (infrequentEvalEvery > 0 && step % infrequentEvalEvery === 0 && infrequent.length > 0) {
          Object.assign(metrics, await timed('infrequent_evaluation', metrics, () => runEvaluators(infrequent, step)));
        }
        const data = await timed('get_batch', metrics, () => train.getBatch(batch));
        if (step === startStep && tokenizerForDisplay !== undefined && data.length > 0) {
          const t = new Transcript(`Training examples (step ${step})`);
          for (const d of data.slice(0, 4)) t.add(new DatumFormatter(d, tokenizerForDisplay));
          await t.write(join(config.logPath, 'transcripts', `train_examples_step_${checkpointName(step)}.html`));
        }
        elapsedTokens += data.reduce((a, d) => a + d.modelInput.length, 0);
        const lr = learningRate * computeScheduleLrMultiplier(lrSchedule, step, totalSteps);
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
            record: {
              epoch: Math.floor(done / nBatches),
              batch: done % nBatches,
              step: done,
              elapsed_tokens: elapsedTokens,
            },
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

    // Final evaluation (after the last update) and final checkpoint.
    const finalMetrics: Record<string, number> = {};
    const finalEvals = [...(evalEvery > 0 ? evaluators : []), ...(infrequentEvalEvery > 0 ? infrequent : [])];
    if (finalEvals.length > 0) {
      Object.assign(finalMetrics, await timed('evaluation', finalMetrics, () => runEvaluators(finalEvals, totalSteps)));
      logger.logMetrics({ ...finalMetrics, progress: 1 }, totalSteps);
    }
    const paths = await submitCheckpointSave(client, 'final', { kind: 'both', ttlSeconds: null });
    const finalCheckpoint: CheckpointRecord = {
      name: 'final',
      epoch: Math.floor(totalSteps / nBatches),
      batch: totalSteps % nBatches,
      step: totalSteps,
      final: true,
      elapsed_tokens: elapsedTokens,
      ...paths,
    };
    appendCheckpointRecord(config.logPath, finalCheckpoint);
    log(`done: final checkpoint ${paths.state_path ?? ''} (sampler ${paths.sampler_path ?? 'none'})`);
    return { ran: true, startStep, totalSteps, finalCheckpoint, trainingClient: client };
  } finally {
    await logger.close();
    if (config.writeReport ?? true) {
      try {
        await writeRunReport(config.logPath);
      } catch (error) {
        log(`could not write report.html: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (ownsService) await service.close?.();
  }
}
