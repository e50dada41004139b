/**
 * `cookbook multiplayer`: multi-turn and multi-agent RL (upstream `recipes/multiplayer_rl`): guess the number
 * (the env answers higher/lower), twenty questions (a second agent answers; offline a rule-based answerer, or a
 * model with answerer=model) and tic-tac-toe self-play (both seats in one group; test against a random player).
 */

import type { MessageCompleter } from '@cookbook/core';
import { TinkerMessageCompleter } from '@cookbook/renderers';
import { GuessNumberDataset, RuleBasedAnswerer, TicTacToeDataset, TwentyQuestionsDataset } from '@cookbook/rl';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService } from './common.js';
import { rlCommonFields, rlRenderer, runRlRecipe } from './rl-common.js';

export const multiplayerSchema = z.object({
  log_path: z.string().default('.cookbook-runs/multiplayer').describe('Run folder: metrics, checkpoints, transcripts'),
  env: z.enum(['guess_number', 'twenty_questions', 'tic_tac_toe']).default('guess_number').describe('The game'),
  guess_high: z.number().int().positive().default(16).describe('guess_number: secrets are in [0, guess_high]'),
  max_turns: z.number().int().positive().default(4).describe('guess_number guesses / twenty_questions questions'),
  answerer: z
    .enum(['rule_based', 'model'])
    .default('rule_based')
    .describe('twenty_questions: the scripted answerer, or answerer_model through the service'),
  answerer_model: z.string().nullable().default(null).describe('twenty_questions answerer model; null = model_name'),
  ...rlCommonFields,
});

export const multiplayer = defineRecipe({
  name: 'multiplayer',
  description: 'Multi-turn / multi-agent RL: guess_number | twenty_questions | tic_tac_toe (offline defaults)',
  schema: multiplayerSchema,
  async run(config, io) {
    const renderer = rlRenderer(config);
    let answerer: MessageCompleter = new RuleBasedAnswerer();
    if (config.env === 'twenty_questions' && config.answerer === 'model') {
      const service = await connectService(config.base_url);
      const sampler = await service.createSamplingClient({ baseModel: config.answerer_model ?? config.model_name });
      answerer = new TinkerMessageCompleter({ samplingClient: sampler, renderer, maxTokens: 5, temperature: 0 });
    }
    const n = config.max_steps;
    const datasetBuilder = async () => {
      if (config.env === 'guess_number') {
        const opts = { low: 0, high: config.guess_high, maxTurns: config.max_turns };
        return {
          train: new GuessNumberDataset(renderer, config.groups_per_batch, config.group_size, n, config.seed, opts),
        };
      }
      if (config.env === 'twenty_questions') {
        return {
          train: new TwentyQuestionsDataset(
            renderer,
            answerer,
            config.groups_per_batch,
            config.group_size,
            n,
            config.seed,
            {
              maxQuestions: config.max_turns,
            },
          ),
        };
      }
      // Self-play: group_size games per group, both seats trained; the test set plays X against a random O.
      return {
        train: new TicTacToeDataset(
          renderer,
          config.groups_per_batch,
          Math.max(1, Math.floor(config.group_size / 2)),
          n,
          'self',
          config.seed,
        ),
        test: new TicTacToeDataset(renderer, 1, config.group_size, 1, 'random', config.seed + 1),
      };
    };
    await runRlRecipe(config, datasetBuilder, io);
  },
});
