/**
 * The views of the Tinker clients the RL loops use: narrowed from the one definition in `@cookbook/tinker-client`
 * (`TrainingClientLike`, `SamplingClientLike`, `ServiceClientLike`) to the calls RL makes, so the real clients and the
 * in-memory doubles of the tests both fit.
 */
import type { SamplingClientLike, ServiceClientLike, TrainingClientLike } from '@cookbook/tinker-client';

/** A sampler that also scores prompts (for KL metrics and penalties). */
export type RLSamplingClient = SamplingClientLike;

/** The training calls the loops make; each returns at once and resolves in submission order. */
export interface RLTrainingClient
  extends Pick<TrainingClientLike, 'forwardBackward' | 'optimStep' | 'saveState' | 'saveWeightsForSampler'>,
    Partial<Pick<TrainingClientLike, 'forwardBackwardCustom'>> {
  saveWeightsAndGetSamplingClient(name?: string): Promise<RLSamplingClient>;
}

/** Creates training runs and samplers; closed by the loop when the loop created it. */
export interface RLServiceClient extends Pick<ServiceClientLike, 'createSamplingClient'> {
  createLoraTrainingClient(
    ...args: Parameters<ServiceClientLike['createLoraTrainingClient']>
  ): Promise<RLTrainingClient>;
  createTrainingClientFromState(
    ...args: Parameters<ServiceClientLike['createTrainingClientFromState']>
  ): Promise<RLTrainingClient>;
  close?(): Promise<void>;
}
