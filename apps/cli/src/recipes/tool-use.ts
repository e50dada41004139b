/**
 * `cookbook tool_use`: RL on a tool-using agent (upstream `tool_use/`): each problem's answer sits in a table only the
 * `lookup(key)` tool can read, so the policy must call the tool with the asked key and copy its result into the final
 * answer. Offline on `local/qwen3-tiny`, warm-started on the env's demonstrations (call, result, answer) so that RL has
 * a signal; its episode reward rises from there. Hosted: any model with a tool-calling renderer.
 */
import { collectDemonstrations, LookupToolDataset, RolloutLimitsSchema } from '@cookbook/rl';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { GAME_MAX_STEPS, numBatches, rlRecipeSchema, rlRenderer, runRlRecipe } from './rl-common.js';
import { DEMONSTRATION_SEED_OFFSET, offlineRlNotes, warmStartFields } from './rl-warm-start.js';

/**
 * Offline warm start of the lookup task. Measured on a loaded 2-core machine: 60 steps with every demonstration on the
 * asked key and a fresh RL optimizer left 70–90% of replies malformed and RL fell (seeds 0/1/2: 0.115 → 0.052,
 * 0.167 → 0.031, 0.073 → 0.031); 80 steps on the asked key started RL at 0.84 (no room). Now: 80 steps, 0.3 of the
 * demonstrations on the asked key (the rest on a random key), RL on the warm start's Adam moments, balanced keys per
 * batch: seeds 0.177 → 0.240, 0.260 → 0.010, 0.167 → 0.198; negate 0.146 → 0.010 (rises within one step's spread:
 * the learning claim is not shown yet).
 */
export const TOOL_USE_WARM_START = { steps: 80, examples: 128, batchSize: 8, learningRate: 1e-2 };
export const TOOL_USE_ASKED_KEY_RATE = 0.3;

const limits = RolloutLimitsSchema.shape;

export const toolUseSchema = rlRecipeSchema.extend({
  logPath: rlRecipeSchema.shape.logPath.default('.cookbook-runs/tool_use'),
  numKeys: z
    .number()
    .int()
    .min(1)
    .max(8)
    .default(4)
    .describe("Keys in each problem's table (the policy must call lookup with the asked one)"),
  maxValue: z.number().int().positive().default(9).describe('Table values are integers in [0, max_value]'),
  declareTools: z
    .boolean()
    .nullable()
    .default(null)
    .describe(
      "Declare the tool in the prompt (the chat format's tool preamble). null = off for the local/* stand-ins (which " +
        'cannot read a JSON schema, and whose steps would cost 3-4x more: the preamble is most of the prompt; the warm ' +
        'start teaches the call instead), on for every other model',
    ),
  maskParseErrors: z
    .boolean()
    .default(true)
    .describe('Leave malformed replies (cut off, no stop token) out of the loss (parse_error_masked)'),
  warmStartAskedKeyRate: z
    .number()
    .min(0)
    .max(1)
    .default(TOOL_USE_ASKED_KEY_RATE)
    .describe(
      'Warm start: share of demonstrations that look up the asked key; the rest look up a random key of the table ' +
        'and answer with its value (they teach the call format and copying the result, not which key to look up)',
    ),
  maxTurns: limits.maxTurns.default(3),
  maxTotalTokens: limits.maxTotalTokens,
  maxEpisodeSeconds: limits.maxEpisodeSeconds,
  maxToolCallSeconds: limits.maxToolCallSeconds,
  // A call is ~19 tokens of Qwen3 tool framing; the answer is a digit and the stop token.
  maxTokens: rlRecipeSchema.shape.maxTokens.default(24),
  // Multi-turn episodes cost several times a sum's tokens: the games' run length, and groups of 4.
  maxSteps: rlRecipeSchema.shape.maxSteps.default(GAME_MAX_STEPS),
  // RL continues the warm start's Adam moments (as multiplayer): a fresh Adam's first steps move every weight by about
  // ±lr whatever its gradient, which broke the stand-in's tool-call JSON (malformed replies 0.1 → 0.3–0.9 in 20 steps).
  loadCheckpointOptimizer: rlRecipeSchema.shape.loadCheckpointOptimizer.default(true),
  groupSize: rlRecipeSchema.shape.groupSize.default(4),
  ...warmStartFields(TOOL_USE_WARM_START),
});

export const toolUse = defineRecipe({
  name: 'tool_use',
  description: 'Tool-using agent RL: answer from a table only the lookup tool can read (offline default)',
  schema: toolUseSchema,
  notes: offlineRlNotes(
    'tool_use',
    'model_name=Qwen/Qwen3-8B num_keys=8 max_value=999 max_steps=50 groups_per_batch=64',
  ),
  async run(config, io) {
    const renderer = rlRenderer(config);
    const declareTools = config.declareTools ?? !config.modelName.startsWith('local/');
    const options = {
      declareTools,
      maskParseErrors: config.maskParseErrors,
      demoAskedKeyRate: config.warmStartAskedKeyRate,
      numKeys: config.numKeys,
      maxValue: config.maxValue,
      limits: {
        maxTurns: config.maxTurns,
        maxTotalTokens: config.maxTotalTokens,
        maxEpisodeSeconds: config.maxEpisodeSeconds,
        maxToolCallSeconds: config.maxToolCallSeconds,
      },
    };
    const dataset = (seed: number, batches: number) =>
      new LookupToolDataset(renderer, config.groupsPerBatch, config.groupSize, batches, seed, options);
    const resolved = { ...config, declareTools };
    await runRlRecipe(toolUseSchema, resolved, async () => ({ train: dataset(config.seed, numBatches(config)) }), io, {
      warmStartName: `tool_use-${config.numKeys}-${config.maxValue}-${declareTools ? 'declared' : 'bare'}-${config.warmStartAskedKeyRate}`,
      demonstrations: () =>
        collectDemonstrations(
          dataset(config.seed + DEMONSTRATION_SEED_OFFSET, Math.ceil(config.warmStartExamples / config.groupsPerBatch)),
          config.warmStartExamples,
        ),
    });
  },
});
