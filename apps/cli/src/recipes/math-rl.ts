/**
 * `cookbook math_rl`: RL with verifiable math rewards (upstream `recipes/math_rl/train.py`). Switches between the
 * synchronous loop, streaming minibatches (`num_minibatches`) and async off-policy training
 * (`max_steps_off_policy`). Offline by default: generated arithmetic on `local/qwen3-tiny`.
 */
import { AsyncConfigSchema, buildMathDatasets, StreamMinibatchConfigSchema } from '@cookbook/rl';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { numBatches, rlRecipeSchema, rlRenderer, runRlRecipe } from './rl-common.js';

export const mathRlSchema = rlRecipeSchema.extend({
  logPath: rlRecipeSchema.shape.logPath.default('.cookbook-runs/math_rl'),
  env: z
    .enum(['arithmetic', 'math', 'gsm8k'])
    .default('arithmetic')
    .describe('arithmetic (generated), math (\\boxed{} answers; generated offline, MATH-500 online) or gsm8k'),
  online: z.boolean().default(false).describe('math / gsm8k: read the Hub dataset (network)'),
  gsm8kPath: z.string().nullable().default(null).describe('gsm8k offline: a JSONL file of {question, answer}'),
  formatCoef: z.number().nonnegative().default(0.1).describe('Penalty for a badly formatted answer'),
  numTestProblems: z.number().int().nonnegative().default(0).describe('Held-out problems evaluated every eval_every'),
  maxStepsOffPolicy: AsyncConfigSchema.shape.maxStepsOffPolicy
    .nullable()
    .default(null)
    .describe('Async off-policy training with this staleness cap (null = on-policy)'),
  numMinibatches: StreamMinibatchConfigSchema.shape.numMinibatches
    .nullable()
    .default(null)
    .describe('Streaming minibatches: train on each of this many minibatches as soon as it is sampled (null = off)'),
});

export const mathRl = defineRecipe({
  name: 'math_rl',
  description: 'RL on math with verifiable rewards; sync, stream minibatch or async (default: arithmetic, offline)',
  schema: mathRlSchema,
  async run(config, io) {
    const renderer = rlRenderer(config);
    const extra =
      config.maxStepsOffPolicy !== null
        ? { asyncConfig: { maxStepsOffPolicy: config.maxStepsOffPolicy, groupsPerBatch: config.groupsPerBatch } }
        : config.numMinibatches !== null
          ? { streamMinibatchConfig: { groupsPerBatch: config.groupsPerBatch, numMinibatches: config.numMinibatches } }
          : {};
    await runRlRecipe(
      mathRlSchema,
      config,
      () =>
        buildMathDatasets({
          env: config.env,
          renderer,
          batchSize: config.groupsPerBatch,
          groupSize: config.groupSize,
          numBatches: numBatches(config),
          seed: config.seed,
          formatCoef: config.formatCoef,
          online: config.online,
          numTestProblems: config.numTestProblems,
          ...(config.gsm8kPath !== null ? { gsm8kPath: config.gsm8kPath } : {}),
        }),
      io,
      extra,
    );
  },
});
