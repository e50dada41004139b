/**
 * `cookbook shorter`: toy RL from pairwise preferences (upstream `recipes/preference/shorter`): each prompt is
 * answered `group_size` times, the replies meet in a tournament judged by a "preference model" that prefers the
 * shorter reply, and each reply earns wins − losses. Offline, the tiny stand-in `local/qwen3-tiny` first warm-starts
 * (cached) on replies of mixed length to the shipped questions, so it has lengths to choose between; the run then
 * shortens its replies (`env/all/reply_chars` in metrics.jsonl). Group rewards sum to zero, so `reward/total` stays 0.
 */
import { join } from 'node:path';
import type { Message } from '@cookbook/core';
import { seededRandom } from '@cookbook/core';
import { readMetrics } from '@cookbook/logging';
import {
  chosenRejected,
  FORMAT_COMPARISONS_TRAIN,
  PairwisePreferenceDataset,
  preferShorter,
  readComparisonFile,
} from '@cookbook/preference';
import { warmStart } from '@cookbook/supervised';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService } from './common.js';
import { numBatches, rlRecipeSchema, rlRenderer, runRlRecipe } from './rl-common.js';

const lib = rlRecipeSchema.shape;

export const shorterSchema = rlRecipeSchema.extend({
  logPath: lib.logPath.default('.cookbook-runs/shorter'),
  tournament: z
    .enum(['all_pairs_both_ways', 'all_pairs_one_way'])
    .default('all_pairs_both_ways')
    .describe('Which pairs of a group are compared'),
  maxTokens: lib.maxTokens.default(24),
  maxSteps: lib.maxSteps.default(12),
  groupSize: lib.groupSize.default(4),
  groupsPerBatch: lib.groupsPerBatch.default(8),
  learningRate: lib.learningRate.default(3e-3),
  loraRank: lib.loraRank.default(8),
  warmStartSteps: z
    .number()
    .int()
    .nonnegative()
    .default(40)
    .describe('SFT steps on mixed-length replies before RL (cached); 0 = none (a hosted instruct model needs none)'),
});

/** Padding of the warm-start replies: 0 to 3 of these, so the replies' lengths differ. */
const FILLERS = [' Hope that helps.', ' Let me know if you need more.', ' That is my final answer.'];

/** The shipped questions with replies of mixed length (the preferred reply plus 0–3 filler sentences). */
function mixedLengthConversations(seed: number): { prompts: Message[][]; demos: Message[][] } {
  const random = seededRandom(seed);
  const prompts: Message[][] = [];
  const demos: Message[][] = [];
  for (const lc of readComparisonFile(FORMAT_COMPARISONS_TRAIN)) {
    const reply = chosenRejected(lc)?.chosen[0]?.content;
    if (typeof reply !== 'string') continue;
    prompts.push(lc.comparison.promptConversation);
    const n = Math.floor(random() * 4);
    const padded = reply + FILLERS.slice(0, n).join('');
    demos.push([...lc.comparison.promptConversation, { role: 'assistant', content: padded }]);
  }
  return { prompts, demos };
}

export const shorter = defineRecipe({
  name: 'shorter',
  description:
    'Toy RL from pairwise preferences: the judge prefers the shorter reply (default: local/qwen3-tiny, warm start then RL, offline). ' +
    'Hosted: TINKER_API_KEY=… cookbook shorter model_name=Qwen/Qwen3-8B warm_start_steps=0 group_size=16 groups_per_batch=32 learning_rate=3e-5 max_tokens=64',
  schema: shorterSchema,
  async run(config, io) {
    const renderer = rlRenderer(config);
    const { prompts, demos } = mixedLengthConversations(config.seed);
    let loadCheckpointPath = config.loadCheckpointPath;
    if (loadCheckpointPath === null && config.warmStartSteps > 0) {
      const service = await connectService(config.baseUrl);
      try {
        const ws = await warmStart({
          service,
          baseModel: config.modelName,
          loraRank: config.loraRank,
          demonstrations: { conversations: demos, renderer },
          sft: { steps: config.warmStartSteps, batchSize: 16, learningRate: 1e-2 },
          seed: config.seed,
          name: 'shorter',
          log: io.err,
        });
        io.err(
          `warm start ${ws.cached ? '(cached) ' : ''}loss ${ws.initialLoss.toFixed(3)} → ${ws.finalLoss.toFixed(3)}: ${ws.statePath}`,
        );
        loadCheckpointPath = ws.statePath;
      } finally {
        await service.close();
      }
    }
    const datasetBuilder = async () => ({
      train: new PairwisePreferenceDataset({
        prompts,
        renderer,
        preferenceModel: preferShorter,
        groupSize: config.groupSize,
        groupsPerBatch: config.groupsPerBatch,
        numBatches: numBatches(config),
        tournament: config.tournament,
        seed: config.seed,
        tag: 'shorter',
      }),
    });
    // This recipe's warm start (mixed-length replies) is done above; the shared RL warm start stays off.
    const noSharedWarmStart = {
      warmStart: 'off',
      warmStartExamples: 1,
      warmStartBatchSize: 1,
      warmStartLearningRate: 1,
    } as const;
    await runRlRecipe(shorterSchema, { ...config, ...noSharedWarmStart }, datasetBuilder, io, {
      warmStartName: 'shorter',
      demonstrations: undefined,
      extra: { loadCheckpointPath },
    });
    const { rows } = await readMetrics(join(config.logPath, 'metrics.jsonl')).catch(() => ({ rows: [] }));
    const chars = rows.map((r) => r['env/all/reply_chars']).filter((v): v is number => typeof v === 'number');
    if (chars.length > 1) {
      io.out(
        `reply length ${chars[0]?.toFixed(1)} → ${chars.at(-1)?.toFixed(1)} characters (mean per step; rewards sum to 0 in a group)`,
      );
    }
  },
});
