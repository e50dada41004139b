/**
 * One optimisation step on RL data (upstream `rl/train.py: train_step`): the datums are split into
 * `num_substeps` near-equal chunks, each a forward_backward followed by an optim_step. Every call is submitted
 * before any is awaited, so the service runs them back to back. The step has a submit half and a collect half so
 * the streaming loop can submit minibatches as their groups finish and collect them together.
 */
import { type Datum, splitList, TrainingError, tensorToNumbers } from '@cookbook/core';
import type { AdamParams, ForwardBackwardOutput, LossFnType } from '@cookbook/tinker-client';
import { BUILTIN_LOSSES, type LossInputKey } from '@cookbook/tinker-wire';
import { LOOP_ADAM } from '@cookbook/training';
import type { RLTrainingClient } from './clients.js';
import { removeMask } from './data-processing.js';
import { GSPO_CLIP, type ImportanceRatioLevel, sequenceRatioInputs, sequenceRatioLoss } from './loss-variants.js';

/** Adam settings of RL steps: the loops' {@link LOOP_ADAM} at `learningRate`. */
export function rlAdamParams(learningRate: number): AdamParams {
  return { learningRate, ...LOOP_ADAM };
}

/** Options of {@link trainStep}. */
export interface TrainStepOptions {
  learningRate: number;
  /** Optimizer steps per batch. Default 1. */
  numSubsteps?: number;
  /** Default `importance_sampling`. */
  lossFn?: LossFnType;
  lossFnConfig?: Record<string, number>;
  /**
   * `sequence`: GSPO's sequence-level ratio with `lossFn` ppo's clip bounds from `lossFnConfig` (a client-side loss
   * through `forwardBackwardCustom`). Default `token` (the service's built-in loss).
   */
  importanceRatioLevel?: ImportanceRatioLevel;
}

/** The learner's logprobs of each datum's targets, from a forward_backward output. */
export function outputLogprobs(out: ForwardBackwardOutput): number[][] {
  return out.lossFnOutputs.map((o) => (o.logprobs === undefined ? [] : tensorToNumbers(o.logprobs)));
}

/** Calls of a step in flight: forward_backwards (in datum order) and the optim_steps that follow them. */
export interface SubmittedTrainStep {
  forwardBackwards: PromiseLike<ForwardBackwardOutput>[];
  optimSteps: PromiseLike<unknown>[];
}

/** Submits one forward_backward over `data` (masks removed) and returns its future. */
export function submitForwardBackward(
  data: readonly Datum[],
  client: RLTrainingClient,
  options: Pick<TrainStepOptions, 'lossFn' | 'lossFnConfig' | 'importanceRatioLevel'>,
): PromiseLike<ForwardBackwardOutput> {
  if (options.importanceRatioLevel === 'sequence') {
    if (client.forwardBackwardCustom === undefined) {
      throw new TrainingError('importance_ratio_level=sequence needs a training client with forwardBackwardCustom');
    }
    const inputs = data.map(sequenceRatioInputs);
    const clip = {
      low: options.lossFnConfig?.clip_low_threshold ?? GSPO_CLIP.low,
      high: options.lossFnConfig?.clip_high_threshold ?? GSPO_CLIP.high,
    };
    const stripped = data.map((d) => ({
      modelInput: d.modelInput,
      lossFnInputs: { target_tokens: d.lossFnInputs.target_tokens! },
    }));
    return client.forwardBackwardCustom(stripped, (_d, logprobs) => sequenceRatioLoss(inputs, logprobs, clip));
  }
  const lossFn = options.lossFn ?? 'importance_sampling';
  return client.forwardBackward(
    data.map((d, i) => hostedDatum(removeMask(d), lossFn, i)),
    lossFn,
    options.lossFnConfig,
  );
}

/**
 * The datum as the hosted service's `lossFn` takes it: only the inputs it documents (`mask` is the loop's own and is
 * removed first; the loss aggregation is folded into `advantages`, never sent as `weights`).
 * @throws TrainingError naming the datum, the key and the loss when the datum carries another input (e.g. `weights`
 *   set by an `adjustData` hook): the hosted service would refuse it.
 */
export function hostedDatum(datum: Datum, lossFn: LossFnType, index = 0): Datum {
  const allowed: readonly LossInputKey[] = BUILTIN_LOSSES[lossFn].hostedInputs;
  for (const key of Object.keys(datum.lossFnInputs)) {
    if (!(allowed as readonly string[]).includes(key)) {
      throw new TrainingError(
        `datum ${index}: loss_fn_inputs.${key} is not an input the hosted ${lossFn} loss takes (it takes ` +
          `${allowed.join(', ')}); fold a token weight into advantages instead`,
      );
    }
  }
  return datum;
}

/** Submit half: every chunk's forward_backward and optim_step, nothing awaited. */
export function submitTrainStep(
  data_D: readonly Datum[],
  client: RLTrainingClient,
  options: TrainStepOptions,
): SubmittedTrainStep {
  const n = Math.max(1, Math.min(options.numSubsteps ?? 1, data_D.length));
  const out: SubmittedTrainStep = { forwardBackwards: [], optimSteps: [] };
  for (const chunk of splitList([...data_D], n)) {
    out.forwardBackwards.push(submitForwardBackward(chunk, client, options));
    out.optimSteps.push(client.optimStep(rlAdamParams(options.learningRate)));
  }
  return out;
}

/** Collect half: the learner's logprobs per datum (before each chunk's update) and the loss metrics, averaged. */
export async function collectTrainStep(
  submitted: SubmittedTrainStep,
): Promise<{ trainingLogprobs_D: number[][]; metrics: Record<string, number> }> {
  const outs = await Promise.all(submitted.forwardBackwards);
  await Promise.all(submitted.optimSteps);
  const trainingLogprobs_D = outs.flatMap(outputLogprobs);
  const metrics: Record<string, number> = {};
  for (const out of outs) {
    for (const [k, v] of Object.entries(out.metrics)) metrics[k] = (metrics[k] ?? 0) + v / outs.length;
  }
  return { trainingLogprobs_D, metrics };
}

/** Train on `data_D`; returns the learner's logprobs per datum (before each chunk's update) and the loss metrics. */
export async function trainStep(
  data_D: readonly Datum[],
  client: RLTrainingClient,
  options: TrainStepOptions,
): Promise<{ trainingLogprobs_D: number[][]; metrics: Record<string, number> }> {
  return collectTrainStep(submitTrainStep(data_D, client, options));
}
