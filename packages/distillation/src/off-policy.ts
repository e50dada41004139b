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
import { DataError, type Datum, recordTime } from '@cookbook/core';
import type { SupervisedDatasetBuilder, SupervisedDatasets } from '@cookbook/supervised';
import type { SamplingClientLike, ServiceClientLike, TrainingClientLike } from '@cookbook/tinker-client';
import {
  checkpointStoreFor,
  computeMeanNll,
  datumWeights,
  type EpochLoop,
  type EvaluatorOrBuilder,
  NLLEvaluator,
  openTrainingClient,
  type RunPlan,
  type RunResult,
  resolveRunPlan,
  runEpochs,
  runTrainingLoop,
  runUserMetadata,
  type TrainingLoopDeps,
  trainingConfigShape,
} from '@cookbook/training';
import { z } from 'zod';
import { mapLimit } from './internal/concurrency.js';
import { createTeacher, type TeacherServiceClient, teacherConfigShape } from './teacher.js';
import { distillationDatum, fullSequence, type TopkRow, weightSum } from './topk.js';

/** The off-policy distillation config: the shared training fields (the student's), the teacher's and K. */
export const OffPolicyDistillationConfigSchema = z.object({
  ...trainingConfigShape,
  ...teacherConfigShape,
  modelName: trainingConfigShape.modelName.describe(
    'Student base model, trained with LoRA (hosted example: Qwen/Qwen3-8B)',
  ),
  numEpochs: trainingConfigShape.numEpochs.describe('Passes over the training text'),
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
export interface OffPolicyDistillationDeps extends TrainingLoopDeps<OffPolicyServiceClient> {
  /**
   * The text to distil on (supervised datums; weights mark the trained tokens), or a builder run before any write;
   * `test/nll` on its test set joins `evaluators`.
   */
  dataset: SupervisedDatasetBuilder | SupervisedDatasets;
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
  input: OffPolicyDistillationConfigInput | RunPlan<OffPolicyDistillationConfig>,
  deps: OffPolicyDistillationDeps,
): Promise<OffPolicyDistillationResult> {
  const plan = resolveRunPlan(OffPolicyDistillationConfigSchema, input, { loop: 'supervised', hparams: deps.hparams });
  const { config, adam } = plan;
  const K = config.nTeacherTargets;
  let datasets: SupervisedDatasets | undefined;
  const prepare = async () => {
    datasets = typeof deps.dataset === 'function' ? await deps.dataset() : deps.dataset;
    if (datasets.train.length === 0) {
      throw new DataError('the training text has fewer examples than one batch; lower batch_size or add data', {
        field: 'batch_size',
      });
    }
  };
  return runTrainingLoop(plan, deps, { prepare }, async (run, service: OffPolicyServiceClient) => {
    const { train, test } = datasets!;
    const nBatches = train.length;
    return runEpochs(run, { ...config, nBatches }, async (startStep): Promise<EpochLoop> => {
      const { client } = await openTrainingClient(run, service, {
        modelName: config.modelName,
        loraRank: config.loraRank,
        loadCheckpointPath: config.loadCheckpointPath,
        userMetadata: runUserMetadata(config),
      });
      const teacher = await createTeacher(
        service,
        { baseModel: config.teacherModel, checkpoint: config.teacherCheckpoint },
        config.modelName,
      );
      run.log(`teacher: ${teacher.description}; top-${K} targets, ${config.teacherConcurrency} calls in flight`);
      const evaluators: EvaluatorOrBuilder[] = [...(deps.evaluators ?? [])];
      if (test !== undefined) evaluators.push(new NLLEvaluator(test, 'test'));
      const testData = test === undefined ? [] : Array.from({ length: test.length }, (_, i) => test.getBatch(i)).flat();

      // The teacher targets of the next batch are fetched while the current one trains.
      let currentEpoch = -1;
      const fetch = (step: number) => {
        const epoch = Math.floor(step / nBatches);
        if (epoch !== currentEpoch) {
          train.setEpoch(epoch);
          currentEpoch = epoch;
        }
        const p = teacherTargets(teacher.sampler, train.getBatch(step % nBatches), K, config.teacherConcurrency);
        p.catch(() => undefined);
        return p;
      };
      let next = fetch(startStep);
      const resumeTokens = run.resumeFrom?.elapsed_tokens;
      let elapsedTokens = typeof resumeTokens === 'number' ? resumeTokens : 0;
      return {
        client,
        elapsedTokens: () => elapsedTokens,
        checkpointStore: checkpointStoreFor(service),
        evaluators,
        infrequentEvaluators: deps.infrequentEvaluators ?? [],
        ...(deps.onStep ? { onLogged: (step, m) => deps.onStep!(step, m) } : {}),
        stop: async () => {
          await Promise.allSettled([next]);
        },
        // The teacher's NLL on the held-out text, once: the floor the student approaches.
        preStep: async (at): Promise<Record<string, number>> =>
          at.step === at.startStep && testData.length > 0
            ? { 'test/teacher_nll': await teacherNll(teacher.sampler, testData, config.teacherConcurrency) }
            : {},
        async submit(at, metrics) {
          const tWait = performance.now();
          const batch = await next;
          recordTime(metrics, 'teacher_wait', tWait);
          if (at.step + 1 < at.totalSteps) next = fetch(at.step + 1);
          elapsedTokens += batch.data.reduce((a, d) => a + d.modelInput.length, 0);
          const fb = client.forwardBackward(batch.data, 'cross_entropy');
          const optim = client.optimStep({ learningRate: at.learningRate, ...adam });
          const both = Promise.all([fb, optim]);
          both.catch(() => undefined);
          return {
            inFlight: [both],
            collect: async () => {
              const [out] = await both;
              const weight = batch.data.reduce((a, d) => a + weightSum(d), 0);
              return {
                'train/distill_loss': weight > 0 ? (out.metrics['loss:sum'] ?? Number.NaN) / weight : 0,
                'teacher/tokens_per_s': batch.seconds > 0 ? batch.tokens / batch.seconds : 0,
                'time/teacher': batch.seconds,
                num_sequences: batch.data.length,
                num_tokens: batch.tokens,
                learning_rate: at.learningRate,
                progress: (at.step + 1) / at.totalSteps,
              };
            },
          };
        },
      };
    });
  });
}
