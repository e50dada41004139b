/**
 * `cookbook rl_basic`: the blueprint of an RL run (upstream `recipes/rl_basic.py`): a math environment, groups of
 * rollouts, centred advantages, importance-sampling loss. Offline by default: arithmetic problems on
 * `local/qwen3-tiny` for a few steps. Hosted: env=gsm8k online=true model_name=… groups_per_batch=128 group_size=16.
 */
import { buildMathDatasets } from '@cookbook/rl';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { rlCommonFields, rlRenderer, runRlRecipe } from './rl-common.js';

export const rlBasicSchema = z.object({
  log_path: z.string().default('.cookbook-runs/rl_basic').describe('Run folder: metrics, checkpoints, transcripts'),
  env: z.enum(['arithmetic', 'gsm8k']).default('arithmetic').describe('arithmetic (generated) or gsm8k'),
  online: z.boolean().default(false).describe('gsm8k: read openai/gsm8k from the Hugging Face Hub (network)'),
  gsm8k_path: z.string().nullable().default(null).describe('gsm8k offline: a JSONL file of {question, answer}'),
  ...rlCommonFields,
});

export const rlBasic = defineRecipe({
  name: 'rl_basic',
  description: 'RL blueprint: math problems, GRPO-style groups (default: arithmetic on local/qwen3-tiny, offline)',
  schema: rlBasicSchema,
  async run(config, io) {
    const renderer = rlRenderer(config);
    await runRlRecipe(
      config,
      () =>
        buildMathDatasets({
          env: config.env,
          renderer,
          batchSize: config.groups_per_batch,
          groupSize: config.group_size,
          numBatches: config.max_steps,
          seed: config.seed,
          online: config.online,
          ...(config.gsm8k_path !== null ? { gsm8kPath: config.gsm8k_path } : {}),
        }),
      io,
    );
  },
});
