/**
 * Pieces shared by the RL recipes (rl_basic, math_rl, multiplayer): config fields, the learning-rate default, the
 * renderer, and a runner that prints one line per step and the reward curve at the end. What supervised recipes
 * share too is in `common.ts`.
 */
import { join } from 'node:path';
import { REPORT_FILE, readMetrics } from '@cookbook/logging';
import { getRecommendedRendererName, getRenderer, getTokenizer, type Renderer } from '@cookbook/renderers';
import { type RLDatasetBuilder, type RLTrainConfigInput, type RLTrainDeps, train } from '@cookbook/rl';
import { z } from 'zod';
import type { RecipeIO } from '../recipe.js';
import { connectService, DEFAULT_MODEL, modelFields, resolveLearningRateWith, runFields } from './common.js';

/** Config fields every RL recipe has (snake_case, as on upstream's command lines). */
export const rlCommonFields = {
  model_name: z
    .string()
    .default(DEFAULT_MODEL)
    .describe('Base model to train with LoRA (hosted example: Qwen/Qwen3-8B)'),
  ...modelFields,
  learning_rate: z
    .number()
    .positive()
    .nullable()
    .default(null)
    .describe('Adam learning rate; null = 3e-3 for local/* tiny models, else hyperparam_utils.get_lr / 10'),
  max_tokens: z.number().int().positive().default(8).describe('Most tokens sampled per turn (hosted example: 256)'),
  temperature: z.number().nonnegative().default(1).describe('Sampling temperature'),
  group_size: z.number().int().positive().default(4).describe('Rollouts per problem (the GRPO group)'),
  groups_per_batch: z.number().int().positive().default(4).describe('Groups per training step (hosted example: 100)'),
  max_steps: z.number().int().positive().default(5).describe('Training steps'),
  eval_every: z.number().int().nonnegative().default(0).describe('Evaluate the test set every N steps (0 = never)'),
  save_every: z.number().int().nonnegative().default(0).describe('Checkpoint every N steps (0 = final only)'),
  num_groups_to_log: z.number().int().nonnegative().default(2).describe('Groups per iteration in train.html'),
  num_substeps: z.number().int().positive().default(1).describe('Optimizer steps per batch'),
  loss_fn: z
    .enum(['importance_sampling', 'ppo', 'cispo', 'dro'])
    .default('importance_sampling')
    .describe('Policy-gradient loss'),
  loss_fn_config: z
    .record(z.string(), z.number())
    .nullable()
    .default(null)
    .describe('Loss settings as JSON, e.g. {"clip_low_threshold":0.8,"clip_high_threshold":1.2}'),
  kl_penalty_coef: z.number().nonnegative().default(0).describe('KL penalty against the base model (0 = off)'),
  remove_constant_reward_groups: z.boolean().default(false).describe('Skip groups whose rewards are all equal'),
  seed: z.number().int().default(0).describe('Seed of generated problems'),
  load_checkpoint_path: z
    .string()
    .nullable()
    .default(null)
    .describe('Start from these weights (tinker://…/weights/…), fresh optimizer'),
  ...runFields,
};

/** The common RL fields, parsed. */
export type RLCommonConfig = { [K in keyof typeof rlCommonFields]: z.infer<(typeof rlCommonFields)[K]> } & {
  log_path: string;
};

/** The learning rate: explicit, 3e-3 for the built-in tiny models, else upstream's LoRA heuristic / 10 (RL). */
export function resolveRlLearningRate(modelName: string, learningRate: number | null): number {
  return resolveLearningRateWith(modelName, learningRate, { tinyModelLr: 3e-3, heuristicDivisor: 10 });
}

/** The renderer of the run: explicit, else the model's recommended one. */
export function rlRenderer(config: Pick<RLCommonConfig, 'model_name' | 'renderer_name'>): Renderer {
  const name = config.renderer_name ?? getRecommendedRendererName(config.model_name);
  return getRenderer(name, getTokenizer(config.model_name));
}

/** Run RL with the common fields plus `extra` train settings; prints progress to `io`. */
export async function runRlRecipe(
  config: RLCommonConfig,
  datasetBuilder: RLDatasetBuilder,
  io: RecipeIO,
  extra: Partial<RLTrainConfigInput> = {},
  deps: Partial<RLTrainDeps> = {},
): Promise<void> {
  const service = await connectService(config.base_url);
  try {
    const result = await train(
      {
        log_path: config.log_path,
        model_name: config.model_name,
        learning_rate: resolveRlLearningRate(config.model_name, config.learning_rate),
        max_tokens: config.max_tokens,
        temperature: config.temperature,
        lora_rank: config.lora_rank,
        eval_every: config.eval_every,
        save_every: config.save_every,
        num_substeps: config.num_substeps,
        loss_fn: config.loss_fn,
        loss_fn_config: config.loss_fn_config,
        kl_penalty_coef: config.kl_penalty_coef,
        remove_constant_reward_groups: config.remove_constant_reward_groups,
        num_groups_to_log: config.num_groups_to_log,
        max_steps: config.max_steps,
        load_checkpoint_path: config.load_checkpoint_path,
        behavior_if_log_dir_exists: config.behavior_if_log_dir_exists,
        wandb_project: config.wandb_project,
        wandb_name: config.wandb_name,
        base_url: config.base_url,
        ...extra,
      },
      {
        datasetBuilder,
        serviceClient: service,
        console: false,
        onStep: (step, m) =>
          io.out(
            `step ${String(step).padStart(4)}  reward ${(m['env/all/reward/total'] ?? 0).toFixed(3)}` +
              `${m['test/env/all/reward/total'] === undefined ? '' : `  test reward ${m['test/env/all/reward/total'].toFixed(3)}`}` +
              `  entropy ${(m['optim/entropy'] ?? 0).toFixed(3)}  ${(m['time/total'] ?? 0).toFixed(2)}s`,
          ),
        ...deps,
      },
    );
    if (result.stepsRun === 0) return;
    const { rows } = await readMetrics(join(config.log_path, 'metrics.jsonl'));
    const rewards = rows.map((r) => r['env/all/reward/total']).filter((v): v is number => typeof v === 'number');
    io.out(`reward ${rewards[0]?.toFixed(3)} → ${rewards.at(-1)?.toFixed(3)} over ${rewards.length} steps`);
    io.out(`report: ${join(config.log_path, REPORT_FILE)}`);
  } finally {
    await service.close();
  }
}
