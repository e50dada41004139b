/**
 * Off-policy distillation (upstream `distillation/train_off_policy.py`): supervised batches of text, each datum
 * teacher-forced through the teacher for its top-K next-token logprobs, trained with `cross_entropy` on (N, K) targets
 * weighted by the renormalised teacher probabilities. The teacher targets of the next batch are fetched while the
 * current one trains, with at most `teacherConcurrency` teacher calls in flight.
 *
 * Metrics per step: `train/distill_loss` (cross entropy to the teacher's top-K distribution per weighted token),
 * `teacher/tokens_per_s`; every `evalEvery` steps `test/nll` (the student's NLL on the held-out text) and, once at
 * the start, `test/teacher_nll` (the teacher's NLL on the same text: the floor the student approaches); every
 * `infrequentEvalEvery` steps whatever the infrequent evaluators report (sampling ones sample the student).
 */
import { performance } from 'node:perf_hooks';
import {
  computeScheduleLrMultiplier,
  configToKeyStyle,
  DataError,
  type Datum,
  resolveLearningRate,
} from '@cookbook/core';
import { computeMeanNll, datumWeights, NLLEvaluator } from '@cookbook/eval';
import { appendCheckpointRecord, type CheckpointRecord, checkpointName, submitCheckpointSave } from '@cookbook/logging';
import type { SupervisedDatasetBuilder, SupervisedDatasets } from '@cookbook/supervised';
import {
  type SamplingClientLike,
  ServiceClient,
  type ServiceClientLike,
  type TrainingClientLike,
} from '@cookbook/tinker-client';
import {
  checkpointConfigShape,
  type Evaluator,
  type EvaluatorOrBuilder,
  infrequentEvalEveryField,
  loopService,
  openTrainingClient,
  type RunOutputDeps,
  type RunResult,
  resolveEvaluators,
  runConfigShape,
  runEvaluators,
  runLoop,
  runOutputOptions,
} from '@cookbook/training';
import { z } from 'zod';
import { mapLimit } from './internal/concurrency.js';
import { createTeacher, type TeacherServiceClient, teacherConfigShape } from './teacher.js';
import { distillationDatum, fullSequence, type TopkRow, weightSum } from './topk.js';

/** The off-policy distillation config. */
export const OffPolicyDistillationConfigSchema = z.object({
  ...runConfigShape,
  ...checkpointConfigShape,
  ...teacherConfigShape,
  modelName: z
    .string()
    .default('local/qwen3-tiny')
    .describe('Student base model, trained with LoRA (hosted example: Qwen/Qwen3-8B)'),
  loadCheckpointPath: z
    .string()
    .nullable()
    .default(null)
    .describe('Start the student from these weights (tinker://…/weights/…), fresh optimizer; ignored when resuming'),
  loraRank: z.number().int().positive().default(32).describe('LoRA rank of the student'),
  learningRate: z
    .number()
    .positive()
    .nullable()
    .default(null)
    .describe('Base learning rate; null = 1e-2 for local/* tiny models, else the hyperparam_utils.get_lr heuristic'),
  lrSchedule: z.enum(['linear', 'cosine', 'constant']).default('linear').describe('Learning-rate schedule'),
  numEpochs: z.number().int().positive().default(1).describe('Passes over the training text'),
  maxSteps: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('Stop after this many steps in total (across resumes); null = all epochs'),
  evalEvery: z.number().int().nonnegative().default(10).describe('Steps between evaluations (0 = never)'),
  infrequentEvalEvery: infrequentEvalEveryField,
  nTeacherTargets: z
    .number()
    .int()
    .positive()
    .default(20)
    .describe('K: teacher tokens per position (top-K prompt logprobs), renormalised into the target weights'),
  teacherConcurrency: z.number().int().positive().default(64).describe('Most teacher calls in flight'),
});
/** The parsed off-policy distillation config. */
export type OffPolicyDistillationConfig = z.infer<typeof OffPolicyDistillationConfigSchema>;
/** The config before defaults. */
export type OffPolicyDistillationConfigInput = z.input<typeof OffPolicyDistillationConfigSchema>;

/** The training calls the loop makes. */
export interface OffPolicyTrainingClient
  extends Pick<
    TrainingClientLike,
    'forward' | 'forwardBackward' | 'optimStep' | 'saveState' | 'saveWeightsForSampler'
  > {
  /** Needed only by sampling evaluators. */
  saveWeightsAndGetSamplingClient?(name?: string): Promise<SamplingClientLike>;
}

/** The service calls the loop makes. */
export interface OffPolicyServiceClient extends TeacherServiceClient {
  createLoraTrainingClient(
    ...args: Parameters<ServiceClientLike['createLoraTrainingClient']>
  ): Promise<OffPolicyTrainingClient>;
  createTrainingClientFromState(
    ...args: Parameters<ServiceClientLike['createTrainingClientFromState']>
  ): Promise<OffPolicyTrainingClient>;
  close?(): Promise<void>;
}

