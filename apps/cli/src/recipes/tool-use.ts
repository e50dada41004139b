/**
 * `cookbook tool_use`: RL on a tool-using agent (upstream `tool_use/`): each problem's answer sits in a table only the
 * `lookup(key)` tool can read, so the policy must call the tool with the asked key and copy its result into the final
 * answer. Offline on `local/qwen3-tiny`, warm-started on the env's demonstrations, half of which call the tool and half
 * answer a guessed digit without it: RL's climb is calling the tool (the `called_tool` metric). Hosted: any model with
 * a tool-calling renderer.
 */
import { resolveModelRef } from '@cookbook/core';
import { collectDemonstrations, LookupToolDataset } from '@cookbook/rl';
import { RolloutLimitsSchema } from '@cookbook/training';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { GAME_MAX_STEPS, numBatches, rlRecipeSchema, rlRenderer, runRlRecipe } from './rl-common.js';
import { DEMONSTRATION_SEED_OFFSET, offlineRlNotes, warmStartFields } from './rl-warm-start.js';

/**
 * Offline warm start of the lookup task: 80 steps on demonstrations of which half call the tool with the asked key and
 * copy the result and half answer at once with a guessed digit (right 1 time in 10), so the warm-started policy calls
 * the tool in about half of its episodes and RL's climb is calling it more. Measured on the loaded 2-core machine
 * (load 9–17, four runs at once), steps 0–5 → 14–19: seeds 0.135 → 0.333, 0.208 → 0.094, 0.385 → 0.500 (tool calls
 * per episode 0.33 → 0.72, 0.35 → 0.28, 0.62 → 0.78); negate 0.135 → 0.073 (tool calls 0.25 → 0.00). Earlier designs
 * did not rise clearly: every demonstration on the asked key (RL started at 0.84, or fell with a fresh optimizer), 0.3
 * on the asked key and the rest on a random key, and 0.3 calling the tool with malformed replies masked (RL learned to
 * start calls it could not finish: seeds 0.219 → 0.271, 0.104 → 0.135, 0.125 → 0.156, within noise).
 */
export const TOOL_USE_WARM_START = { steps: 80, examples: 128, batchSize: 8, learningRate: 1e-2 };
export const TOOL_USE_TOOL_RATE = 0.5;

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
    .default(false)
    .describe(
      'Leave malformed replies (cut off, no stop token) out of the loss (parse_error_masked). Off by default: masked, ' +
        'a malformed call costs nothing, and RL learned to start calls it could not finish',
    ),
  warmStartToolRate: z
    .number()
    .min(0)
    .max(1)
    .default(TOOL_USE_TOOL_RATE)
    .describe(
      'Warm start: share of demonstrations that call lookup with the asked key and copy the result; the rest answer ' +
        'at once with a guessed digit (right by chance only), so RL has the tool call left to learn',
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
    const declareTools = config.declareTools ?? resolveModelRef(config.modelName).kind !== 'built-in';
    const options = {
      declareTools,
      maskParseErrors: config.maskParseErrors,
      demoToolRate: config.warmStartToolRate,
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
      warmStartName: `tool_use-${config.numKeys}-${config.maxValue}-${declareTools ? 'declared' : 'bare'}-tool${config.warmStartToolRate}`,
      demonstrations: () =>
        collectDemonstrations(
          dataset(config.seed + DEMONSTRATION_SEED_OFFSET, Math.ceil(config.warmStartExamples / config.groupsPerBatch)),
          config.warmStartExamples,
        ),
    });
  },
});
