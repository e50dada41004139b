/**
 * The structural client types the loop needs. `@cookbook/tinker-client`'s ServiceClient and TrainingClient fit them;
 * tests pass doubles.
 */
import type { Datum } from '@cookbook/core';
import type { SamplingClientLike } from '@cookbook/renderers';
import type { AdamParams, ForwardBackwardOutput } from '@cookbook/tinker-client';

/** What the SFT loop calls on a training client. */
export interface TrainingClientLike {
  forwardBackward(data: Datum[], lossFn: 'cross_entropy'): PromiseLike<ForwardBackwardOutput>;
  forward(data: Datum[], lossFn: 'cross_entropy'): PromiseLike<ForwardBackwardOutput>;
  optimStep(adamParams: AdamParams): PromiseLike<{ metrics: Record<string, number> }>;
  saveState(name: string, options?: { ttlSeconds?: number }): PromiseLike<{ path: string }>;
  saveWeightsForSampler(
    name?: string,
    options?: { ttlSeconds?: number },
  ): PromiseLike<{ path?: string; samplingSessionId?: string }>;
  saveWeightsAndGetSamplingClient?(name?: string): Promise<SamplingClientLike>;
}

/** What the SFT loop calls on a service client. */
export interface ServiceClientLike {
  createLoraTrainingClient(args: {
    baseModel: string;
    rank?: number;
    userMetadata?: Record<string, unknown>;
  }): Promise<TrainingClientLike>;
  createTrainingClientFromState(
    path: string,
    options?: { optimizer?: boolean; userMetadata?: Record<string, unknown> },
  ): Promise<TrainingClientLike>;
  close?(): Promise<void>;
}

/** Where and when an evaluator runs. */
export interface EvalContext {
  /** The step about to be trained (evaluations see the weights after `step` optimizer steps). */
  step: number;
  /** The run's log dir. */
  logPath: string;
}

/** An evaluator that uses the training client directly (e.g. NLL by `forward`). */
export interface TrainingClientEvaluator {
  kind: 'training_client';
  name: string;
  evaluate(client: TrainingClientLike, ctx: EvalContext): Promise<Record<string, number>>;
}

/** An evaluator that samples from the current weights. */
export interface SamplingClientEvaluator {
  kind: 'sampling_client';
  name: string;
  evaluate(client: SamplingClientLike, ctx: EvalContext): Promise<Record<string, number>>;
}

/** Either kind of evaluator (upstream `TrainingClientEvaluator` / `SamplingClientEvaluator`). */
export type SupervisedEvaluator = TrainingClientEvaluator | SamplingClientEvaluator;
