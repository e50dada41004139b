/**
 * `cookbook multiplayer`: multi-turn and multi-agent RL (upstream `recipes/multiplayer_rl`): guess the number
 * (the env answers higher/lower), twenty questions (a second agent answers; offline a rule-based answerer, or a
 * model with answerer=model) and tic-tac-toe self-play (both seats in one group; test against a random player).
 */

import type { MessageCompleter } from '@cookbook/core';
import { TinkerMessageCompleter } from '@cookbook/renderers';
import {
  collectDemonstrations,
  GuessNumberDataset,
  type RLDataset,
  RuleBasedAnswerer,
  TINY_MODEL_RL_LR,
  TicTacToeDataset,
  TwentyQuestionsDataset,
} from '@cookbook/rl';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService } from './common.js';
import { GAME_MAX_STEPS, GAME_WARM_START, numBatches, rlRecipeSchema, rlRenderer, runRlRecipe } from './rl-common.js';
import { DEMONSTRATION_SEED_OFFSET, offlineRlNotes, warmStartFields } from './rl-warm-start.js';

/**
 * guess_number's warm-start length. Measured on the first pretrained stand-in (its layers did not read a chat's last
 * message; seeds 0/1/2, exact expected win rate of the warm-started policy): at 100 steps one seed of two read "Too
 * low" / "Too high" at all; at 200 steps seed 0 did (0.54, RL then 0.59 → 0.73) and seed 2 did not. The stand-in now
 * pretrains on chats too; with 200 steps RL's win rate rises in all three seeds (first third 0.61–0.66, last
 * 0.71–0.77).
 */
const GUESS_NUMBER_WARM_START_STEPS = 200;

/** A positive integer setting whose null default is resolved per game in `run` (and recorded resolved). */
const perGame = (description: string) => z.number().int().positive().nullable().default(null).describe(description);

export const multiplayerSchema = rlRecipeSchema.extend({
  logPath: rlRecipeSchema.shape.logPath.default('.cookbook-runs/multiplayer'),
  env: z.enum(['guess_number', 'twenty_questions', 'tic_tac_toe']).default('guess_number').describe('The game'),
  guessHigh: z
    .number()
    .int()
    .positive()
    .default(3)
    .describe('guess_number: secrets are in [0, guess_high] (offline default: a range the tiny model can climb)'),
  maxTurns: perGame(
    'guess_number guesses / twenty_questions questions; null = 2 for guess_number, 4 for twenty_questions',
  ),
  demonstrationEpsilon: z
    .number()
    .min(0)
    .max(1)
    .default(0.5)
    .describe(
      'guess_number warm start: chance that the demonstration player ignores the answers on a guess after its first ' +
        'and picks uniformly from the whole range (0 = pure bisection, which the warm start may imitate to the ceiling)',
    ),
  answerer: z
    .enum(['rule_based', 'model'])
    .default('rule_based')
    .describe('twenty_questions: the scripted answerer, or answerer_model through the service'),
  answererModel: z.string().nullable().default(null).describe('twenty_questions answerer model; null = model_name'),
  opponent: z
    .enum(['random', 'self'])
    .default('random')
    .describe(
      'tic_tac_toe: train X against a seeded random O (its win rate env/all/win is the headline) or self-play ' +
        '(both seats trained; the test set then plays X against a random O every eval_every steps)',
    ),
  observation: z
    .enum(['board', 'conversation'])
    .default('board')
    .describe(
      'tic_tac_toe: what a player sees each turn — board = a fresh prompt with the rules, the last move and the ' +
        'current board (short, Markov); conversation = one growing conversation of every turn',
    ),
  groupsPerBatch: perGame(
    'Groups per training step; null = 4 for guess_number (with guess_high 3 every step then plays every secret ' +
      'once: secrets are drawn balanced), 2 for the other games',
  ),
  maxSteps: rlRecipeSchema.shape.maxSteps.default(GAME_MAX_STEPS),
  // RL continues the warm start's Adam moments: a fresh Adam's first step (±lr on every weight) turned a warm-started
  // tic-tac-toe player into one that only makes illegal moves (entropy 0.54 → 0.00 in one step at lr 3e-3).
  loadCheckpointOptimizer: rlRecipeSchema.shape.loadCheckpointOptimizer.default(true),
  // A tic-tac-toe move is `[5]` (3 tokens) and the stop token.
  maxTokens: rlRecipeSchema.shape.maxTokens.default(4),
  ...warmStartFields(GAME_WARM_START),
  warmStartSteps: perGame(
    `Warm start: SFT steps; null = ${GUESS_NUMBER_WARM_START_STEPS} for guess_number (reading "Too low" / ` +
      `"Too high" is slower to learn than the opening), ${GAME_WARM_START.steps} otherwise`,
  ),
});