/** What the loop needs besides its config. */
export interface OffPolicyDistillationDeps extends RunOutputDeps {
  /** The text to distil on (supervised datums; weights mark the trained tokens), or a builder run before any write. */
  dataset: SupervisedDatasetBuilder | SupervisedDatasets;
  /** Extra evaluators (or builders) run every `evalEvery` steps; `test/nll` on the test set is added. */
  evaluators?: readonly EvaluatorOrBuilder[];
  /** Evaluators (or builders) run every `infrequentEvalEvery` steps (e.g. a benchmark of the student's samples). */
  infrequentEvaluators?: readonly EvaluatorOrBuilder[];
  /** Default: a ServiceClient on `baseUrl` (or the environment / embedded service), closed at the end. */
  serviceClient?: OffPolicyServiceClient;
  /** Called after each step's metrics are logged. */
  onStep?: (step: number, metrics: Record<string, number>) => void;
}

/** Teacher targets of a batch and what fetching them cost. */
export interface TeacherBatch {
  data: Datum[];
  tokens: number;
  seconds: number;
}

/**
 * Teacher-forces every datum through `teacher` (top-K prompt logprobs, at most `concurrency` calls in flight) and
 * returns the (N, K) distillation datums.
 */
export async function teacherTargets(
  teacher: Pick<SamplingClientLike, 'sample'>,
  batch: readonly Datum[],
  K: number,
  concurrency: number,
): Promise<TeacherBatch> {
  const t0 = performance.now();
  let tokens = 0;
  const data = await mapLimit(batch, concurrency, async (d, i) => {
    const seq = fullSequence(d);
    tokens += seq.length;
    const res = await teacher.sample({
      prompt: seq,
      numSamples: 1,
      samplingParams: { maxTokens: 1 },
      topkPromptLogprobs: K,
    });
    if (res.topkPromptLogprobs === undefined) {
      throw new DataError(`the teacher returned no topk_prompt_logprobs for datum ${i}`, {
        field: 'topk_prompt_logprobs',
      });
    }
    return distillationDatum(d, res.topkPromptLogprobs as TopkRow[], K);
  });
  return { data, tokens, seconds: (performance.now() - t0) / 1000 };
}

/** The teacher's mean NLL per weighted token on `data` (teacher-forced prompt logprobs). */
export async function teacherNll(
  teacher: Pick<SamplingClientLike, 'computeLogprobs'>,
  data: readonly Datum[],
  concurrency: number,
): Promise<number> {
  const logprobs = await mapLimit(data, concurrency, async (d) =>
    (await teacher.computeLogprobs(fullSequence(d))).slice(1).map((x) => x ?? 0),
  );
  return computeMeanNll(
    logprobs,
    data.map((d) => datumWeights(d)),
  );
}

/** What a run returns: the shared result. */
export type OffPolicyDistillationResult = RunResult;

/**
 * Distils the teacher into the student on `deps.dataset`, logging to `logPath` and checkpointing every `saveEvery`
 * steps; resumes from the last checkpoint when the log dir exists and the behaviour is `resume`.
 */
