/**
 * The opening every training loop shares, once: the run's service (the caller's, or one built from `base_url`), the
 * lifecycle (`runLoop`) with the loop's `prepare`, and `config.json` as the run plan records it (`resolveRunPlan`).
 */
import { runService } from './loop-service.js';
import { type LoopOutcome, type RunConfig, type RunContext, type RunResult, runLoop } from './run.js';
import { runOutputOptions } from './run-output.js';
import type { PlannedFields, RunPlan } from './run-plan.js';
import type { TrainingLoopDeps } from './training-config.js';

/** What {@link runTrainingLoop} needs besides the plan, the deps and the body. */
export interface TrainingRunOptions {
  /** Builds and checks the data before an old run is deleted or anything is written. */
  prepare?: () => Promise<void> | void;
}

/**
 * Runs `body` inside the run lifecycle with the run's service: the server is contacted before the run folder is
 * touched (nothing created or deleted when it is unreachable), and a service this call built is closed with the run.
 * `config.json` records `plan.recorded`.
 */
export function runTrainingLoop<C extends PlannedFields & RunConfig, S extends object, T>(
  plan: RunPlan<C>,
  deps: TrainingLoopDeps<S>,
  options: TrainingRunOptions,
  body: (run: RunContext, service: S) => Promise<LoopOutcome<T>>,
): Promise<RunResult<T>> {
  const config = plan.config;
  const connection = runService(deps.serviceClient, config);
  return runLoop(
    {
      connect: connection.connect,
      ...config,
      ...runOutputOptions({ ...deps, hparams: plan.recorded }, () => plan.recorded),
      ...(options.prepare ? { prepare: options.prepare } : {}),
    },
    (run) => body(run, connection.get()),
  );
}
