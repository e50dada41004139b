/**
 * `cookbook math_rl`: RL with verifiable math rewards (upstream `recipes/math_rl/train.py`). Switches between the
 * synchronous loop, streaming minibatches (`num_minibatches`) and async off-policy training
 * (`max_steps_off_policy`). Offline by default: small-operand arithmetic on `local/qwen3-tiny` (a tiny stand-in with
 * pretrained reading skills), warm-started on reference answers so RL has a signal.
 */
import { AsyncConfigSchema, buildMathDatasets, collectDemonstrations, StreamMinibatchConfigSchema } from '@cookbook/rl';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import {
  MATH_WARM_START,
  mathDemonstrationCount,
  maxOperandField,
  numBatches,
  rlRecipeSchema,
  rlRenderer,
  runRlRecipe,
} from './rl-common.js';
import { DEMONSTRATION_SEED_OFFSET, offlineRlNotes, warmStartFields } from './rl-warm-start.js';

export const mathRlSchema = rlRecipeSchema.extend({
  logPath: rlRecipeSchema.shape.logPath.default('.cookbook-runs/math_rl'),
  env: z
    .enum(['arithmetic', 'math', 'gsm8k'])
    .default('arithmetic')
    .describe('arithmetic (generated), math (\\boxed{} answers; generated offline, MATH-500 online) or gsm8k'),
  maxOperand: maxOperandField,
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
  ...warmStartFields(MATH_WARM_START),
});

export const mathRl = defineRecipe({
  name: 'math_rl',
  description:
    'RL on math with verifiable rewards; sync, stream minibatch or async (default: small arithmetic, tiny offline model)',
  schema: mathRlSchema,
  notes: offlineRlNotes(
    'math_rl',
    'model_name=Qwen/Qwen3-8B env=math online=true max_tokens=512 groups_per_batch=64 group_size=16 max_steps=100',
  ),
  async run(config, io) {
    const renderer = rlRenderer(config);
    const extra =
      config.maxStepsOffPolicy !== null
        ? { asyncConfig: { maxStepsOffPolicy: config.maxStepsOffPolicy, groupsPerBatch: config.groupsPerBatch } }
        : config.numMinibatches !== null
          ? { streamMinibatchConfig: { groupsPerBatch: config.groupsPerBatch, numMinibatches: config.numMinibatches } }
          : {};
    const datasets = (seed: number, batches: number, numTestProblems: number) =>
      buildMathDatasets({
        env: config.env,
        renderer,
        batchSize: config.groupsPerBatch,
        groupSize: config.groupSize,
        numBatches: batches,
        seed,
        maxOperand: config.maxOperand,
        formatCoef: config.formatCoef,
        online: config.online,
        numTestProblems,
        ...(config.gsm8kPath !== null ? { gsm8kPath: config.gsm8kPath } : {}),
      });
    await runRlRecipe(
      mathRlSchema,
      config,
      () => datasets(config.seed, numBatches(config), config.numTestProblems),
      io,
      {
        warmStartName: `math_rl-${config.env}`,
        demonstrations: async () => {
          const n = config.warmStartExamples;
          const seed = config.seed + DEMONSTRATION_SEED_OFFSET;
          const { train } = await datasets(seed, mathDemonstrationCount(n, config), 0);
          return collectDemonstrations(train, n);
        },
        extra,
      },
    );
  },
});
