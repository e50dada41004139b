export type { PollOptions, ResultOptions } from './api-future.js';
export type { SamplingClientLike, ServiceClientLike, TrainingClientLike } from './client-types.js';
export {
  APIConnectionError,
  APIError,
  BadRequestError,
  ConflictError,
  NotFoundError,
  RequestFailedError,
} from './errors.js';
export { SDK_VERSION } from './http.js';
export {
  type Checkpoint,
  parseTinkerPath,
  RestClient,
  type TrainingRun,
} from './rest-client.js';
export { type SampleArgs, SamplingClient } from './sampling-client.js';
export {
  type CreateLoraTrainingClientArgs,
  DEFAULT_BASE_URL,
  type ServerProvider,
  ServiceClient,
  type ServiceClientOptions,
  type SupportedModel,
} from './service-client.js';
export { type CustomLossFn, type CustomLossResult, TrainingClient } from './training-client.js';
export type {
  AdamParams,
  ForwardBackwardOutput,
  LoraConfig,
  LossFnType,
  SampledSequence,
  SampleResponse,
} from './types.js';
