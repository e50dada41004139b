export { type LoopService, loopService } from './loop-service.js';
export {
  loadCheckpointOptimizerField,
  type OpenTrainingClientOptions,
  openTrainingClient,
  type TrainingClientOrigin,
  type TrainingClientSource,
} from './open-training-client.js';
export {
  type Closeable,
  checkpointConfigShape,
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
