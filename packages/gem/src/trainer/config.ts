/**
 * The GEM trainer's config (GEM `examples/train_tinker/tinker_train.py` §2.1 of the notes): the seed's fields and
 * defaults in camelCase, plus the run fields every loop shares and a few the seed lacks (temperature, sampling
 * retries, a starting checkpoint).
 */

import type { Renderer } from '@cookbook/renderers';
import type { ServiceClientLike } from '@cookbook/tinker-client';
import { lossNeedsNoConfig, POLICY_GRADIENT_LOSS_FNS, type PolicyGradientLossFn } from '@cookbook/tinker-wire';
import type { RunOutputDeps } from '@cookbook/training';
import {
  checkpointConfigShape,
  loadCheckpointOptimizerField,
  runConfigShape,
  trainingConfigShape,
} from '@cookbook/training';
import { z } from 'zod';
import type { Env } from '../core/env.js';
import { TEMPLATE_NAMES } from './templates.js';

/**
 * The losses the trainer can ask for: the built-in policy-gradient losses (declared in the wire) that run without a
 * `loss_fn_config`, since the trainer sends none (importance_sampling, ppo and cispo with their default clip bounds).
 */
const GEM_LOSSES = POLICY_GRADIENT_LOSS_FNS.filter(lossNeedsNoConfig) as [
  PolicyGradientLossFn,
  ...PolicyGradientLossFn[],
];

export const GemTrainConfigSchema = z.object({
  ...runConfigShape,
  // Seconds / tokens / rolling cadences, TTLs and keep_last as in every loop; saveEvery keeps GEM's default below.
  ...checkpointConfigShape,
  modelName: z.string().min(1).default('Qwen/Qwen3-8B-Base').describe('Base model of the LoRA run (and its tokenizer)'),
  batchSize: z
    .number()
    .int()
    .positive()
    .default(128)
    .describe('Transitions (turns) collected at least per step; exactly this many are trained (seeded subsample)'),
  learningRate: trainingConfigShape.learningRate
    .unwrap()
    .unwrap()
    .default(4e-5)
    .describe('Adam learning rate (beta1 0.9, beta2 0.95, eps 1e-8)'),
  loraRank: z.number().int().positive().default(32).describe('LoRA rank'),
  maxTokens: z.number().int().positive().default(2048).describe('Most tokens sampled per turn'),
  temperature: z.number().nonnegative().default(1).describe('Sampling temperature'),
  seed: z
    .number()
    .int()
    .default(0)
    .describe(
      'Seeds every env episode, every sampled turn and the subsampling: a run repeats exactly (the seed script used the clock)',
    ),
  maxSteps: z.number().int().positive().default(200).describe('Policy iterations'),
  saveEvery: z
    .number()
    .int()
    .default(-1)
    .describe('Save a checkpoint (state + sampler) every N steps when > 0; a final checkpoint is always saved'),
  envId: z
    .string()
    .min(1)
    .default('game:GuessTheNumber-v0-easy')
    .describe('GEM env id (game:…, math:jsonl, qa:jsonl; the seed default rg:simple_equations is not ported)'),
  envKwargs: z
    .record(z.string(), z.unknown())
    .default({})
    .describe('Options passed to every env (e.g. env_kwargs.path=problems.jsonl for math:jsonl)'),
  numEnv: z.number().int().positive().default(4).describe('Env instances playing episodes concurrently'),
  envWrappers: z
    .string()
    .default('concat')
    .describe('Comma list of wrappers, first innermost: concat, concat_with_action, concat_chat, python_tool, …'),
  searchCollection: z
    .string()
    .min(1)
    .nullable()
    .default(null)
    .describe(
      'Documents of the search_tool wrappers: a JSONL file, one {"id", "title"?, "text"} per line (GEM asks a retrieval server at $SEARCH_URL)',
    ),
  template: z
    .enum(TEMPLATE_NAMES)
    .default('qwen3_general')
    .describe("Prompt template: qwen3_general, qwen3_game, no (with concat_chat), renderer (the model's chat format)"),
  rendererName: z
    .string()
    .nullable()
    .default(null)
    .describe("Chat format for template=renderer and concat_chat; null = the model's recommended renderer"),
  gamma: z.number().min(0).max(1).default(0.9).describe('Discount of the per-turn returns'),
  useRebn: z.boolean().default(true).describe('Return batch-normalisation of the returns over all transitions'),
  lossFn: z.enum(GEM_LOSSES).default('importance_sampling').describe('Policy-gradient loss'),
  advantageTransform: z
    .enum(['none', 'negate', 'zero'])
    .default('none')
    .describe(
      'Diagnostic control: negate or zero every advantage before training (none = normal RL). A run with negate ' +
        'must not improve; if it does, the rise comes from somewhere else than RL',
    ),
  samplingRetries: z
    .number()
    .int()
    .nonnegative()
    .default(2)
    .describe('Retries of a failed sample call before the episode is counted as failed (sampler/failed_episodes)'),
  loadCheckpointPath: z
    .string()
    .nullable()
    .default(null)
    .describe('Start from these weights (tinker://…/weights/…; fresh optimizer); null = the base model'),
  loadCheckpointOptimizer: loadCheckpointOptimizerField,
});

/** The parsed config. */
export type GemTrainConfig = z.infer<typeof GemTrainConfigSchema>;
/** The config as a caller writes it (defaults optional). */
export type GemTrainConfigInput = z.input<typeof GemTrainConfigSchema>;

/** One episode the trainer played, as `onEpisode` sees it. */
export interface EpisodeRecord {
  step: number;
  observations: string[];
  actions: string[];
  rewards: number[];
}

/** Non-serialisable inputs of {@link trainGem}. */
export interface GemTrainDeps extends RunOutputDeps {
  /** The service (default: a ServiceClient for `baseUrl` / the environment, closed at the end). */
  serviceClient?: Pick<ServiceClientLike, 'createLoraTrainingClient' | 'createTrainingClientFromState'>;
  /** The chat format (default: `rendererName`, else the model's recommended one). */
  renderer?: Renderer;
  /** Makes env `index` (default: `make(envId, {...envKwargs, seed})` with the wrappers of `envWrappers`). */
  makeEnv?: (index: number) => Env;
  /** Called after each step with its metrics. */
  onStep?: (step: number, metrics: Record<string, number>) => void;
  /** Called with the first two episodes of each step (the seed prints them). */
  onEpisode?: (episode: EpisodeRecord) => void;
}
