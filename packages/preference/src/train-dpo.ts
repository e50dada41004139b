/**
 * The DPO training loop (upstream `preference/train_dpo.py`) on the shared run contract (`runLoop`). Per step:
 * evaluations (they see the weights before the step), reference sequence logprobs of the batch from a frozen sampler,
 * then `forwardBackwardCustom` with the DPO loss and the optimizer step, submitted back to back.
 *
 * Deliberate differences: the reference logprobs of the next batch are requested while the current step trains (the
 * reference is frozen, so this changes no number); the reference sampler path is stored in every checkpoint record,
 * so a resumed run compares against the same starting weights, not the resumed ones; a periodic checkpoint holds
 * exactly the first `step` updates and names the next batch (as the SFT loop).
 */
import { performance } from 'node:perf_hooks';
import { ConfigError, type Datum, recordTime, timed } from '@cookbook/core';
import { deferred } from '@cookbook/logging';
import { type Renderer, resolveModelSetup } from '@cookbook/renderers';
import { adamConfigShape, type SupervisedDataset } from '@cookbook/supervised';
import type { ServiceClientLike, TrainingClientLike } from '@cookbook/tinker-client';
import {
  checkpointStoreFor,
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
import { type ComparisonDatasetBuilder, type ComparisonDatasets, dpoDataset, dpoDatums } from './dpo-data.js';
import { DpoPairEvaluator, type ReferenceLogprobs, referenceSequenceLogprobs } from './dpo-evaluator.js';
import { type DpoMetrics, dpoLoss } from './dpo-loss.js';

/** The DPO config (upstream `train_dpo.Config`): the shared training fields and DPO's own. */
export const DpoTrainConfigSchema = z.object({
  ...trainingConfigShape,
  referenceCheckpoint: z
    .string()
    .nullable()
    .default(null)
    .describe('Sampler weights (tinker://…/sampler_weights/…) of the reference; null = a frozen copy of the start'),
  learningRate: trainingConfigShape.learningRate
    .unwrap()
    .unwrap()
    .default(1e-5)
    .describe('Adam learning rate at step 0'),
  dpoBeta: z.number().positive().default(0.1).describe('β: scale of the implicit reward β·(π − ref)'),
  batchSize: z.number().int().positive().default(256).describe('Comparisons (pairs) per step; 2× datums'),
  maxLength: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(8192)
    .describe('Tokens per sequence (cut from the end); null = no limit'),
  seed: z
    .number()
    .int()
    .default(0)
    .describe('Seed of the LoRA initialisation and of the per-epoch shuffle (epoch e uses seed + e)'),
  ...adamConfigShape,
});
/** The parsed DPO config. */
export type DpoTrainConfig = z.infer<typeof DpoTrainConfigSchema>;
/** The DPO config before defaults. */
export type DpoTrainConfigInput = z.input<typeof DpoTrainConfigSchema>;

/** What the DPO loop calls on a training client. */
export type DpoTrainingClient = Pick<
  TrainingClientLike,
  'forward' | 'forwardBackwardCustom' | 'optimStep' | 'saveState' | 'saveWeightsForSampler'
> &
  Partial<Pick<TrainingClientLike, 'saveWeightsAndGetSamplingClient'>>;

/** What the DPO loop calls on the service. */
export interface DpoServiceClient {
  createLoraTrainingClient(
    ...args: Parameters<ServiceClientLike['createLoraTrainingClient']>
  ): Promise<DpoTrainingClient>;
  createTrainingClientFromState(
    ...args: Parameters<ServiceClientLike['createTrainingClientFromState']>
  ): Promise<DpoTrainingClient>;
  createSamplingClient(args: { baseModel?: string; modelPath?: string }): Promise<ReferenceLogprobs>;
}

/** What the DPO loop needs besides its config. */
export interface DpoTrainDeps extends TrainingLoopDeps<DpoServiceClient> {
  /**
   * The comparisons (or a builder, run before anything is written). With a test set the loop adds `test/nll`,
   * `test/bpb` (NLL of the chosen completions) and the held-out DPO metrics `test/pair_accuracy`, `test/dpo_loss`,
   * `test/margin` to `evaluators`.
   */
  dataset: ComparisonDatasetBuilder | ComparisonDatasets;
  /** Renders comparisons; default: `rendererName` (or the model's recommended renderer) over the model's tokenizer. */
  renderer?: Renderer;
  /** Called after each step's metrics are logged. */
  onStepLogged?: (step: number, metrics: Record<string, number>) => void;
}

/** What {@link trainDpo} returns: the shared result, with the training client and the reference sampler path. */
export type DpoTrainResult = RunResult<{ trainingClient: DpoTrainingClient; referencePath: string | undefined }>;

/** The renderer of a run: `deps.renderer`, else `rendererName` or the model's recommended one. */
function rendererOf(plan: RunPlan<DpoTrainConfig>, deps: DpoTrainDeps): Renderer {
  if (deps.renderer) return deps.renderer;
  return resolveModelSetup({ modelName: plan.config.modelName, rendererName: plan.rendererName }).renderer;
}

/**
 * Trains `modelName` with DPO on `deps.dataset`, logging to `logPath`; resumes from the last checkpoint when the log
 * dir exists and the behaviour is `resume`.
 */
export async function trainDpo(
  input: DpoTrainConfigInput | RunPlan<DpoTrainConfig>,
  deps: DpoTrainDeps,
): Promise<DpoTrainResult> {
  const plan = resolveRunPlan(DpoTrainConfigSchema, input, { loop: 'supervised', hparams: deps.hparams });
  const { config, adam } = plan;
  const { ttlSeconds, dpoBeta: beta } = config;
  let train: SupervisedDataset | undefined;
  let testDatums: Datum[] | undefined;
  let renderer: Renderer | undefined;
  const prepare = async () => {
    renderer = rendererOf(plan, deps);
    const data = typeof deps.dataset === 'function' ? await deps.dataset() : deps.dataset;
    train = dpoDataset(data.train, config.batchSize, renderer, config.maxLength);
    if (data.test !== undefined && data.test.length > 0) testDatums = dpoDatums(data.test, renderer, config.maxLength);
  };
  return runTrainingLoop(plan, deps, { prepare }, async (run, service: DpoServiceClient) => {
    const log = run.log;
    const nBatches = train!.length;
    let trainingClient: DpoTrainingClient | undefined;
    let referencePath: string | undefined;
    const outcome = await runEpochs(run, { ...config, nBatches }, async (startStep, totalSteps) => {
      const resumeFrom = run.resumeFrom;
      const { client } = await openTrainingClient<DpoTrainingClient>(run, service, {
        ...config,
        userMetadata: runUserMetadata(config),
      });
      trainingClient = client;

      // The reference: a given checkpoint, the one a resumed run used, or a frozen snapshot of the starting weights.
      referencePath =
        config.referenceCheckpoint ??
        (typeof resumeFrom?.reference_sampler_path === 'string' ? resumeFrom.reference_sampler_path : undefined);
      if (referencePath === undefined) {
        if (resumeFrom !== undefined) {
          throw new ConfigError(
            `checkpoint "${resumeFrom.name}" names no reference_sampler_path; pass reference_checkpoint=… to resume`,
            { key: 'reference_checkpoint' },
          );
        }
        const saved = await client.saveWeightsForSampler('reference', { ...(ttlSeconds ? { ttlSeconds } : {}) });
        if (saved.path === undefined) {
          throw new ConfigError(
            'the service returned no path for the reference snapshot; pass reference_checkpoint=…',
            { key: 'reference_checkpoint' },
          );
        }
        referencePath = saved.path;
        log(`reference: frozen snapshot of the starting weights at ${referencePath}`);
      } else log(`reference: ${referencePath}`);
      const reference = await service.createSamplingClient({ modelPath: referencePath });

      const evaluators: EvaluatorOrBuilder[] = [...(deps.evaluators ?? [])];
      if (testDatums !== undefined) {
        evaluators.push(new NLLEvaluator(chosenOnly(testDatums), 'test', renderer!.tokenizer));
        evaluators.push(new DpoPairEvaluator({ datums: testDatums, reference, beta, name: 'test' }));
      }

      // Batches with their reference logprobs, requested one step ahead.
      let currentEpoch = -1;
      const batchAt = (step: number): { data: Datum[]; ref: Promise<number[]> } => {
        const epoch = Math.floor(step / nBatches);
        if (epoch !== currentEpoch) {
          train!.setEpoch(config.seed + epoch);
          currentEpoch = epoch;
        }
        const data = train!.getBatch(step % nBatches);
        return { data, ref: deferred(referenceSequenceLogprobs(reference, data)) };
      };
      log(
        `DPO on ${config.modelName}: ${totalSteps} steps of ${config.batchSize} pairs, β ${beta}, from step ${startStep}`,
      );
      let next = batchAt(startStep);
      let elapsedTokens = typeof resumeFrom?.elapsed_tokens === 'number' ? resumeFrom.elapsed_tokens : 0;
      return {
        client,
        evaluators,
        infrequentEvaluators: deps.infrequentEvaluators ?? [],
        checkpointFields: () => ({ reference_sampler_path: referencePath }),
        elapsedTokens: () => elapsedTokens,
        checkpointStore: checkpointStoreFor(service),
        ...(deps.onStepLogged ? { onLogged: (step, m, final) => final || deps.onStepLogged!(step, m) } : {}),
        stop: async () => {
          await Promise.allSettled([next.ref]);
        },
        async submit(at, metrics) {
          const { data, ref } = next;
          elapsedTokens += data.reduce((a, d) => a + d.modelInput.length, 0);
          const refLogprobs = await timed('reference_logprobs', metrics, () => ref);
          if (at.step + 1 < at.totalSteps) next = batchAt(at.step + 1);
          let dpo: DpoMetrics | undefined;
          const t0 = performance.now();
          const fb = deferred(
            client.forwardBackwardCustom(data, (d, logprobs) => {
              const out = dpoLoss(d, logprobs, refLogprobs, beta);
              dpo = out.metrics;
              return { loss: out.loss, gradLogprobs: out.gradLogprobs };
            }),
          );
          const optim = deferred(client.optimStep({ learningRate: at.learningRate, ...adam }));
          return {
            inFlight: [fb, optim],
            collect: async () => {
              await fb;
              recordTime(metrics, 'forward_backward', t0);
              const t1 = performance.now();
              const opt = await optim;
              recordTime(metrics, 'optim', t1);
              return {
                ...dpo,
                num_tokens: data.reduce((a, d) => a + d.modelInput.length, 0),
                learning_rate: at.learningRate,
                progress: (at.step + 1) / at.totalSteps,
                epoch: at.epoch,
                ...opt.metrics,
              };
            },
          };
        },
      };
    });
    return {
      ...outcome,
      ...(trainingClient ? { value: { trainingClient, referencePath } } : {}),
    };
  });
}

/** The chosen datums (even positions) of interleaved pairs. */
function chosenOnly(datums: readonly Datum[]): Datum[] {
  return datums.filter((_, i) => i % 2 === 0);
}
