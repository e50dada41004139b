export { ALGORITHMS, type AlgorithmKnobsInput, resolveAlgorithm } from './algorithms.js';
export {
  assembleTrainingData,
  computeAdvantages,
  type LogprobComputer,
  removeMask,
  trajectoryToData,
  transformAdvantages,
} from './data-processing.js';
export { collectDemonstrations } from './demonstrations.js';
export { AgentToolEnv, type AgentToolEnvOptions, AgentToolGroupBuilder } from './envs/agent-tool-env.js';
export { CODE_AGENT_MAX_TRAJECTORY_TOKENS, CODE_AGENT_MAX_TURNS } from './envs/code-agent-env.js';
export { buildCodeDatasets, type CodeDatasetsOptions, codeDemonstrations } from './envs/code-env.js';
export { GuessNumberMessageEnv, type GuessNumberOptions } from './envs/guess-number-env.js';
export { LookupToolDataset, type LookupToolOptions } from './envs/lookup-tool-env.js';
export {
  buildMathDatasets,
  generateArithmeticProblems,
  lastInteger,
  loadGsm8kJsonl,
  type MathDatasetOptions,
  MathEnv,
  type MathProblem,
  parseGsm8kRow,
} from './envs/math-env.js';
export {
  generateMultiHopWorld,
  type MultiHopQuestion,
  type MultiHopWorldOptions,
} from './envs/multi-hop-world.js';
export { BUILT_IN_ENVS } from './envs/registry.js';
export {
  extractRubricScore,
  PROMETHEUS_DATASET,
  prometheusDatapoint,
  type Rubric,
  type RubricDatapoint,
  readRubricJsonl,
  rubricDatapointToJson,
  rubricGraderPrompt,
} from './envs/rubric/rubric-data.js';
export {
  RubricDataset,
  type RubricEnvOptions,
  RubricGradedEnv,
  rubricItemWhere,
} from './envs/rubric/rubric-env.js';
export { generateRubricDataset } from './envs/rubric/rubric-generate.js';
export { SearchQaDataset, type SearchQaOptions } from './envs/search-qa-env.js';
export { type Cell, renderBoard, winnerOf } from './envs/tic-tac-toe-env.js';
export type { TwentyQuestionsOptions } from './envs/twenty-questions-env.js';
export { RLTestSetEvaluator, type RLTestSetEvaluatorOptions } from './evaluators.js';
export { computeKlSampleTrain } from './metrics.js';
export type { ProblemDatasetOptions } from './problem-dataset.js';
export type { ProblemEnvOptions } from './problem-env.js';
export { rolloutSummaries, writeRolloutSummaries } from './rollout-summaries.js';
export {
  doGroupRollout,
  type GroupRolloutOptions,
  type SingleRolloutOptions,
} from './rollouts.js';
export {
  type AsyncConfig,
  AsyncConfigSchema,
  type RLTrainConfig,
  type RLTrainConfigInput,
  RLTrainConfigSchema,
  type RLTrainDeps,
  type RLTrainResult,
  type StreamMinibatchConfig,
  StreamMinibatchConfigSchema,
  TINY_MODEL_RL_LR,
} from './train/config.js';
export { rlPlanOptions, train } from './train/train.js';
export {
  collectTrainStep,
  rlAdamParams,
  submitForwardBackward,
  type TrainStepOptions,
  trainStep,
} from './train-step.js';
