/**
 * `cookbook rl_basic`: the blueprint of an RL run (upstream `recipes/rl_basic.py`): a math environment, groups of
 * rollouts, centred advantages, importance-sampling loss. Offline by default: arithmetic problems on
 * `local/qwen3-tiny` for a few steps. Hosted: env=gsm8k online=true model_name=… groups_per_batch=128 group_size=16.
 */
import { buildMathDatasets } from '@cookbook/rl';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { numBatches, rlRecipeSchema, rlRenderer, runRlRecipe } from './rl-common.js';

export const rlBasicSchema = rlRecipeSchema.extend({
  logPath: rlRecipeSchema.shape.logPath.default('.cookbook-runs/rl_basic'),
  env: z.enum(['arithmetic', 'gsm8k']).default('arithmetic').describe('arithmetic (generated) or gsm8k'),
  online: z.boolean().default(false).describe('gsm8k: read openai/gsm8k from the Hugging Face Hub (network)'),
  gsm8kPath: z.string().nullable().default(null).describe('gsm8k offline: a JSONL file of {question, answer}'),
});

export const rlBasic = defineRecipe({
  name: 'rl_basic',
  description: 'RL blueprint: math problems, GRPO-style groups (default: arithmetic on local/qwen3-tiny, offline)',
  schema: rlBasicSchema,
  async run(config, io) {
    const renderer = rlRenderer(config);
    await runRlRecipe(
      rlBasicSchema,
      config,
      () =>
        buildMathDatasets({
          env: config.env,
          renderer,
          batchSize: config.groupsPerBatch,
          groupSize: config.groupSize,
          numBatches: numBatches(config),
          seed: config.seed,
          online: config.online,
          ...(config.gsm8kPath !== null ? { gsm8kPath: config.gsm8kPath } : {}),
        }),
      io,
    );
  },
});
