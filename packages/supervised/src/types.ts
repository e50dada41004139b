/**
 * The views of the Tinker clients the SFT loop and its evaluators use, narrowed from the one definition in
 * `@cookbook/tinker-client` (`TrainingClientLike`, `SamplingClientLike`, `ServiceClientLike`) to the calls they make,
 * so the real clients and the tests' doubles both fit.
 */
import type { SamplingClientLike, ServiceClientLike, TrainingClientLike } from '@cookbook/tinker-client';

/** What the SFT loop and the NLL evaluator call on a training client. */
export interface SupervisedTrainingClient
  extends Pick<
    TrainingClientLike,
    'forward' | 'forwardBackward' | 'optimStep' | 'saveState' | 'saveWeightsForSampler'
  > {
  /** Needed only by sampling evaluators. */
  saveWeightsAndGetSamplingClient?(name?: string): Promise<SamplingClientLike>;
}

/** What the SFT loop calls on the service; closed by the loop when the loop created it. */
export interface SupervisedServiceClient {
  createLoraTrainingClient(
    ...args: Parameters<ServiceClientLike['createLoraTrainingClient']>
  ): Promise<SupervisedTrainingClient>;
  createTrainingClientFromState(
    ...args: Parameters<ServiceClientLike['createTrainingClientFromState']>
  ): Promise<SupervisedTrainingClient>;
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
  evaluate(client: SupervisedTrainingClient, ctx: EvalContext): Promise<Record<string, number>>;
}

/** An evaluator that samples from the current weights. */
export interface SamplingClientEvaluator {
  kind: 'sampling_client';
  name: string;
  evaluate(client: SamplingClientLike, ctx: EvalContext): Promise<Record<string, number>>;
}

/** Either kind of evaluator (upstream `TrainingClientEvaluator` / `SamplingClientEvaluator`). */
export type SupervisedEvaluator = TrainingClientEvaluator | SamplingClientEvaluator;
