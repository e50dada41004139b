/**
 * Pieces shared by the RL recipes (rl_basic, math_rl, multiplayer): the recipe schema derived from
 * `@cookbook/rl`'s `RLTrainConfigSchema` (library fields keep their description; a recipe only adds its own fields
 * and derives its offline defaults), the renderer, and a runner that prints one line per step and the reward curve.
 */
import { join } from 'node:path';
import { configToKeyStyle } from '@cookbook/core';
import { REPORT_FILE, readMetrics } from '@cookbook/logging';
import { getRecommendedRendererName, getRenderer, getTokenizer, type Renderer } from '@cookbook/renderers';
import {
  type RLDatasetBuilder,
  type RLTrainConfigInput,
  RLTrainConfigSchema,
  type RLTrainDeps,
  train,
} from '@cookbook/rl';
import { z } from 'zod';
import type { RecipeIO } from '../recipe.js';
import { connectService, rendererNameField } from './common.js';

const lib = RLTrainConfigSchema.shape;

/**
 * Every RL recipe's fields: the library's (streaming and async settings excepted: `math_rl` maps its own keys onto
 * them) with offline defaults for a tiny model, plus the data-set fields the recipes share.
 */
export const rlRecipeSchema = RLTrainConfigSchema.omit({ streamMinibatchConfig: true, asyncConfig: true }).extend({
  rendererName: rendererNameField,
  groupSize: z.number().int().positive().default(4).describe('Rollouts per problem (the GRPO group)'),
  groupsPerBatch: z.number().int().positive().default(4).describe('Groups per training step (hosted example: 100)'),
  seed: z.number().int().default(0).describe('Seed of generated problems'),
  maxTokens: lib.maxTokens.default(8),
  maxSteps: lib.maxSteps.default(5),
  evalEvery: lib.evalEvery.default(0),
  saveEvery: lib.saveEvery.default(0),
  numGroupsToLog: lib.numGroupsToLog.default(2),
});

/** The shared RL recipe fields, parsed. */
export type RLRecipeConfig = z.infer<typeof rlRecipeSchema>;

/** The renderer of the run: explicit, else the model's recommended one. */
export function rlRenderer(config: Pick<RLRecipeConfig, 'modelName' | 'rendererName'>): Renderer {
  const name = config.rendererName ?? getRecommendedRendererName(config.modelName);
  return getRenderer(name, getTokenizer(config.modelName));
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
  config: RLRecipeConfig,
  datasetBuilder: RLDatasetBuilder,
  io: RecipeIO,
  extra: Partial<RLTrainConfigInput> = {},
  deps: Partial<RLTrainDeps> = {},
): Promise<void> {
  const service = await connectService(config.baseUrl);
  try {
    const result = await train(
      { ...config, ...extra },
      {
        datasetBuilder,
        serviceClient: service,
        console: false,
        log: io.err,
        hparams: configToKeyStyle(schema, { ...config, ...extra }, { keyStyle: 'snake_case' }),
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
    const { rows } = await readMetrics(join(config.logPath, 'metrics.jsonl'));
    const rewards = rows.map((r) => r['env/all/reward/total']).filter((v): v is number => typeof v === 'number');
    io.out(`reward ${rewards[0]?.toFixed(3)} → ${rewards.at(-1)?.toFixed(3)} over ${rewards.length} steps`);
    io.out(`report: ${join(config.logPath, REPORT_FILE)}`);
  } finally {
    await service.close();
  }
}
