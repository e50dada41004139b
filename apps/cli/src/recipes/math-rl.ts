/**
 * `cookbook math_rl`: RL with verifiable math rewards (upstream `recipes/math_rl/train.py`). Switches between the
 * synchronous loop, streaming minibatches (`num_minibatches`) and async off-policy training
 * (`max_steps_off_policy`). Offline by default: generated arithmetic on `local/qwen3-tiny`.
 */
import { buildMathDatasets } from '@cookbook/rl';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { rlCommonFields, rlRenderer, runRlRecipe } from './rl-common.js';

export const mathRlSchema = z.object({
  log_path: z.string().default('.cookbook-runs/math_rl').describe('Run folder: metrics, checkpoints, transcripts'),
  env: z
    .enum(['arithmetic', 'math', 'gsm8k'])
    .default('arithmetic')
    .describe('arithmetic (generated), math (\\boxed{} answers; generated offline, MATH-500 online) or gsm8k'),
  online: z.boolean().default(false).describe('math / gsm8k: read the Hub dataset (network)'),
  gsm8k_path: z.string().nullable().default(null).describe('gsm8k offline: a JSONL file of {question, answer}'),
  format_coef: z.number().nonnegative().default(0.1).describe('Penalty for a badly formatted answer'),
  num_test_problems: z.number().int().nonnegative().default(0).describe('Held-out problems evaluated every eval_every'),
  max_steps_off_policy: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .default(null)
    .describe('Async off-policy training with this staleness cap (null = on-policy)'),
  num_minibatches: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('Streaming minibatches: train on each of this many minibatches as soon as it is sampled (null = off)'),
  ...rlCommonFields,
});

export const mathRl = defineRecipe({
  name: 'math_rl',
  description: 'RL on math with verifiable rewards; sync, stream minibatch or async (default: arithmetic, offline)',
  schema: mathRlSchema,
  async run(config, io) {
    const renderer = rlRenderer(config);
    const extra =
      config.max_steps_off_policy !== null
        ? {
            async_config: {
              max_steps_off_policy: config.max_steps_off_policy,
              groups_per_batch: config.groups_per_batch,
            },
          }
        : config.num_minibatches !== null
          ? {
              stream_minibatch_config: {
                groups_per_batch: config.groups_per_batch,
                num_minibatches: config.num_minibatches,
              },
            }
          : {};
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
          formatCoef: config.format_coef,
          online: config.online,
          numTestProblems: config.num_test_problems,
          ...(config.gsm8k_path !== null ? { gsm8kPath: config.gsm8k_path } : {}),
        }),
      io,
      extra,
    );
  },
});