export const multiplayer = defineRecipe({
  name: 'multiplayer',
  description: 'Multi-turn / multi-agent RL: guess_number | twenty_questions | tic_tac_toe (offline defaults)',
  schema: multiplayerSchema,
  notes: offlineRlNotes(
    'multiplayer',
    'model_name=Qwen/Qwen3-8B env=guess_number guess_high=1024 max_turns=10 max_tokens=64 max_steps=100 learning_rate=3e-5',
  ),
  async run(config, io) {
    const renderer = rlRenderer(config);
    let answerer: MessageCompleter = new RuleBasedAnswerer();
    let answererService: { close(): Promise<void> } | undefined;
    try {
      if (config.env === 'twenty_questions' && config.answerer === 'model') {
        const service = await connectService(config.baseUrl);
        answererService = service;
        const sampler = await service.createSamplingClient({ baseModel: config.answererModel ?? config.modelName });
        answerer = new TinkerMessageCompleter({ samplingClient: sampler, renderer, maxTokens: 5, temperature: 0 });
      }
      const n = numBatches(config);
      const { groupSize } = config;
      const groupsPerBatch = config.groupsPerBatch ?? (config.env === 'guess_number' ? 4 : 2);
      const maxTurns = config.maxTurns ?? (config.env === 'guess_number' ? 2 : 4);
      const trainSet = (seed: number, batches: number): RLDataset => {
        if (config.env === 'guess_number') {
          const opts = { low: 0, high: config.guessHigh, maxTurns, demonstrationEpsilon: config.demonstrationEpsilon };
          return new GuessNumberDataset(renderer, groupsPerBatch, groupSize, batches, seed, opts);
        }
        if (config.env === 'twenty_questions') {
          const opts = { maxQuestions: maxTurns };
          return new TwentyQuestionsDataset(renderer, answerer, groupsPerBatch, groupSize, batches, seed, opts);
        }
        // Against random: group_size games per group. Self-play: group_size / 2 games, both seats trained.
        if (config.opponent === 'random') {
          return new TicTacToeDataset(renderer, groupsPerBatch, groupSize, batches, 'random', seed, config.observation);
        }
        const games = Math.max(1, Math.floor(groupSize / 2));
        return new TicTacToeDataset(renderer, groupsPerBatch, games, batches, 'self', seed, config.observation);
      };
      const datasetBuilder = async () => {
        const train = trainSet(config.seed, n);
        if (config.env !== 'tic_tac_toe' || config.opponent === 'random') return { train };
        // The test set plays X against a random O: its win rate is the headline of self-play.
        return {
          train,
          test: new TicTacToeDataset(renderer, 1, groupSize, 1, 'random', config.seed + 1, config.observation),
        };
      };
      const demoSet = () => trainSet(config.seed + DEMONSTRATION_SEED_OFFSET, 1_000);
      // The run's config.json records the resolved game settings, not null (the library's default for local/* models).
      const learningRate = config.learningRate ?? (config.modelName.startsWith('local/') ? TINY_MODEL_RL_LR : null);
      const warmStartSteps =
        config.warmStartSteps ??
        (config.env === 'guess_number' ? GUESS_NUMBER_WARM_START_STEPS : GAME_WARM_START.steps);
      const resolved = { ...config, groupsPerBatch, maxTurns, learningRate, warmStartSteps };
      await runRlRecipe(multiplayerSchema, resolved, datasetBuilder, io, {
        warmStartName: `multiplayer-${config.env}`,
        demonstrations:
          config.env === 'twenty_questions'
            ? undefined
            : () => collectDemonstrations(demoSet(), config.warmStartExamples),
        headline:
          config.env !== 'tic_tac_toe'
            ? 'env/all/reward/total'
            : config.opponent === 'random'
              ? 'env/all/win'
              : 'test/env/all/win',
      });
    } finally {
      await answererService?.close();
    }
  },
});
