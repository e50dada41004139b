export { APIFuture, type PollOptions, type ResultOptions } from './api-future.js';
export type { SamplingClientLike, ServiceClientLike, TrainingClientLike } from './client-types.js';
export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  FutureExpiredError,
  FutureTimeoutError,
  InternalServerError,
  NotFoundError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  RESUME_HINT,
  RequestFailedError,
  TinkerError,
  UnprocessableEntityError,
} from './errors.js';
export { SDK_VERSION } from './http.js';
export {
  type Checkpoint,
  type Cursor,
  type ParsedTinkerPath,
  parseTinkerPath,
  RestClient,
  type TrainingRun,
} from './rest-client.js';
export { type SampleArgs, SamplingClient } from './sampling-client.js';
export {
  type CreateLoraTrainingClientArgs,
  DEFAULT_BASE_URL,
  type EmbeddedServiceProvider,
  registerEmbeddedServiceProvider,
  ServiceClient,
  type ServiceClientOptions,
  type SupportedModel,
} from './service-client.js';
export { type CustomLossFn, type CustomLossResult, TrainingClient, type TrainingModelInfo } from './training-client.js';
export type {
  AdamParams,
  ForwardBackwardEncoder,
  ForwardBackwardOutput,
  ForwardBackwardWireRequest,
  LoraConfig,
  LossFnType,
  SampledSequence,
  SampleResponse,
  SamplingParams,
} from './types.js';
