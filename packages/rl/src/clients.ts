/**
 * What the RL loops need from the Tinker clients, as structural types: `@cookbook/tinker-client`'s ServiceClient,
 * TrainingClient and SamplingClient fit them, and so do the in-memory fakes the tests use.
 */
import type { Datum, ModelInput } from '@cookbook/core';
import type { SamplingClientLike } from '@cookbook/renderers';
import type { AdamParams, ForwardBackwardOutput, LossFnType } from '@cookbook/tinker-client';

/** A sampler that can also score prompts (for KL metrics and penalties). */
export interface RLSamplingClient extends SamplingClientLike {
  computeLogprobs(prompt: ModelInput): Promise<(number | null)[]>;
}

/** The training calls the loops make; each returns at once and resolves in submission order. */
export interface RLTrainingClient {
  forwardBackward(
    data: Datum[],
    lossFn: LossFnType,
    lossFnConfig?: Record<string, number>,
  ): PromiseLike<ForwardBackwardOutput>;
  optimStep(adamParams?: AdamParams): PromiseLike<{ metrics: Record<string, number> }>;
  saveState(name: string, options?: { ttlSeconds?: number }): PromiseLike<{ path: string }>;
  saveWeightsForSampler(
    name?: string,
    options?: { ttlSeconds?: number },
  ): PromiseLike<{ path?: string; samplingSessionId?: string }>;
  saveWeightsAndGetSamplingClient(name?: string): Promise<RLSamplingClient>;
}

/** Creates training and sampling clients. */
export interface RLServiceClient {
  createLoraTrainingClient(args: { baseModel: string; rank?: number }): Promise<RLTrainingClient>;
  createTrainingClientFromState(path: string, options?: { optimizer?: boolean }): Promise<RLTrainingClient>;
  createSamplingClient(args: { baseModel?: string; modelPath?: string }): Promise<RLSamplingClient>;
}
