/**
 * `cookbook rl_basic`: the blueprint of an RL run (upstream `recipes/rl_basic.py`): a math environment, groups of
 * rollouts, centred advantages, importance-sampling loss. Offline by default: small-operand arithmetic on
 * `local/qwen3-tiny` (a tiny stand-in with pretrained reading skills), warm-started on reference answers so RL has a signal.
 * Hosted: env=gsm8k online=true model_name=… groups_per_batch=128 group_size=16 (the warm start is then off).
 */
import { buildMathDatasets, collectDemonstrations } from '@cookbook/rl';
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

export const rlBasicSchema = rlRecipeSchema.extend({
  logPath: rlRecipeSchema.shape.logPath.default('.cookbook-runs/rl_basic'),
  env: z.enum(['arithmetic', 'gsm8k']).default('arithmetic').describe('arithmetic (generated) or gsm8k'),
  maxOperand: maxOperandField,
  online: z.boolean().default(false).describe('gsm8k: read openai/gsm8k from the Hugging Face Hub (network)'),
  gsm8kPath: z.string().nullable().default(null).describe('gsm8k offline: a JSONL file of {question, answer}'),
  ...warmStartFields(MATH_WARM_START),
});

export const rlBasic = defineRecipe({
  name: 'rl_basic',
  description:
    'RL blueprint: math problems, GRPO-style groups (default: small arithmetic on the tiny offline stand-in model)',
  schema: rlBasicSchema,
  notes: offlineRlNotes(
    'rl_basic',
    'model_name=Qwen/Qwen3-8B env=gsm8k online=true max_tokens=256 groups_per_batch=128 group_size=16 max_steps=100',
  ),
  async run(config, io) {
    const renderer = rlRenderer(config);
    const datasets = (seed: number, batches: number) =>
      buildMathDatasets({
        env: config.env,
        renderer,
        batchSize: config.groupsPerBatch,
        groupSize: config.groupSize,
        numBatches: batches,
        seed,
        maxOperand: config.maxOperand,
        online: config.online,
        ...(config.gsm8kPath !== null ? { gsm8kPath: config.gsm8kPath } : {}),
      });
    await runRlRecipe(rlBasicSchema, config, () => datasets(config.seed, numBatches(config)), io, {
      warmStartName: `rl_basic-${config.env}`,
      demonstrations: async () => {
        const n = config.warmStartExamples;
        const { train } = await datasets(config.seed + DEMONSTRATION_SEED_OFFSET, mathDemonstrationCount(n, config));
        return collectDemonstrations(train, n);
      },
    });
  },
});
