/**
 * One optimisation step on RL data (upstream `rl/train.py: train_step`): the datums are split into
 * `num_substeps` near-equal chunks, each a forward_backward followed by an optim_step. Every call is submitted
 * before any is awaited, so the service runs them back to back.
 */
import { type Datum, splitList, tensorToNumbers } from '@cookbook/core';
import type { AdamParams, ForwardBackwardOutput, LossFnType } from '@cookbook/tinker-client';
import type { RLTrainingClient } from './clients.js';
import { removeMask } from './data-processing.js';

/** Adam settings of RL steps (upstream: β = 0.9 / 0.95, ε = 1e-8). */
export function rlAdamParams(learningRate: number): AdamParams {
  return { learningRate, beta1: 0.9, beta2: 0.95, eps: 1e-8 };
}

/** Options of {@link trainStep}. */
export interface TrainStepOptions {
  learningRate: number;
  /** Optimizer steps per batch. Default 1. */
  numSubsteps?: number;
  /** Default `importance_sampling`. */
  lossFn?: LossFnType;
  lossFnConfig?: Record<string, number>;
}

/** The learner's logprobs of each datum's targets, from a forward_backward output. */
export function outputLogprobs(out: ForwardBackwardOutput): number[][] {
  return out.lossFnOutputs.map((o) => (o.logprobs === undefined ? [] : tensorToNumbers(o.logprobs)));
}

/** Train on `data_D`; returns the learner's logprobs per datum (before each chunk's update) and the loss metrics. */
export async function trainStep(
  data_D: readonly Datum[],
  client: RLTrainingClient,
  options: TrainStepOptions,
): Promise<{ trainingLogprobs_D: number[][]; metrics: Record<string, number> }> {
  const n = Math.max(1, Math.min(options.numSubsteps ?? 1, data_D.length));
  const chunks = splitList(data_D.map(removeMask), n);
  const lossFn = options.lossFn ?? 'importance_sampling';
  const submitted = chunks.map((chunk) => ({
    fb: client.forwardBackward(chunk, lossFn, options.lossFnConfig),
    optim: client.optimStep(rlAdamParams(options.learningRate)),
  }));
  const trainingLogprobs_D: number[][] = [];
  const metrics: Record<string, number> = {};
  for (const { fb, optim } of submitted) {
    const out = await fb;
    trainingLogprobs_D.push(...outputLogprobs(out));
    for (const [k, v] of Object.entries(out.metrics)) metrics[k] = (metrics[k] ?? 0) + v / submitted.length;
    await optim;
  }
  return { trainingLogprobs_D, metrics };
}
