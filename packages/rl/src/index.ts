/** The math graders are `@cookbook/eval`'s (one implementation); re-exported for RL env authors. */
export { extractBoxed, extractGsm8kAnswer, gradeAnswer, normalizeAnswer } from '@cookbook/eval';
/** Rollout limits are `@cookbook/training`'s (usable by every multi-turn env); re-exported for RL env authors. */
export {
  type Action,
  type Clock,
  type Env,
  EnvFromMessageEnv,
  type EnvFromMessageEnvOptions,
  type EnvGroupBuilder,
  type GroupReward,
  type InitialObservation,
  LimitedEnv,
  type Logs,
  limitDataset,
  type MessageEnv,
  type MessageStepResult,
  type Metrics,
  type Observation,
  type RLDataset,
  type RLDatasetBuilder,
  type RolloutLimits,
  RolloutLimitsSchema,
  RolloutLimitTracker,
  type SampleStopReason,
  type StepResult,
  TRUNCATION_REASONS,
  type Trajectory,
  TrajectoryGroup,
  type Transition,
  type TruncationReason,
  truncationMetrics,
  validateRolloutLimits,
  withRolloutLimits,
} from '@cookbook/training';
export {
  ADVANTAGE_ESTIMATORS,
  ADVANTAGE_STD_EPS,
  type AdvantageEstimator,
  estimateAdvantages,
  overlongPenalty,
} from './advantages.js';
export {
  ALGORITHM_PRESETS,
  ALGORITHMS,
  type Algorithm,
  type AlgorithmKnobs,
  type AlgorithmKnobsInput,
  type AlgorithmPreset,
  BASE_KNOBS,
  resolveAlgorithm,
} from './algorithms.js';
export type { RLSamplingClient, RLServiceClient, RLTrainingClient } from './clients.js';
export {
  assembleTrainingData,
  computeAdvantages,
  type DatumMetadata,
  datumFullSequence,
  incorporateKlPenalty,
  type LogprobComputer,
  lossInput,
  removeConstantRewardGroups,
  removeMask,
  trajectoryToData,
  transformAdvantages,
} from './data-processing.js';
export { collectDemonstrations } from './demonstrations.js';
export {
  type AgentEndReason,
  type AgentFinalState,
  type AgentReward,
  AgentToolEnv,
  type AgentToolEnvOptions,
  AgentToolGroupBuilder,
  PARSE_RETRY_MESSAGE,
} from './envs/agent-tool-env.js';
export {
  buildCodeDatasets,
  type CodeDatasetsOptions,
  type CodeGrader,
  CodeProblemEnv,
  type CodeTask,
  codeDemonstrations,
  DEEPCODER_DATASET,
  DEEPCODER_TEST_SUBSETS,
  DEEPCODER_TRAIN_SUBSETS,
  deepcoderTask,
  generateCodeTasks,
  liveCodeBenchPrompt,
  loadDeepcoderTasks,
  OFFLINE_CODE_TESTS,
} from './envs/code-env.js';
export {
  GUESS_NUMBER_WARM_START_STEPS,
  GuessNumberDataset,
  GuessNumberGroupBuilder,
  GuessNumberMessageEnv,
  type GuessNumberOptions,
  guessNumberEnv,
  judgeGuess,
  playBisection,
} from './envs/guess-number-env.js';
export {
  LOOKUP_KEYS,
  type LookupProblem,
  LookupToolDataset,
  type LookupToolOptions,
  lookupDemonstration,
  lookupEnv,
  lookupProblem,
  lookupQuestion,
  lookupTool,
} from './envs/lookup-tool-env.js';
export {
  ArithmeticEnv,
  buildMathDatasets,
  type FetchHubRowsOptions,
  fetchHubRows,
  GSM8K_SUFFIX,
  generateArithmeticProblems,
  generateMathProblems,
  lastInteger,
  loadGsm8kJsonl,
  MATH_SUFFIX,
  type MathDatasetOptions,
  MathEnv,
  type MathEnvName,
  type MathProblem,
  parseGsm8kRow,
  standardFewshotPrefix,
} from './envs/math-env.js';
export { maxTurnsField } from './envs/max-turns-field.js';
export {
  generateMultiHopWorld,
  type MultiHopQuestion,
  type MultiHopWorld,
  type MultiHopWorldOptions,
} from './envs/multi-hop-world.js';
export { BUILT_IN_ENVS } from './envs/registry.js';
export {
  compileExtractionRegex,
  DEFAULT_EXTRACTION_REGEX,
  DEFAULT_GRADER_OUTPUT_FORMAT_INSTRUCTION,
  extractRubricScore,
  MAX_RUBRIC_FILE_BYTES,
  makeRubric,
  PROMETHEUS_DATASET,
  parsePythonFloat,
  parseRubricJsonl,
  parseRubricLine,
  prometheusDatapoint,
  pyJsonDumps,
  type Rubric,
  type RubricDatapoint,
  type RubricSource,
  readRubricJsonl,
  rubricDatapointToJson,
  rubricGraderPrompt,
} from './envs/rubric/rubric-data.js';
export {
  RubricDataset,
  type RubricEnvOptions,
  RubricGradedEnv,
  RubricGroupBuilder,
  type RubricNoScore,
  rubricItemWhere,
} from './envs/rubric/rubric-env.js';
export {
  generateRubricDataset,
  MAX_GENERATED_RUBRIC_DATAPOINTS,
  RUBRIC_GENERATOR_DEFAULTS,
} from './envs/rubric/rubric-generate.js';
export {
  answerMatches,
  normalizeQaAnswer,
  SEARCH_QA_SYSTEM_PROMPT,
  SearchQaDataset,
  type SearchQaOptions,
  searchQaDemonstration,
  searchQaEnv,
} from './envs/search-qa-env.js';
export {
  type Cell,
  type GameOutcome,
  ILLEGAL_MOVE_REWARD,
  type Player,
  parseMove,
  renderBoard,
  ruleGameConversations,
  ruleMove,
  TicTacToeDataset,
  TicTacToeGame,
  TicTacToeGroupBuilder,
  type TicTacToeObservation,
  TicTacToePlayerEnv,
  ticTacToeBoardPrompt,
  ticTacToeEnv,
  ticTacToePrompt,
  winnerOf,
} from './envs/tic-tac-toe-env.js';
export {
  ATTRIBUTE_KEYWORDS,
  answererSystemPrompt,
  isCorrectGuess,
  NOUNS,
  type Noun,
  RuleBasedAnswerer,
  TwentyQuestionsDataset,
  TwentyQuestionsGroupBuilder,
  TwentyQuestionsMessageEnv,
  type TwentyQuestionsOptions,
  twentyQuestionsEnv,
} from './envs/twenty-questions-env.js';
export { RLTestSetEvaluator, type RLTestSetEvaluatorOptions } from './evaluators.js';
export { deriveSeed } from './internal/random.js';
export {
  aggregationWeights,
  applyLossAggregation,
  GSPO_CLIP,
  IMPORTANCE_RATIO_LEVELS,
  type ImportanceRatioLevel,
  LOSS_AGGREGATIONS,
  type LossAggregation,
  type SequenceRatioInputs,
  sequenceRatioInputs,
  sequenceRatioLoss,
} from './loss-variants.js';
export { computeKlSampleTrain, computePostKl, computeTrajectoryMetrics } from './metrics.js';
export { ProblemDataset, type ProblemDatasetOptions } from './problem-dataset.js';
export {
  ProblemEnv,
  type ProblemEnvOptions,
  ProblemGroupBuilder,
  safeParseResponse,
} from './problem-env.js';
export { type RolloutSummary, rolloutSummaries, writeRolloutSummaries } from './rollout-summaries.js';
export {
  doGroupRollout,
  doSingleRollout,
  type GroupRolloutOptions,
  type SingleRolloutOptions,
} from './rollouts.js';
export {
  ADVANTAGE_TRANSFORMS,
  type AdjustDataInfo,
  type AdvantageTransform,
  type AsyncConfig,
  AsyncConfigSchema,
  RL_LOSSES,
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
  outputLogprobs,
  rlAdamParams,
  type SubmittedTrainStep,
  submitForwardBackward,
  submitTrainStep,
  type TrainStepOptions,
  trainStep,
} from './train-step.js';
