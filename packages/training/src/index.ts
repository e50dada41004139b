export {
  CheckpointManager,
  type CheckpointManagerOptions,
  type CheckpointPolicy,
  type CheckpointStore,
  checkpointConfigShape,
  checkpointStoreFor,
  type QueuedSave,
  type SaveKind,
} from './checkpoint-manager.js';
export {
  type Action,
  type Env,
  type EnvGroupBuilder,
  type GroupReward,
  type InitialObservation,
  type Logs,
  type Metrics,
  type Observation,
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
  type EnvSource,
  type EnvSpec,
  envPackageSuffix,
  getEnvSpec,
  getRegisteredEnvNames,
  isEnvRegistered,
  mergedEnvConfigShape,
  parseEnvConfig,
  registerEnv,
} from './env-registry.js';
export {
  type EpochClient,
  type EpochLoop,
  type EpochPlan,
  type EpochStep,
  runEpochs,
  type SubmittedWork,
  totalStepsOf,
} from './epoch-driver.js';
export {
  type EvalContext,
  type EvalTrainingClient,
  type Evaluator,
  type EvaluatorBuilder,
  type EvaluatorClients,
  type EvaluatorOrBuilder,
  infrequentEvalEveryField,
  type RunEvaluatorsOptions,
  resolveEvaluators,
  runEvaluators,
  type SamplingClientEvaluator,
  type SamplingClientEvaluatorBuilder,
  type TrainingClientEvaluator,
  type TrainingClientEvaluatorBuilder,
  trainingClientEvaluation,
} from './evaluator.js';
export { type LoopService, loopService, runService, serviceClientFor } from './loop-service.js';
export type { MessageEnv, MessageStepResult } from './message-env.js';
export {
  loadCheckpointOptimizerField,
  type OpenTrainingClientOptions,
  openTrainingClient,
  type TrainingClientOrigin,
  type TrainingClientSource,
} from './open-training-client.js';
export {
  type Clock,
  LimitedEnv,
  limitDataset,
  type RolloutLimits,
  RolloutLimitsSchema,
  RolloutLimitTracker,
  TRUNCATION_REASONS,
  type TruncationReason,
  truncationMetrics,
  validateRolloutLimits,
  withRolloutLimits,
} from './rollout-limits.js';
export {
  type Closeable,
  type LoopOutcome,
  type RunConfig,
  RunConfigSchema,
  type RunContext,
  type RunLoopOptions,
  type RunResult,
  type RunStatus,
  resumeStepOf,
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
  TrainingConfigSchema,
  type TrainingLoopDeps,
  trainingConfigShape,
} from './training-config.js';
export { runTrainingLoop, type TrainingRunOptions } from './training-run.js';
