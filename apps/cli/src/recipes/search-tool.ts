/**
 * `cookbook search_tool`: RL on a search agent for multi-hop question answering (upstream `recipes/search_tool`, which
 * trains Qwen3 on NQ + HotpotQA over a Wikipedia embedding store). Here the collection is a shipped, generated world of
 * invented entities (`data/search-tool/`), searched with a local BM25 `search(query, k)` tool; any JSONL collection
 * and question file can replace it. It is meant for hosted models: offline, the tiny stand-in shows the mechanics
 * (tool declaration, calls, results, limits, rewards, metrics) end to end, not learning.
 */

import { collectDemonstrations, SearchQaDataset } from '@cookbook/rl';
import { loadSearchCollection } from '@cookbook/tools';
import { RolloutLimitsSchema } from '@cookbook/training';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { numBatches, rlRecipeSchema, rlRenderer, runRlRecipe } from './rl-common.js';
import { DEMONSTRATION_SEED_OFFSET, warmStartFields } from './rl-warm-start.js';
import { loadQuestions, searchToolDataFiles } from './search-tool-data.js';

const limits = RolloutLimitsSchema.shape;
const warm = warmStartFields({ steps: 40, examples: 64, batchSize: 4, learningRate: 1e-2 });

export const searchToolSchema = rlRecipeSchema.extend({
  logPath: rlRecipeSchema.shape.logPath.default('.cookbook-runs/search_tool'),
  documentsPath: z
    .string()
    .nullable()
    .default(null)
    .describe('JSONL collection, one {"id", "title"?, "text"} per line; null = the shipped generated collection'),
  questionsPath: z
    .string()
    .nullable()
    .default(null)
    .describe('JSONL questions, one {"id", "question", "answer"} per line; null = the shipped generated questions'),
  searchK: z.number().int().min(1).max(10).default(3).describe('Documents per search when the call gives no k'),
  maxTurns: limits.maxTurns.default(6),
  maxTotalTokens: limits.maxTotalTokens.default(4096),
  maxEpisodeSeconds: limits.maxEpisodeSeconds,
  maxToolCallSeconds: limits.maxToolCallSeconds.default(10),
  maxTokens: rlRecipeSchema.shape.maxTokens.default(64),
  groupsPerBatch: rlRecipeSchema.shape.groupsPerBatch.default(2),
  groupSize: rlRecipeSchema.shape.groupSize.default(4),
  ...warm,
  // Off by default: the offline run checks the mechanics, and the hosted models this recipe is for need no warm start.
  warmStart: warm.warmStart
    .unwrap()
    .default('off')
    .describe(warm.warmStart.description ?? 'SFT warm start before RL'),
});

export const searchTool = defineRecipe({
  name: 'search_tool',
  description: 'Search agent RL: multi-hop QA over a document collection with a BM25 search tool (for hosted models)',
  schema: searchToolSchema,
  notes: [
    'Meant for hosted models (TINKER_API_KEY set), e.g. cookbook search_tool model_name=Qwen/Qwen3-4B-Instruct-2507',
    'max_steps=100 groups_per_batch=64 group_size=8 max_tokens=512. Offline, local/qwen3-tiny runs the same loop as a',
    'mechanics check (cookbook search_tool max_steps=2); it does not learn the task. The shipped collection is a',
    'generated world of invented entities (data/search-tool/); documents_path / questions_path replace it.',
  ].join('\n'),
  async run(config, io) {
    const renderer = rlRenderer(config);
    const files = searchToolDataFiles();
    const documents = loadSearchCollection(config.documentsPath ?? files.documents);
    const questions = loadQuestions(config.questionsPath ?? files.questions);
    const options = {
      defaultK: config.searchK,
      limits: {
        maxTurns: config.maxTurns,
        maxTotalTokens: config.maxTotalTokens,
        maxEpisodeSeconds: config.maxEpisodeSeconds,
        maxToolCallSeconds: config.maxToolCallSeconds,
      },
    };
    const dataset = (seed: number, batches: number) =>
      new SearchQaDataset(
        renderer,
        documents,
        questions,
        config.groupsPerBatch,
        config.groupSize,
        batches,
        seed,
        options,
      );
    await runRlRecipe(searchToolSchema, config, async () => ({ train: dataset(config.seed, numBatches(config)) }), io, {
      warmStartName: 'search_tool',
      demonstrations: () =>
        collectDemonstrations(
          dataset(config.seed + DEMONSTRATION_SEED_OFFSET, Math.ceil(config.warmStartExamples / config.groupsPerBatch)),
          config.warmStartExamples,
        ),
    });
  },
});
