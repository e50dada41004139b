/** OpenAI-compatible routes over a Tinker-compatible service. */
export {
  buildChatPrompt,
  type ChatChoice,
  chatChoice,
  type LogprobEntry,
  toCookbookMessages,
  tokenDeltas,
} from './chat.js';
export {
  type CompletionChoice,
  type CompletionLogprobs,
  completionChoice,
  completionPrompt,
  completionStop,
} from './completions.js';
export { MAX_LISTED_CHECKPOINTS, ModelResolver, type OpenAIBackend, type ResolvedModel } from './models.js';
export {
  errorType,
  type OpenAIErrorObject,
  OpenAIHttpError,
  openAIErrorBody,
  toOpenAIError,
} from './openai-errors.js';
export {
  type ChatCompletionRequest,
  ChatCompletionRequestSchema,
  type ChatMessage,
  ChatMessageSchema,
  type CompletionRequest,
  CompletionRequestSchema,
  completionPrompts,
  MAX_COMPLETION_LOGPROBS,
  MAX_PROMPTS,
  MAX_TOP_LOGPROBS,
} from './request-schemas.js';
export {
  createOpenAIRoutes,
  type OpenAIRequest,
  type OpenAIRoutes,
  type OpenAIRoutesOptions,
} from './routes.js';
export { firstStop, type SampledChoice, type SampleSpec, sampleChoices, tokenText } from './sampling.js';