export async function trainOffPolicyDistillation(
  input: OffPolicyDistillationConfigInput,
  deps: OffPolicyDistillationDeps,
): Promise<OffPolicyDistillationResult> {
  const config = OffPolicyDistillationConfigSchema.parse(input);
  const learningRate = resolveLearningRate(config.modelName, config.learningRate, {
    tinyModelLr: 1e-2,
    heuristicDivisor: 1,
  });
  const K = config.nTeacherTargets;
  let datasets: SupervisedDatasets | undefined;
  // The server is contacted before the run folder is touched (nothing created or deleted if it is unreachable).
  const connection = loopService<OffPolicyServiceClient>(
    deps.serviceClient,
    () => new ServiceClient(config.baseUrl ? { baseURL: config.baseUrl } : {}),
  );
  return runLoop(
    {
      connect: connection.connect,
      ...config,
      ...runOutputOptions(deps, () =>
        configToKeyStyle(OffPolicyDistillationConfigSchema, { ...config, learningRate }, { keyStyle: 'snake_case' }),
      ),
      prepare: async () => {
        datasets = typeof deps.dataset === 'function' ? await deps.dataset() : deps.dataset;
        if (datasets.train.length === 0) {
          throw new DataError('the training text has fewer examples than one batch; lower batch_size or add data', {
            field: 'batch_size',
          });
        }
      },
    },
    async (run) => {
      const { train, test } = datasets!;
      const nBatches = train.length;
      const totalSteps = Math.min(nBatches * config.numEpochs, config.maxSteps ?? Number.POSITIVE_INFINITY);
      const startStep = run.startStep;
      if (startStep >= totalSteps) return { totalSteps, endStep: startStep, finalCheckpoint: run.resumeFrom };
      run.setTotalSteps(totalSteps);
      const service: OffPolicyServiceClient = connection.get();
      const { client } = await openTrainingClient(run, service, {
        modelName: config.modelName,
        loraRank: config.loraRank,
        loadCheckpointPath: config.loadCheckpointPath,
      });
      const teacher = await createTeacher(
        service,
        { baseModel: config.teacherModel, checkpoint: config.teacherCheckpoint },
        config.modelName,
      );
      run.log(`teacher: ${teacher.description}; top-${K} targets, ${config.teacherConcurrency} calls in flight`);

      const evaluators: Evaluator[] = await resolveEvaluators(deps.evaluators);
      if (test !== undefined) evaluators.push(new NLLEvaluator(test, 'test'));
      const infrequent = await resolveEvaluators(deps.infrequentEvaluators);
      const evaluate = (list: readonly Evaluator[], step: number) =>
        runEvaluators(
          list,
          { training: client, sampler: client.saveWeightsAndGetSamplingClient?.bind(client) },
          { step, logPath: config.logPath, log: run.log },
        );
      const testData = test === undefined ? [] : Array.from({ length: test.length }, (_, i) => test.getBatch(i)).flat();

      let currentEpoch = -1;
      const batchAt = (step: number): Datum[] => {
        const epoch = Math.floor(step / nBatches);
        if (epoch !== currentEpoch) {
          train.setEpoch(epoch);
          currentEpoch = epoch;
        }
        return train.getBatch(step % nBatches);
      };
      const fetch = (step: number) => {
        const p = teacherTargets(teacher.sampler, batchAt(step), K, config.teacherConcurrency);
        p.catch(() => undefined);
        return p;
      };
      const record = (done: number): Omit<CheckpointRecord, 'name'> => ({
        epoch: Math.floor(done / nBatches),
        batch: done % nBatches,
        step: done,
      });

      let step = startStep;
      let next = fetch(step);
      for (; step < totalSteps && !run.signal.aborted; step++) {
        const stepStart = performance.now();
        const metrics: Record<string, number> = {};
        if (step === startStep && testData.length > 0) {
          metrics['test/teacher_nll'] = await teacherNll(teacher.sampler, testData, config.teacherConcurrency);
        }
        if (config.evalEvery > 0 && step % config.evalEvery === 0 && evaluators.length > 0) {
          Object.assign(metrics, await evaluate(evaluators, step));
        }
        if (config.infrequentEvalEvery > 0 && step % config.infrequentEvalEvery === 0 && infrequent.length > 0) {
          Object.assign(metrics, await evaluate(infrequent, step));
        }
        const tWait = performance.now();
        const batch = await next;
        metrics['time/teacher_wait'] = (performance.now() - tWait) / 1000;
        if (step + 1 < totalSteps) next = fetch(step + 1);
        const lr = learningRate * computeScheduleLrMultiplier(config.lrSchedule, step, totalSteps);
        const fb = client.forwardBackward(batch.data, 'cross_entropy');
        const optim = client.optimStep({ learningRate: lr, beta1: 0.9, beta2: 0.95, eps: 1e-8 });
        const [out] = await Promise.all([fb, optim]);
        const weight = batch.data.reduce((a, d) => a + weightSum(d), 0);
        Object.assign(metrics, {
          'train/distill_loss': weight > 0 ? (out.metrics['loss:sum'] ?? Number.NaN) / weight : 0,
          'teacher/tokens_per_s': batch.seconds > 0 ? batch.tokens / batch.seconds : 0,
          'time/teacher': batch.seconds,
          num_sequences: batch.data.length,
          num_tokens: batch.tokens,
          learning_rate: lr,
          progress: (step + 1) / totalSteps,
        });
        const done = step + 1;
        if (config.saveEvery > 0 && done % config.saveEvery === 0 && done < totalSteps) {
          const name = checkpointName(done);
          const paths = await submitCheckpointSave(client, name, { kind: 'both', ttlSeconds: config.ttlSeconds });
          appendCheckpointRecord(config.logPath, { name, ...record(done), ...paths });
        }
        metrics['time/total'] = (performance.now() - stepStart) / 1000;
        run.logger.logMetrics(metrics, step);
        deps.onStep?.(step, metrics);
      }
      await Promise.allSettled([next]);

      if (step < totalSteps) {
        if (step > startStep && !(config.saveEvery > 0 && step % config.saveEvery === 0)) {
          const name = checkpointName(step);
          const paths = await submitCheckpointSave(client, name, { kind: 'both', ttlSeconds: config.ttlSeconds });
          appendCheckpointRecord(config.logPath, { name, ...record(step), ...paths });
        }
        return { totalSteps, endStep: step };
      }
      const finalEvals = [
        ...(config.evalEvery > 0 ? evaluators : []),
        ...(config.infrequentEvalEvery > 0 ? infrequent : []),
      ];
      if (finalEvals.length > 0) {
        const m = await evaluate(finalEvals, totalSteps);
        run.logger.logMetrics({ ...m, progress: 1 }, totalSteps);
        deps.onStep?.(totalSteps, m);
      }
      const paths = await submitCheckpointSave(client, 'final', { kind: 'both', ttlSeconds: null });
      const finalCheckpoint: CheckpointRecord = { name: 'final', ...record(totalSteps), final: true, ...paths };
      appendCheckpointRecord(config.logPath, finalCheckpoint);
      return { totalSteps, endStep: totalSteps, finalCheckpoint };
    },
  );
}
