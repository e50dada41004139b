/**
 * `cookbook gem`: the GEM trainer (`@cookbook/gem`: REINFORCE with per-turn discounted returns, return
 * batch-normalisation and the importance-sampling loss) on a GEM env — games such as `game:GuessTheNumber-v0-easy`,
 * or single-turn math / QA from a JSONL file (`math:jsonl`, `qa:jsonl` with `env_kwargs.path=…`).
 *
 * Offline by default: the built-in `local/qwen3-tiny`, a tiny stand-in (Qwen3 architecture and tokenizer, hidden size
 * 64, 2 layers, pretrained on synthetic reading exercises and chats only) that cannot play anything by itself. So the
 * recipe first warm-starts it (`warmStart` of `@cookbook/supervised`: SFT on demonstrations, cached) on games of the
 * game's scripted player (`gamePlayer`: bisection for GuessTheNumber, a solver for TowerofHanoi, …) that makes a random
 * move `warm_start_noise` of the time, then runs RL on it. The figures show the mechanics on a tiny model, not model
 * quality. Offline, on the current stand-in, RL on this model levels off near 0.65–0.7, so the warm start is short (6
 * SFT steps) and leaves the player well below that: 30 RL steps move `sampler/episode_return` (first third → last
 * third) 0.306 → 0.637, 0.426 → 0.574, 0.557 → 0.670 for seeds 0, 1, 2, while the negated-advantage control falls
 * (0.021 → −0.100) and the zero-advantage one stays flat (0.391 → 0.358; the gem README has the figures and what was
 * tried).
 *
 * Improvements on the seed script: every episode and every sampled turn is seeded from `seed` (the seed used the
 * clock), so a run repeats exactly; a one-transition batch gets advantage 0 instead of NaN, failed sampling is retried
 * and then counted (`sampler/failed_episodes`) instead of silently dropping the episode, the subsample uses a seeded
 * RNG instead of numpy's global one, and a step without signal (all advantages 0) skips the optimizer step.
 */
import { join } from 'node:path';
import { ConfigError, configToKeyStyle, DEFAULT_MODEL_NAME, resolveModelRef } from '@cookbook/core';
import {
  applyWrappers,
  GemTrainConfigSchema,
  gamePlayer,
  gemDemonstrationDatums,
  gemRenderer,
  gemWrapperDeps,
  getWrapperFns,
  make,
  trainGem,
} from '@cookbook/gem';
import { REPORT_FILE } from '@cookbook/logging';
import { warmStart } from '@cookbook/supervised';
import { planRun } from '@cookbook/training';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService } from './common.js';

const lib = GemTrainConfigSchema.shape;

export const gemSchema = GemTrainConfigSchema.extend({
  logPath: lib.logPath.default('.cookbook-runs/gem'),
  modelName: lib.modelName.default(DEFAULT_MODEL_NAME),
  batchSize: lib.batchSize.default(8),
  learningRate: lib.learningRate.default(5e-4),
  maxTokens: lib.maxTokens.default(8),
  maxSteps: lib.maxSteps.default(30),
  numEnv: lib.numEnv.default(8),
  template: lib.template.default('qwen3_game'),
  // RL continues the warm start's Adam moments (a fresh Adam's first step moves every weight by the full learning rate).
  loadCheckpointOptimizer: lib.loadCheckpointOptimizer.default(true),
  warmStart: z
    .enum(['auto', 'on', 'off'])
    .default('auto')
    .describe(
      'SFT on scripted-player games before RL: auto = for local/ models on game:* ids (each game has a player)',
    ),
  warmStartEpisodes: z.number().int().positive().default(64).describe('Player episodes demonstrated'),
  warmStartSteps: z
    .number()
    .int()
    .positive()
    .default(6)
    .describe(
      'SFT steps of the warm start (few: the player starts well below what RL reaches, ≈0.65, so RL has room to rise)',
    ),
  warmStartBatchSize: z.number().int().positive().default(8).describe('Turns per warm-start SFT step'),
  warmStartLearningRate: z.number().positive().default(1e-2).describe('Warm-start learning rate (linear decay)'),
  warmStartPromptTokens: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(40)
    .describe(
      'Warm-start SFT sees the last N tokens of each prompt (the latest hint and the move); null = all (slower)',
    ),
  warmStartNoise: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe('Probability that a demonstrated move is random instead of the player’s (leaves RL room to improve)'),
});

type GemRecipeConfig = z.infer<typeof gemSchema>;

/** The game's scripted player (they read the concatenated observation history). */
function playerFor(envId: string): ((observation: string) => string) | undefined {
  const player = gamePlayer(envId);
  return player === undefined ? undefined : (observation) => player(observation);
}

