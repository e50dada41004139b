/**
 * The one place a loop decides where its weights come from: the run's resume checkpoint (weights and Adam moments,
 * for an exact resume), else a given checkpoint (weights only, fresh optimizer), else a new LoRA run on the base
 * model. Every training loop calls this inside `runLoop`, so they all resume the same way.
 */
import type { CreateLoraTrainingClientArgs } from '@cookbook/tinker-client';
import { z } from 'zod';
import type { RunContext } from './run.js';

/** The `load_checkpoint_optimizer` config field of every loop that opens its client with {@link openTrainingClient}. */
export const loadCheckpointOptimizerField = z
  .boolean()
  .default(false)
  .describe(
    "Also load load_checkpoint_path's Adam moments (continue its optimizer). A fresh Adam's first step moves every " +
      'weight by the full learning rate, which can wreck a small model that was just trained (e.g. a warm start)',
  );

/** The two service calls it makes; `T` is the loop's own training-client view. */
export interface TrainingClientSource<T> {
  createLoraTrainingClient(args: CreateLoraTrainingClientArgs): Promise<T>;
  createTrainingClientFromState(
    path: string,
    options?: { optimizer?: boolean; userMetadata?: Record<string, unknown> },
  ): Promise<T>;
}

/** What {@link openTrainingClient} needs from the loop's config. */
export interface OpenTrainingClientOptions {
  modelName: string;
  loraRank: number;
  /** Weights to start from (a `tinker://…/weights/…` state); `null`/absent = the base model. */
  loadCheckpointPath?: string | null;
  /**
   * Also load `loadCheckpointPath`'s Adam moments, continuing its optimizer (default false: weights only). A fresh
   * Adam's first step moves every weight by the full learning rate whatever its gradient's size (the update is
   * m/√v = ±1), which can wreck a small model that was just trained; continuing the moments scales that step.
   */
  loadCheckpointOptimizer?: boolean;
  /** LoRA initialisation seed of a new run; absent = the service's default. */
  seed?: number;
  /** Stored with the run on the service (renderer name, recipe name, …). */
  userMetadata?: Record<string, unknown>;
}

/** How the training client was opened. */
export type TrainingClientOrigin = 'resume' | 'checkpoint' | 'base';

/** Opens the loop's training client (see the module comment for the order) and says which way it went. */
export async function openTrainingClient<T>(
  run: Pick<RunContext, 'resumeFrom' | 'startStep' | 'log'>,
  service: TrainingClientSource<T>,
  options: OpenTrainingClientOptions,
): Promise<{ client: T; origin: TrainingClientOrigin }> {
  const metadata = options.userMetadata !== undefined ? { userMetadata: options.userMetadata } : {};
  const resumePath = run.resumeFrom?.state_path;
  if (resumePath !== undefined) {
    return {
      client: await service.createTrainingClientFromState(resumePath, { optimizer: true, ...metadata }),
      origin: 'resume',
    };
  }
  if (options.loadCheckpointPath) {
    const optimizer = options.loadCheckpointOptimizer === true;
    run.log(
      `loading weights from ${options.loadCheckpointPath} (${optimizer ? 'with its optimizer state' : 'fresh optimizer'})`,
    );
    return {
      client: await service.createTrainingClientFromState(options.loadCheckpointPath, {
        optimizer,
        ...metadata,
      }),
      origin: 'checkpoint',
    };
  }
  return {
    client: await service.createLoraTrainingClient({
      baseModel: options.modelName,
      rank: options.loraRank,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      ...metadata,
    }),
    origin: 'base',
  };
}
