/**
 * The opening every training loop shares, once: the run's service (the caller's, or one built from `base_url`), the
 * lifecycle (`runLoop`) with the loop's `prepare`, and `config.json` in snake_case with the values the run resolved
 * (the learning rate a `learning_rate=null` stands for) written over the parsed ones.
 */
import { configToKeyStyle } from '@cookbook/core';
import { runService } from './loop-service.js';
import { type LoopOutcome, type RunConfig, type RunContext, type RunResult, runLoop } from './run.js';
import { runOutputOptions } from './run-output.js';
import type { TrainingLoopDeps } from './training-config.js';

/** What {@link runTrainingLoop} needs besides the config, the deps and the body. */
export interface TrainingRunOptions {
  /** The loop's config schema (config.json is written with its key spelling). */
  schema: Parameters<typeof configToKeyStyle>[0];
  /** Values the run resolved itself (camelCase keys), recorded in config.json over the config's. */
  resolved?: Record<string, unknown>;
  /** Builds and checks the data before an old run is deleted or anything is written. */
  prepare?: () => Promise<void> | void;
}

/** `learningRate` → `learning_rate`. */
function snakeCase(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * Runs `body` inside the run lifecycle with the run's service: the server is contacted before the run folder is
 * touched (nothing created or deleted when it is unreachable), and a service this call built is closed with the run.
 */
export function runTrainingLoop<S extends object, T>(
  config: RunConfig,
  deps: TrainingLoopDeps<S>,
  options: TrainingRunOptions,
  body: (run: RunContext, service: S) => Promise<LoopOutcome<T>>,
): Promise<RunResult<T>> {
  const resolved = options.resolved ?? {};
  const connection = runService(deps.serviceClient, config);
  return runLoop(
    {
      connect: connection.connect,
      ...config,
      ...runOutputOptions(
        deps,
        () => configToKeyStyle(options.schema, { ...config, ...resolved }, { keyStyle: 'snake_case' }),
        Object.fromEntries(Object.entries(resolved).map(([k, v]) => [snakeCase(k), v])),
      ),
      ...(options.prepare ? { prepare: options.prepare } : {}),
    },
    (run) => body(run, connection.get()),
  );
}
