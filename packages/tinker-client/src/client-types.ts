/**
 * The client surface the cookbook's loops program against, defined once. Loops type their clients with these (or a
 * `Pick<…>` of them, naming exactly the calls they make), so the real clients, the hosted service's and the embedded
 * one's alike, and the in-memory doubles of the tests all fit. Every call that submits work returns a
 * `PromiseLike` (the real clients return an {@link APIFuture}) and is ordered by submission.
 */
import type { Datum, ModelInput } from '@cookbook/core';
import type { SampleArgs } from './sampling-client.js';
import type { CreateLoraTrainingClientArgs } from './service-client.js';
import type { CustomLossFn } from './training-client.js';
import type { AdamParams, ForwardBackwardOutput, LossFnType, SampleResponse } from './types.js';

/** What loops call on a sampler. */
export interface SamplingClientLike {
  sample(args: SampleArgs): PromiseLike<SampleResponse>;
  /** Logprob of every prompt token under the sampler's weights (the first is null). */
  computeLogprobs(prompt: ModelInput): PromiseLike<(number | null)[]>;
}

/** What loops call on a training run. */
export interface TrainingClientLike {
  forward(data: Datum[], lossFn: LossFnType, lossFnConfig?: Record<string, number>): PromiseLike<ForwardBackwardOutput>;
  forwardBackward(
    data: Datum[],
    lossFn: LossFnType,
    lossFnConfig?: Record<string, number>,
  ): PromiseLike<ForwardBackwardOutput>;
  forwardBackwardCustom(data: Datum[], lossFn: CustomLossFn): PromiseLike<ForwardBackwardOutput>;
  optimStep(adamParams?: AdamParams): PromiseLike<{ metrics: Record<string, number> }>;
  saveState(name: string, options?: { ttlSeconds?: number }): PromiseLike<{ path: string }>;
  saveWeightsForSampler(
    name?: string,
    options?: { ttlSeconds?: number },
  ): PromiseLike<{ path?: string; samplingSessionId?: string }>;
  /** Saves sampler weights under a temporary name and returns a sampler over them. */
  saveWeightsAndGetSamplingClient(name?: string): Promise<SamplingClientLike>;
}

/** What loops call on the service: create runs and samplers, and close the connection at the end of a run. */
export interface ServiceClientLike {
  createLoraTrainingClient(args: CreateLoraTrainingClientArgs): Promise<TrainingClientLike>;
  /** A run from a saved state; `optimizer: true` restores the Adam moments too (exact resume). */
  createTrainingClientFromState(
    path: string,
    options?: { optimizer?: boolean; userMetadata?: Record<string, unknown> },
  ): Promise<TrainingClientLike>;
  createSamplingClient(args: { baseModel?: string; modelPath?: string }): Promise<SamplingClientLike>;
  close(): Promise<void>;
}
