/**
 * @cookbook/gem — GEM-style text environments for RL of language models: the env API and registry, vector envs,
 * wrappers, dataset envs, the games, an adapter to the RL env protocol of `@cookbook/training`, and the GEM trainer.
 */

export {
  type GemAdapterOptions,
  GemCookbookEnv,
  GemEnvGroupBuilder,
  type GemPlayer,
  GemRLDataset,
} from './adapter/cookbook-env.js';
export { lastBoxed, lastMatch, pyList, pyRound } from './core/boxed.js';
export type { Env, EnvInfo, ResetResult, StepResult } from './core/env.js';
export { LanguageGameReward, TERMINAL_STATE } from './core/env.js';
export type { EnvFactory, EnvOptions } from './core/registry.js';
export { make, registerEnv, registeredEnvIds } from './core/registry.js';
export {
  CodeEnv,
  type CodeEnvOptions,
  type CodeItem,
  extractCode,
  hasForbiddenCode,
  MAX_CODE_DATASET_BYTES,
  type RunLimits,
  readCodeDataset,
  runPythonProgram,
} from './dataset/code-env.js';
export {
  DatasetEnv,
  type DatasetEnvOptions,
  type DatasetItem,
  type Grade,
  MathEnv,
  type MathEnvOptions,
  normalizeQaAnswer,
  QaEnv,
  type QaEnvOptions,
  type ReadJsonlOptions,
  readJsonlDataset,
} from './dataset/dataset-env.js';
export * from './games/index.js';
export {
  discountedReturns,
  type GemTransition,
  rebn,
  samplerLearnerMetrics,
  subsample,
  transitionDatum,
} from './trainer/algorithm.js';
export { type CollectOptions, type CollectResult, collectEpisodes, type Episode } from './trainer/collect.js';
export {
  type EpisodeRecord,
  type GemTrainConfig,
  type GemTrainConfigInput,
  GemTrainConfigSchema,
  type GemTrainDeps,
} from './trainer/config.js';
export {
  type GemDemonstrationOptions,
  type GemDemonstrations,
  gemDemonstrationDatums,
} from './trainer/demonstrations.js';
export { applyTemplate, promptTokens, stopCondition, TEMPLATE_NAMES, type TemplateName } from './trainer/templates.js';
export {
  episodeSeed,
  type GemTrainValue,
  gemRenderer,
  gemWrapperDeps,
  samplingSeed,
  trainGem,
} from './trainer/train.js';
export {
  type AutoresetMode,
  type MakeVecOptions,
  makeVec,
  VectorEnv,
  type VectorResetResult,
  type VectorStepResult,
} from './vector/vector-env.js';
export { EnvWrapper } from './wrappers/env-wrapper.js';
export { applyWrappers, getWrapperFns, WRAPPER_FACTORY, type WrapperDeps, type WrapperFn } from './wrappers/factory.js';
export {
  EpisodeTrackingWrapper,
  type ObservationMode,
  ObservationWrapper,
  type ObservationWrapperOptions,
} from './wrappers/observation.js';
export {
  assertPythonAvailable,
  PythonCodeTool,
  type PythonCodeToolOptions,
  type Tool,
  ToolEnvWrapper,
  type ToolEnvWrapperOptions,
  type ToolResult,
} from './wrappers/python-tool.js';
export {
  formatGemSearchResult,
  GemSearchTool,
  type GemSearchToolOptions,
  searchCollectionIndex,
} from './wrappers/search-tool.js';