function wantsWarmStart(config: GemRecipeConfig): boolean {
  if (config.warmStart === 'off' || config.loadCheckpointPath !== null) return false;
  const player = playerFor(config.envId);
  if (config.warmStart === 'on' && player === undefined) {
    throw new ConfigError(
      `warm_start=on: no scripted player for ${config.envId} (every offline game:* id has one; WikiGame and math/qa/code envs do not)`,
      { key: 'warm_start' },
    );
  }
  return player !== undefined && (config.warmStart === 'on' || resolveModelRef(config.modelName).kind === 'built-in');
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

export const gem = defineRecipe({
  name: 'gem',
  description:
    'GEM trainer (REINFORCE + ReBN) on GEM games / math / QA. Default: game:GuessTheNumber-v0-easy offline on ' +
    'local/qwen3-tiny, a tiny stand-in (2 layers, hidden 64) warm-started on scripted-player games; ' +
    'it shows the mechanics and the learning signal, not model quality',
  schema: gemSchema,
  async run(config, io) {
    const renderer = gemRenderer(config);
    const service = await connectService(config.baseUrl);
    try {
      let loadCheckpointPath = config.loadCheckpointPath;
      if (wantsWarmStart(config)) {
        const wrappers = getWrapperFns(config.envWrappers, { renderer, ...gemWrapperDeps(config) });
        const demos = await gemDemonstrationDatums({
          makeEnv: () => applyWrappers(make(config.envId, { ...config.envKwargs }), wrappers),
          player: playerFor(config.envId)!,
          episodes: config.warmStartEpisodes,
          renderer,
          template: config.template,
          seed: config.seed + 1_000_003,
          noise: config.warmStartNoise,
          ...(config.warmStartPromptTokens === null ? {} : { maxPromptTokens: config.warmStartPromptTokens }),
        });
        io.err(
          `warm start: ${demos.datums.length} turns from ${config.warmStartEpisodes} player episodes (mean return ${demos.meanReturn.toFixed(3)}, noise ${config.warmStartNoise})`,
        );
        const ws = await warmStart({
          service,
          baseModel: config.modelName,
          loraRank: config.loraRank,
          demonstrations: { datums: demos.datums },
          sft: {
            steps: config.warmStartSteps,
            batchSize: config.warmStartBatchSize,
            learningRate: config.warmStartLearningRate,
          },
          seed: config.seed,
          name: `gem-${config.envId.replace(/[^A-Za-z0-9._-]/g, '_')}`,
          log: io.err,
        });
        loadCheckpointPath = ws.statePath;
      }
      // One episode of each step is shown before its step line (the seed prints two per step).
      let shownStep = -1;
      // The plan comes from the command line's parse (gemSchema extends the trainer's fields): no second parse.
      const plan = planRun(
        GemTrainConfigSchema,
        { ...config, loadCheckpointPath },
        {
          loop: 'rl',
          hparams: configToKeyStyle(gemSchema, { ...config, loadCheckpointPath }, { keyStyle: 'snake_case' }),
        },
      );
      const result = await trainGem(plan, {
        serviceClient: service,
        renderer,
        console: false,
        log: io.err,
        onEpisode: (e) => {
          if (e.step === shownStep) return;
          shownStep = e.step;
          const acts = JSON.stringify(e.actions.map((a) => a.slice(0, 40))).slice(0, 160);
          io.out(`      episode: ${acts} → rewards ${JSON.stringify(e.rewards.map((r) => +r.toFixed(3)))}`);
        },
        onStep: (step, m) =>
          io.out(
            `step ${String(step).padStart(4)}  return ${(m['sampler/episode_return'] ?? 0).toFixed(3)}` +
              `  turns ${(m['sampler/num_turns_per_episode'] ?? 0).toFixed(2)}` +
              `  entropy ${(m['sampler/token_entropy'] ?? 0).toFixed(3)}` +
              `  sample ${(m['time/sample'] ?? 0).toFixed(1)}s  train ${(m['time/train'] ?? 0).toFixed(1)}s`,
          ),
      });
      const returns = result.value?.episodeReturns ?? [];
      if (returns.length >= 3) {
        const third = Math.floor(returns.length / 3);
        io.out(
          `sampler/episode_return: first third ${mean(returns.slice(0, third)).toFixed(3)} → last third ${mean(returns.slice(-third)).toFixed(3)} over ${returns.length} steps`,
        );
      }
      if ((result.value?.failedEpisodes ?? 0) > 0) {
        io.err(`gem: ${result.value?.failedEpisodes} episodes were abandoned after sampling failures (see metrics)`);
      }
      if (result.stepsRun > 0) io.out(`report: ${join(config.logPath, REPORT_FILE)}`);
    } finally {
      await service.close();
    }
  },
});
