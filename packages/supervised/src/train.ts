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
import { DataError, type Datum, recordTime, timed } from '@cookbook/core';
import { checkpointName, deferred, Transcript } from '@cookbook/logging';
import type { ForwardBackwardOutput } from '@cookbook/tinker-client';
import { getTokenizer } from '@cookbook/tokenizers';
import {
  checkpointStoreFor,
  computeMeanNll,
  datumWeights,
  type EvaluatorOrBuilder,
  type LoopOutcome,
  NLLEvaluator,
  openTrainingClient,
  type RunContext,
  type RunPlan,
  type RunResult,
  resolveRunPlan,
  runEpochs,
  runTrainingLoop,
  runUserMetadata,
  serviceClientFor,
  type TrainingLoopDeps,
  trainingConfigShape,
} from '@cookbook/training';
import { z } from 'zod';
import { adamConfigShape } from './adam.js';
import type { SupervisedDatasetBuilder, SupervisedDatasets } from './dataset.js';
import { DatumFormatter } from './internal/datum-html.js';

import type { SupervisedServiceClient, SupervisedTrainingClient } from './types.js';

/** The SFT config (upstream `supervised/train.Config`): the shared training fields, Adam's, and pipelining. */
export const SupervisedTrainConfigSchema = z.object({
  ...trainingConfigShape,
  ...adamConfigShape,
  submitAhead: z.number().int().nonnegative().default(1).describe('Steps submitted before the previous one is awaited'),
});
/** The parsed SFT config. */
export type SupervisedTrainConfig = z.infer<typeof SupervisedTrainConfigSchema>;
/** The SFT config before defaults (what callers write). */
export type SupervisedTrainConfigInput = z.input<typeof SupervisedTrainConfigSchema>;

/** What the SFT loop needs besides its config. */
export interface SupervisedTrainDeps extends TrainingLoopDeps<SupervisedServiceClient> {
  /**
   * Datasets, or a builder (run before anything is written, so bad data fails early). An NLL evaluator on the test
   * set (`test/nll`, `test/bpb`) joins `evaluators`.
   */
  dataset: SupervisedDatasetBuilder | SupervisedDatasets;
  /** Called after each step's metrics are logged (before its checkpoint record); for tests and hooks. */
  onStepLogged?: (step: number, metrics: Record<string, number>) => void;
}

/** What {@link trainSupervised} returns: the shared result, with the training client as `value`. */
export type SupervisedTrainResult = RunResult<{ trainingClient: SupervisedTrainingClient }>;

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
  input: SupervisedTrainConfigInput | RunPlan<SupervisedTrainConfig>,
  deps: SupervisedTrainDeps,
): Promise<SupervisedTrainResult> {
  const plan = resolveRunPlan(SupervisedTrainConfigSchema, input, { loop: 'supervised', hparams: deps.hparams });
  let datasets: SupervisedDatasets | undefined;
  return runTrainingLoop(
    plan,
    deps,
    {
      // The data is built and checked before an old run is deleted.
      prepare: async () => {
        datasets = typeof deps.dataset === 'function' ? await deps.dataset() : deps.dataset;
        checkDatasets(datasets);
      },
    },
    (run, serviceClient) => supervisedSteps(run, plan, datasets!, { ...deps, serviceClient }),
  );
}

/** What {@link runSupervisedSteps} needs besides the config and the datasets. */
export type SupervisedStepsDeps = Pick<
  SupervisedTrainDeps,
  'evaluators' | 'infrequentEvaluators' | 'serviceClient' | 'onStepLogged'
>;

/**
 * The SFT loop's steps inside a run lifecycle the caller opened with `runLoop` (`@cookbook/training`):
 * {@link trainSupervised} is `runLoop` around this. For a run that does more than SFT under one log-dir policy,
 * one `config.json` and one close, e.g. a recipe that first writes its training data into the log dir. Without
 * `deps.serviceClient` it opens a ServiceClient on `baseUrl` and registers it with `run.own`.
 * @throws DataError when the training set holds no batch.
 */
export async function runSupervisedSteps(
  run: RunContext,
  input: SupervisedTrainConfigInput | RunPlan<SupervisedTrainConfig>,
  datasets: SupervisedDatasets,
  deps: SupervisedStepsDeps = {},
): Promise<LoopOutcome<{ trainingClient: SupervisedTrainingClient }>> {
  return supervisedSteps(
    run,
    resolveRunPlan(SupervisedTrainConfigSchema, input, { loop: 'supervised' }),
    datasets,
    deps,
  );
}

