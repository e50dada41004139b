/**
 * Pieces shared by the RL recipes (rl_basic, math_rl, multiplayer): the recipe schema derived from
 * `@cookbook/rl`'s `RLTrainConfigSchema` (library fields keep their description; a recipe only adds its own fields
 * and derives its offline defaults), the renderer, and a runner that prints one line per step and the reward curve.
 */

import { join } from 'node:path';
import { ConfigError, configToKeyStyle, type Message } from '@cookbook/core';
import { REPORT_FILE, readMetrics } from '@cookbook/logging';
import { type Renderer, resolveModelSetup } from '@cookbook/renderers';
import {
  type RLTrainConfigInput,
  RLTrainConfigSchema,
  type RLTrainDeps,
  resolveAlgorithm,
  rlPlanOptions,
  train,
} from '@cookbook/rl';
import { planRun, type RLDatasetBuilder } from '@cookbook/training';
import { z } from 'zod';
import type { RecipeIO } from '../recipe.js';
import { connectService, rendererNameField } from './common.js';
import { resolveWarmStart, type WarmStartConfig } from './rl-warm-start.js';

const lib = RLTrainConfigSchema.shape;

/** Offline run length and answer length of the RL recipes (short answers: one number and the stop token). */
export const OFFLINE_MAX_STEPS = 30;
export const OFFLINE_MAX_TOKENS = 3;

/**
 * Every RL recipe's fields: the library's (streaming and async settings excepted: `math_rl` maps its own keys onto
 * them) with offline defaults for a tiny model, plus the data-set fields the recipes share.
 */
export const rlRecipeSchema = RLTrainConfigSchema.omit({
  streamMinibatchConfig: true,
  asyncConfig: true,
  samplingSeed: true,
}).extend({
  rendererName: rendererNameField,
  groupSize: z.number().int().positive().default(8).describe('Rollouts per problem (the GRPO group)'),
  groupsPerBatch: z.number().int().positive().default(4).describe('Groups per training step (hosted example: 100)'),
  seed: z
    .number()
    .int()
    .default(0)
    .describe(
      'Seed of generated problems, the warm start and the training sampling (the same seed repeats the training)',
    ),
  maxTokens: lib.maxTokens.default(OFFLINE_MAX_TOKENS),
  maxSteps: lib.maxSteps.default(OFFLINE_MAX_STEPS),
  evalEvery: lib.evalEvery.default(0),
  saveEvery: lib.saveEvery.default(0),
  numGroupsToLog: lib.numGroupsToLog.default(2),
});

/**
 * Offline defaults of the arithmetic recipes: operands in [0, OFFLINE_MAX_OPERAND] (answers of one or two digits,
 * a task the tiny model can climb), and a warm start that teaches the answer format but leaves room to improve.
 */
// Measured on the stand-in that reads chats (seed 0, rl_basic): with operands in [0, 1] the warm start already answered
// 0.90–0.99 of the problems (no room for RL); in [0, 2] RL climbed from 0.34 to 0.60.
export const OFFLINE_MAX_OPERAND = 2;
// Measured on the pretrained stand-in (rl_basic, seed 0): 60 steps at lr 3e-2 ended at an SFT loss of 1.30 and RL fell
// (0.11 → 0.05); 60 steps at 1e-2 fit the answers exactly (loss 0.000: RL starts at the ceiling); 20 at 1e-2 ended at
// 0.41 and RL climbed (0.74 → 0.99). On the stand-in that reads chats, operands in [0, 2]: after 20 steps seed 2's
// policy collapsed to one answer in math_rl and rl_loop (0.41 → 0.30); after 30 steps all three seeds climbed in all
// three recipes (0.30–0.45 → 0.44–0.66).
export const MATH_WARM_START = { steps: 30, examples: 64, batchSize: 4, learningRate: 1e-2 };
/** Offline run length of the games (multi-turn episodes cost several times a sum's tokens). */
export const GAME_MAX_STEPS = 20;
/** Offline warm-start defaults of the games (multiplayer). */
// Measured (seed 0): at lr 3e-2, 60 steps of 4, the SFT loss ended at 1.99 (guess_number) and 1.04 (tic_tac_toe, board
// observation); at lr 1e-2, 100 steps of 8, at 0.86 and 0.46.
export const GAME_WARM_START = { steps: 100, examples: 128, batchSize: 8, learningRate: 1e-2 };

/** The arithmetic operand range every math recipe offers. */
export const maxOperandField = z
  .number()
  .int()
  .nonnegative()
  .default(OFFLINE_MAX_OPERAND)
  .describe('arithmetic: operands are drawn from [0, max_operand] (small: a task the tiny offline model can climb)');

/** Batches of a math data set that hold `count` demonstrations (one per problem). */
export function mathDemonstrationCount(count: number, config: Pick<RLRecipeConfig, 'groupsPerBatch'>): number {
  return Math.ceil(count / config.groupsPerBatch);
}

