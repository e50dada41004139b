/**
 * @cookbook/gem — GEM-style text environments for RL of language models: the env API and registry, vector envs,
 * wrappers, dataset envs, the games, an adapter to the RL env protocol of `@cookbook/training`, and the GEM trainer.
 */

export {
  type GemAdapterOptions,
  GemCookbookEnv,
  GemEnvGroupBuilder,
  GemRLDataset,
} from './adapter/cookbook-env.js';
export type { Env, ResetResult, StepResult } from './core/env.js';
export type { EnvOptions } from './core/registry.js';
export { make, registerEnv, registeredEnvIds } from './core/registry.js';
export { CodeEnv, type CodeEnvOptions } from './dataset/code-env.js';
export {
  type DatasetEnvOptions,
  MathEnv,
  type MathEnvOptions,
  QaEnv,
  type QaEnvOptions,
  type ReadJsonlOptions,
  readJsonlDataset,
} from './dataset/dataset-env.js';
export * from './games/index.js';
export { subsample } from './trainer/algorithm.js';
export type { CollectOptions, CollectResult, Episode } from './trainer/collect.js';
export {
  type GemTrainConfig,
  type GemTrainConfigInput,
  GemTrainConfigSchema,
  type GemTrainDeps,
} from './trainer/config.js';
export { type GemDemonstrationOptions, gemDemonstrationDatums } from './trainer/demonstrations.js';
export { gemRenderer, gemWrapperDeps, trainGem } from './trainer/train.js';
export {
  type MakeVecOptions,
  makeVec,
  VectorEnv,
  type VectorResetResult,
  type VectorStepResult,
} from './vector/vector-env.js';
export { applyWrappers, getWrapperFns, type WrapperDeps } from './wrappers/factory.js';
export type { ObservationWrapperOptions } from './wrappers/observation.js';
export type {
  PythonCodeToolOptions,
  Tool,
  ToolEnvWrapperOptions,
  ToolResult,
} from './wrappers/python-tool.js';
export type { GemSearchToolOptions } from './wrappers/search-tool.js';