/** One SFT step in flight. */
interface SftWork {
  data: Datum[];
  fwdBwd: Promise<ForwardBackwardOutput>;
  optim: Promise<{ metrics: Record<string, number> }>;
}

async function supervisedSteps(
  run: RunContext,
  plan: RunPlan<SupervisedTrainConfig>,
  datasets: SupervisedDatasets,
  deps: SupervisedStepsDeps,
): Promise<LoopOutcome<{ trainingClient: SupervisedTrainingClient }>> {
  const { config, adam } = plan;
  checkDatasets(datasets);
  const train = datasets.train;
  const nBatches = train.length;
  let trainingClient: SupervisedTrainingClient | undefined;
  const outcome = await runEpochs(run, { ...config, nBatches }, async (startStep, totalSteps) => {
    const service: SupervisedServiceClient = deps.serviceClient ?? run.own(serviceClientFor(config));
    const { client } = await openTrainingClient<SupervisedTrainingClient>(run, service, {
      ...config,
      userMetadata: runUserMetadata(config),
    });
    trainingClient = client;
    let tokenizerForDisplay: ReturnType<typeof getTokenizer> | undefined;
    try {
      tokenizerForDisplay = getTokenizer(config.modelName);
    } catch {
      tokenizerForDisplay = undefined;
    }
    const evaluators: EvaluatorOrBuilder[] = [...(deps.evaluators ?? [])];
    if (datasets.test !== undefined) evaluators.push(new NLLEvaluator(datasets.test, 'test', tokenizerForDisplay));
    let elapsedTokens = typeof run.resumeFrom?.elapsed_tokens === 'number' ? run.resumeFrom.elapsed_tokens : 0;
    run.log(
      `training ${config.modelName}: ${totalSteps} steps (${nBatches} batches × ${config.numEpochs} epochs${config.maxSteps ? `, max_steps ${config.maxSteps}` : ''}) from step ${startStep}`,
    );
    return {
      client,
      evaluators,
      infrequentEvaluators: deps.infrequentEvaluators ?? [],
      submitAhead: config.submitAhead,
      setEpoch: (epoch) => train.setEpoch(epoch),
      elapsedTokens: () => elapsedTokens,
      checkpointStore: checkpointStoreFor(service),
      ...(deps.onStepLogged ? { onLogged: (step, m, final) => final || deps.onStepLogged!(step, m) } : {}),
      async submit(at, metrics) {
        const data = await timed('get_batch', metrics, () => train.getBatch(at.batch));
        if (at.step === startStep && tokenizerForDisplay !== undefined && data.length > 0) {
          const t = new Transcript(`Training examples (step ${at.step})`);
          for (const d of data.slice(0, 4)) t.add(new DatumFormatter(d, tokenizerForDisplay));
          await t.write(join(config.logPath, 'transcripts', `train_examples_step_${checkpointName(at.step)}.html`));
        }
        elapsedTokens += data.reduce((a, d) => a + d.modelInput.length, 0);
        const t0 = performance.now();
        const work: SftWork = {
          data,
          fwdBwd: deferred(client.forwardBackward(data, 'cross_entropy')),
          optim: deferred(client.optimStep({ learningRate: at.learningRate, ...adam })),
        };
        recordTime(metrics, 'submit', t0);
        return {
          inFlight: [work.fwdBwd, work.optim],
          collect: async () => {
            const [fb, opt] = await timed('await_results', metrics, () => Promise.all([work.fwdBwd, work.optim]));
            return { ...stepMetrics(work.data, fb, at), ...opt.metrics };
          },
        };
      },
    };
  });
  return { ...outcome, ...(trainingClient ? { value: { trainingClient } } : {}) };
}

/** The figures of one SFT step: its data's size, learning rate and mean NLL. */
function stepMetrics(
  data: readonly Datum[],
  fb: ForwardBackwardOutput,
  at: { step: number; epoch: number; totalSteps: number; learningRate: number },
): Record<string, number> {
  const logprobs = data.map((_, i) => fb.lossFnOutputs[i]?.logprobs ?? { data: [], dtype: 'float32' as const });
  let numTokens = 0;
  let numLossTokens = 0;
  for (const d of data) {
    numTokens += d.modelInput.length;
    numLossTokens += datumWeights(d).filter((w) => w > 0).length;
  }
  return {
    epoch: at.epoch,
    progress: at.step / at.totalSteps,
    learning_rate: at.learningRate,
    num_sequences: data.length,
    num_tokens: numTokens,
    num_loss_tokens: numLossTokens,
    train_mean_nll: computeMeanNll(
      logprobs,
      data.map((d) => datumWeights(d)),
    ),
  };
}
