/**
 * `cookbook multiplayer`: multi-turn and multi-agent RL (upstream `recipes/multiplayer_rl`): guess the number
 * (the env answers higher/lower), twenty questions (a second agent answers; offline a rule-based answerer, or a
 * model with answerer=model) and tic-tac-toe self-play (both seats in one group; test against a random player).
 */

import { BUILT_IN_ENVS, collectDemonstrations } from '@cookbook/rl';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import {
  getEnvSpec,
  limitDataset,
  mergedEnvConfigShape,
  parseEnvConfig,
  type RLDataset,
  type RolloutLimits,
  RolloutLimitsSchema,
} from '@cookbook/training';
import { z } from 'zod';
import { ensureEnvPlugin } from '../env-plugins.js';
import { defineRecipe } from '../recipe.js';
import { connectService } from './common.js';
import { GAME_MAX_STEPS, GAME_WARM_START, numBatches, rlRecipeSchema, rlRenderer, runRlRecipe } from './rl-common.js';
import { DEMONSTRATION_SEED_OFFSET, offlineRlNotes, warmStartFields } from './rl-warm-start.js';

/** A positive integer setting whose null default is resolved per env in `run` (and recorded resolved). */
const perEnv = (description: string) => z.number().int().positive().nullable().default(null).describe(description);

export const multiplayerSchema = rlRecipeSchema.extend({
  logPath: rlRecipeSchema.shape.logPath.default('.cookbook-runs/multiplayer'),
  env: z
    .string()
    .regex(/^[a-z0-9_]+$/)
    .default('guess_number')
    .describe(
      `The game, by its name in the env registry: ${BUILT_IN_ENVS.map((e) => e.name).join(' | ')}, or a ` +
        'cookbook-env-<name> package (imported by name)',
    ),
  envConfig: z
    .record(z.string(), z.unknown())
    .nullable()
    .default(null)
    .describe('Settings of an env from a package, as JSON (the built-in games take theirs as the keys below)'),
  // Every built-in env's settings, each declared once in its env's file.
  ...mergedEnvConfigShape(BUILT_IN_ENVS),
  groupsPerBatch: perEnv(
    'Groups per training step; null = 4 for guess_number (with guess_high 3 every step then plays every secret ' +
      'once: secrets are drawn balanced), 2 for the other games',
  ),
  maxSteps: rlRecipeSchema.shape.maxSteps.default(GAME_MAX_STEPS),
  // Rollout limits on any env (the games' own `max_turns` is a rule of the game; this one cuts any episode).
  maxEpisodeTurns: RolloutLimitsSchema.shape.maxTurns.describe(
    'Rollout limit: most turns (sampling calls) per episode of any env, checked after each turn; null = unlimited ' +
      '(max_turns is the game rule of guess_number / twenty_questions)',
  ),
  maxTotalTokens: RolloutLimitsSchema.shape.maxTotalTokens,
  maxEpisodeSeconds: RolloutLimitsSchema.shape.maxEpisodeSeconds,
  // RL continues the warm start's Adam moments: a fresh Adam's first step (±lr on every weight) turned a warm-started
  // tic-tac-toe player into one that only makes illegal moves (entropy 0.54 → 0.00 in one step at lr 3e-3).
  loadCheckpointOptimizer: rlRecipeSchema.shape.loadCheckpointOptimizer.default(true),
  // A tic-tac-toe move is `[5]` (3 tokens) and the stop token.
  maxTokens: rlRecipeSchema.shape.maxTokens.default(4),
  ...warmStartFields(GAME_WARM_START),
  warmStartSteps: perEnv(
    'Warm start: SFT steps; null = 200 for guess_number (reading "Too low" / "Too high" is slower to learn than the ' +
      `opening), ${GAME_WARM_START.steps} otherwise`,
  ),
});

export const multiplayer = defineRecipe({
  name: 'multiplayer',
  description: `Multi-turn / multi-agent RL: ${BUILT_IN_ENVS.map((e) => e.name).join(' | ')} or an env package (offline defaults)`,
  schema: multiplayerSchema,
  notes: offlineRlNotes(
    'multiplayer',
    'model_name=Qwen/Qwen3-8B env=guess_number guess_high=1024 max_turns=10 max_tokens=64 max_steps=100 learning_rate=3e-5',
  ),
  async run(config, io) {
    await ensureEnvPlugin(config.env);
    const spec = getEnvSpec(config.env);
    const renderer = rlRenderer(config);
    let service: { close(): Promise<void> } | undefined;
    try {
      // The settings left null take the env's defaults, then the recipe's, so config.json records the values used.
      const withEnvDefaults: Record<string, unknown> = { ...config };
      for (const [key, value] of Object.entries(spec.runDefaults ?? {})) withEnvDefaults[key] ??= value;
      const groupsPerBatch = (withEnvDefaults.groupsPerBatch as number | null) ?? 2;
      const warmStartSteps = (withEnvDefaults.warmStartSteps as number | null) ?? GAME_WARM_START.steps;
      const source = await spec.build(parseEnvConfig(spec, withEnvDefaults, config.envConfig ?? {}), {
        renderer,
        groupSize: config.groupSize,
        groupsPerBatch,
        modelName: config.modelName,
        samplingClient: async (baseModel: string): Promise<SamplingClientLike> => {
          const s = connectService(config.baseUrl);
          service = s;
          return s.createSamplingClient({ baseModel });
        },
      });
      const n = numBatches(config);
      const limits: RolloutLimits = {
        maxTurns: config.maxEpisodeTurns,
        maxTotalTokens: config.maxTotalTokens,
        maxEpisodeSeconds: config.maxEpisodeSeconds,
      };
      const limited = Object.values(limits).some((v) => v !== null);
      const limit = (d: RLDataset) => (limited ? limitDataset(d, limits) : d);
      const datasetBuilder = async () => {
        const train = limit(source.train(config.seed, n));
        return source.test === undefined ? { train } : { train, test: limit(source.test(config.seed)) };
      };
      // The run's config.json records the resolved game settings (and the RL loop's plan its learning rate), not null.
      const resolved = { ...(withEnvDefaults as typeof config), groupsPerBatch, warmStartSteps };
      await runRlRecipe(multiplayerSchema, resolved, datasetBuilder, io, {
        warmStartName: `multiplayer-${config.env}`,
        demonstrations: source.demonstrations
          ? () =>
              collectDemonstrations(
                source.train(config.seed + DEMONSTRATION_SEED_OFFSET, 1_000),
                config.warmStartExamples,
              )
          : undefined,
        headline: source.headline,
      });
    } finally {
      await service?.close();
    }
  },
});