/** The shared RL recipe fields, parsed. */
export type RLRecipeConfig = z.infer<typeof rlRecipeSchema>;

/** The renderer of the run: explicit, else the model's recommended one. */
export function rlRenderer(config: Pick<RLRecipeConfig, 'modelName' | 'rendererName'>): Renderer {
  return resolveModelSetup(config).renderer;
}

/** The number of batches a recipe's data set needs: `maxSteps` (every recipe sets one). */
export function numBatches(config: Pick<RLRecipeConfig, 'maxSteps'>): number {
  return config.maxSteps ?? 1;
}

/**
 * Runs RL with a recipe's parsed config (passed through: the library ignores the recipe-only keys), `extra` loop
 * settings and the recipe's data; `config.json` gets the recipe's fields in snake_case. Prints progress to `io`.
 */
export async function runRlRecipe(
  schema: z.ZodType,
  config: RLRecipeConfig & WarmStartConfig,
  datasetBuilder: RLDatasetBuilder,
  io: RecipeIO,
  options: {
    /** Names the warm start's cache entry (recipe and task). */
    warmStartName: string;
    /** The demonstrations of the warm start; undefined when the task has none. */
    demonstrations: (() => Promise<Message[][]>) | undefined;
    /** The headline metric of the summary line. Default `env/all/reward/total`. */
    headline?: string;
    extra?: Partial<RLTrainConfigInput>;
    deps?: Partial<RLTrainDeps>;
  },
): Promise<void> {
  const { extra = {}, deps = {} } = options;
  // Checked before the service is contacted: the algorithm's knobs, and the group baselines' need for a second rollout
  // per group (RLOO's leave-one-out, REINFORCE++ w/ Baseline's group mean).
  const { knobs } = resolveAlgorithm({ ...config, ...extra } as RLRecipeConfig);
  const grouped = {
    rloo: "the leave-one-out baseline is the group's other rollouts",
    reinforce_pp_baseline: "the baseline is the group's mean; advantage_estimator=reinforce_pp has none",
  } as const;
  const est = knobs.advantageEstimator;
  if ((est === 'rloo' || est === 'reinforce_pp_baseline') && config.groupSize < 2) {
    const from =
      config.algorithm !== null && config.advantageEstimator === null ? `algorithm=${config.algorithm}` : 'explicit';
    throw new ConfigError(
      `advantage_estimator=${est} (${from}) needs group_size ≥ 2 (${grouped[est]}), got group_size=${config.groupSize}`,
    );
  }
  const service = await connectService(config.baseUrl);
  try {
    const warm = await resolveWarmStart(config, {
      name: options.warmStartName,
      service,
      renderer: rlRenderer(config),
      demonstrations: options.demonstrations,
      io,
    });
    // The plan comes from the command line's parse (the recipe schema extends RL's fields): no second parse.
    const plan = planRun(
      RLTrainConfigSchema,
      { ...config, samplingSeed: config.seed, ...(warm === null ? {} : { loadCheckpointPath: warm }), ...extra },
      rlPlanOptions(configToKeyStyle(schema, { ...config, ...extra }, { keyStyle: 'snake_case' })),
    );
    const result = await train(plan, {
      datasetBuilder,
      serviceClient: service,
      console: false,
      log: io.err,
      onStep: (step, m) =>
        io.out(
          `step ${String(step).padStart(4)}  reward ${(m['env/all/reward/total'] ?? 0).toFixed(3)}` +
            `${m['test/env/all/reward/total'] === undefined ? '' : `  test reward ${m['test/env/all/reward/total'].toFixed(3)}`}` +
            `  entropy ${(m['optim/entropy'] ?? 0).toFixed(3)}  ${(m['time/total'] ?? 0).toFixed(2)}s`,
        ),
      ...deps,
    });
    if (result.stepsRun === 0) return;
    const { rows } = await readMetrics(join(config.logPath, 'metrics.jsonl'));
    const headline = options.headline ?? 'env/all/reward/total';
    io.out(headlineSummary(headline, rows));
    io.out(`report: ${join(config.logPath, REPORT_FILE)}`);
  } finally {
    await service.close();
  }
}

/** The means of the first and the last third of a metric's values (the run's learning curve in two numbers). */
export function thirds(values: readonly number[]): { first: number; last: number } | undefined {
  if (values.length === 0) return undefined;
  const k = Math.max(1, Math.floor(values.length / 3));
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { first: mean(values.slice(0, k)), last: mean(values.slice(-k)) };
}

/** `<metric>: first third 0.120 → last third 0.350 over 30 steps` for the rows of `metrics.jsonl`. */
export function headlineSummary(metric: string, rows: readonly Record<string, unknown>[]): string {
  const values = rows.map((r) => r[metric]).filter((v): v is number => typeof v === 'number');
  const t = thirds(values);
  if (t === undefined) return `${metric}: not logged`;
  return `${metric}: first third ${t.first.toFixed(3)} → last third ${t.last.toFixed(3)} over ${values.length} steps`;
}
