export {
  CheckpointManager,
  type CheckpointManagerOptions,
  checkpointConfigShape,
  checkpointStoreFor,
  type SaveKind,
} from './checkpoint-manager.js';
export {
  type Action,
  type Env,
  type EnvGroupBuilder,
  type GroupReward,
  type InitialObservation,
  type Metrics,
  type RLDataset,
  type RLDatasetBuilder,
  type SampleStopReason,
  type StepResult,
  type Trajectory,
  TrajectoryGroup,
  type Transition,
} from './env.js';
export { EnvFromMessageEnv, type EnvFromMessageEnvOptions } from './env-from-message-env.js';
export {
  defineEnv,
  type EnvBuildContext,
  type EnvSpec,
  envPackageSuffix,
  getEnvSpec,
  getRegisteredEnvNames,
  isEnvRegistered,
  mergedEnvConfigShape,
  parseEnvConfig,
  registerEnv,
} from './env-registry.js';
export { type EpochLoop, type EpochPlan, runEpochs } from './epoch-driver.js';
export {
  type EvalContext,
  type EvalTrainingClient,
  type EvaluatorOrBuilder,
  infrequentEvalEveryField,
  type RunEvaluatorsOptions,
  resolveEvaluators,
  runEvaluators,
  type SamplingClientEvaluator,
  type TrainingClientEvaluator,
} from './evaluator.js';
export { loopService, runService, serviceClientFor } from './loop-service.js';
export type { MessageEnv, MessageStepResult } from './message-env.js';
export {
  type ByteCountingTokenizer,
  bitsPerByte,
  computeMeanNll,
  type DatumBatches,
  datumTargetTokens,
  datumWeights,
  NLLEvaluator,
  type NllTotals,
  nllTotals,
} from './nll-evaluator.js';
export {
  loadCheckpointOptimizerField,
  type OpenTrainingClientOptions,
  openTrainingClient,
} from './open-training-client.js';
export {
  type Clock,
  LimitedEnv,
  limitDataset,
  type RolloutLimits,
  RolloutLimitsSchema,
  RolloutLimitTracker,
  type TruncationReason,
  truncationMetrics,
  validateRolloutLimits,
  withRolloutLimits,
} from './rollout-limits.js';
export {
  type LoopOutcome,
  type RunConfig,
  RunConfigSchema,
  type RunContext,
  type RunLoopOptions,
  type RunResult,
  runConfigShape,
  runLoop,
} from './run.js';
export { type RunOutputDeps, runOutputOptions } from './run-output.js';
export {
  type AdamSettings,
  isRunPlan,
  type ParsedFields,
  type PlannedFields,
  planRun,
  type ResolvedConfig,
  type RunPlan,
  type RunPlanOptions,
  resolveRunPlan,
} from './run-plan.js';
export {
  LOOP_ADAM,
  runUserMetadata,
  type TrainingConfig,
  type TrainingLoopDeps,
  trainingConfigShape,
} from './training-config.js';
export { runTrainingLoop, type TrainingRunOptions } from './training-run.js';
