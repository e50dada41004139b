/**
 * The config fields every LoRA training loop has (SFT, DPO, distillation, RL), described and defaulted once. A loop's
 * schema spreads them and adds its own: `z.object({ ...trainingConfigShape, dpoBeta: … })`; a loop whose default
 * differs overrides the one field (`learningRate: trainingConfigShape.learningRate.unwrap()…`, or a new field).
 */
import { DEFAULT_MODEL_NAME, LrScheduleName } from '@cookbook/core';
import { z } from 'zod';
import { checkpointConfigShape } from './checkpoint-manager.js';
import { type EvaluatorOrBuilder, infrequentEvalEveryField } from './evaluator.js';
import { runConfigShape } from './run.js';
import type { RunOutputDeps } from './run-output.js';

/**
 * The Adam settings every cookbook loop trains with (the upstream cookbook's: β1 0.9, β2 0.95, ε 1e-8), owned here.
 * The wire's `ADAM_PARAMS_DEFAULTS` (ε 1e-12, the official SDK's) are what a caller who leaves a field out gets; the
 * loops send these values explicitly, as upstream does (the run plan's `adam`, which the two minimal-loop recipes
 * `sl_loop` and `rl_loop` read too).
 */
export const LOOP_ADAM = { beta1: 0.9, beta2: 0.95, eps: 1e-8 } as const;

export const trainingConfigShape = {
  ...runConfigShape,
  ...checkpointConfigShape,
  modelName: z
    .string()
    .default(DEFAULT_MODEL_NAME)
    .describe('Base model to train with LoRA (hosted example: Qwen/Qwen3-8B)'),
  rendererName: z
    .string()
    .nullable()
    .default(null)
    .describe("Chat format of the data (stored in the run's metadata); null = the model's recommended renderer"),
  recipeName: z.string().nullable().default(null).describe("Recipe name stored in the run's metadata"),
  loadCheckpointPath: z
    .string()
    .nullable()
    .default(null)
    .describe('Start from these weights (tinker://…/weights/…) with a fresh optimizer; ignored when resuming'),
  loraRank: z.number().int().positive().default(32).describe('LoRA rank'),
  learningRate: z
    .number()
    .positive()
    .nullable()
    .default(null)
    .describe('Base learning rate; null = 1e-2 for local/* tiny models, else the hyperparam_utils.get_lr heuristic'),
  lrSchedule: LrScheduleName.default('linear').describe('Learning-rate schedule'),
  numEpochs: z.number().int().positive().default(1).describe('Passes over the training set'),
  maxSteps: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('Stop after this many steps in total (across resumes); null = all epochs'),
  evalEvery: z.number().int().nonnegative().default(10).describe('Steps between evaluations (0 = never)'),
  infrequentEvalEvery: infrequentEvalEveryField,
};

/** The parsed shared training fields. */
export const TrainingConfigSchema = z.object(trainingConfigShape);
/** The parsed shared training fields. */
export type TrainingConfig = z.infer<typeof TrainingConfigSchema>;

/** What a run stores with its training client on the service: the renderer and recipe names, when set. */
export function runUserMetadata(config: Pick<TrainingConfig, 'rendererName' | 'recipeName'>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (config.rendererName) out.renderer_name = config.rendererName;
  if (config.recipeName) out.recipe_name = config.recipeName;
  return out;
}

/** The `deps` every training loop accepts besides its data: evaluators, the service, and the output settings. */
export interface TrainingLoopDeps<S> extends RunOutputDeps {
  /** Evaluators (or builders) run every `evalEvery` steps; a loop adds its own held-out ones (e.g. `test/nll`). */
  evaluators?: readonly EvaluatorOrBuilder[];
  /** Evaluators (or builders) run every `infrequentEvalEvery` steps. */
  infrequentEvaluators?: readonly EvaluatorOrBuilder[];
  /** The service to train on; default a ServiceClient built from the run config (`runService`), closed at the end. */
  serviceClient?: S;
}
