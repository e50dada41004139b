/**
 * `cookbook rubric`: RL on rubric scores from a judge model (upstream `recipes/rubric`). Each datapoint is a
 * conversation plus rubric items (JSONL, see `@cookbook/rl`'s rubric data); the policy replies, the judge grades the
 * reply once per item, and the reward is the mean item score + 0.1 · (stopped on a stop sequence − 1).
 *
 * Data: upstream's generated addition set (seed 42, the same lines as upstream's generator), a JSONL file of your
 * own (`train_jsonl_path`), or Prometheus' Feedback-Collection from the Hub (`dataset=prometheus`, network; 1–5
 * scores). The judge is any sampling client: a base model (`judge_model`), a checkpoint (`judge_model_path`), on
 * this service or another Tinker-compatible one (`judge_base_url`, e.g. `cookbook serve`). Offline the stand-in
 * `local/qwen3-tiny` is both policy and judge: the run shows the mechanics end to end, but its scores are noise.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataError } from '@cookbook/core';
import { fetchHubRows } from '@cookbook/eval';
import { resolveModelSetup, TinkerMessageCompleter } from '@cookbook/renderers';
import {
  generateRubricDataset,
  PROMETHEUS_DATASET,
  prometheusDatapoint,
  type RubricDatapoint,
  RubricDataset,
  type RubricEnvOptions,
  readRubricJsonl,
  rubricDatapointToJson,
  rubricItemWhere,
} from '@cookbook/rl';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import { z } from 'zod';
import { defineRecipe, type RecipeIO } from '../recipe.js';
import { connectService, rendererNameField } from './common.js';
import { numBatches, rlRecipeSchema, rlRenderer, runRlRecipe } from './rl-common.js';

const lib = rlRecipeSchema.shape;

export const rubricSchema = rlRecipeSchema.extend({
  logPath: lib.logPath.default('.cookbook-runs/rubric'),
  dataset: z
    .enum(['addition', 'prometheus'])
    .default('addition')
    .describe(
      "Data when train_jsonl_path is null: 'addition' (upstream's generated sums, seed 42) or 'prometheus' " +
        '(prometheus-eval/Feedback-Collection from the Hugging Face Hub: network)',
    ),
  trainJsonlPath: z
    .string()
    .nullable()
    .default(null)
    .describe('JSONL of {convo, rubric_items: [{rubric_str, extraction_regex?, grader_output_format_instruction?}]}'),
  testJsonlPath: z
    .string()
    .nullable()
    .default(null)
    .describe('Test JSONL (same format); evaluated every eval_every steps'),
  numTrain: z
    .number()
    .int()
    .positive()
    .default(10_000)
    .describe('addition: generated training datapoints (upstream: 10000)'),
  numTest: z.number().int().nonnegative().default(64).describe('addition: generated test datapoints (upstream: 1000)'),
  prometheusRows: z.number().int().positive().max(100_000).default(1000).describe('prometheus: rows read from the Hub'),
  testGroupSize: z.number().int().positive().default(1).describe('Rollouts per test datapoint'),
  judgeModel: z
    .string()
    .nullable()
    .default(null)
    .describe('Judge base model; null = model_name (hosted upstream: Qwen/Qwen3.6-35B-A3B)'),
  judgeModelPath: z
    .string()
    .nullable()
    .default(null)
    .describe('Judge sampler checkpoint (tinker://…) instead of a base model'),
  judgeBaseUrl: z
    .string()
    .nullable()
    .default(null)
    .describe("The judge's Tinker-compatible service (e.g. `cookbook serve`); null = the policy's service"),
  judgeRendererName: rendererNameField.describe(
    "The judge's chat format; null = the judge model's recommended renderer",
  ),
  judgeMaxTokens: z
    .number()
    .int()
    .positive()
    .default(24)
    .describe('Tokens the judge may write (upstream: 2048; small offline, where the judge is the stand-in)'),
  judgeTemperature: z.number().nonnegative().default(1).describe("The judge's sampling temperature"),
  formatCoef: z
    .number()
    .nonnegative()
    .default(0.1)
    .describe('Reward lost by a reply that does not end on a stop sequence'),
  maxTokens: lib.maxTokens.default(16),
  maxSteps: lib.maxSteps.default(8),
  groupSize: lib.groupSize.default(4),
  groupsPerBatch: lib.groupsPerBatch.default(4),
});

/** The parsed rubric config. */
export type RubricRecipeConfig = z.infer<typeof rubricSchema>;

/** How many judge responses without a score are printed (the rest are only counted in `rubric_no_score`). */
const NO_SCORE_LINES = 5;

function writeJsonl(path: string, data: readonly RubricDatapoint[]): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, data.map((d) => `${rubricDatapointToJson(d)}\n`).join(''));
  renameSync(tmp, path);
}

/** The train and test datapoints the config names. */
export async function rubricData(
  config: RubricRecipeConfig,
): Promise<{ train: RubricDatapoint[]; test: RubricDatapoint[]; generated: boolean }> {
  if (config.trainJsonlPath !== null) {
    return {
      train: readRubricJsonl(config.trainJsonlPath),
      test: config.testJsonlPath === null ? [] : readRubricJsonl(config.testJsonlPath),
      generated: false,
    };
  }
  const test = config.testJsonlPath === null ? undefined : readRubricJsonl(config.testJsonlPath);
  if (config.dataset === 'prometheus') {
    const rows = await fetchHubRows({ dataset: PROMETHEUS_DATASET, split: 'train', limit: config.prometheusRows });
    const train = rows.map((r, i) => ({
      ...prometheusDatapoint(r, `${PROMETHEUS_DATASET} row ${i}`),
      source: { file: PROMETHEUS_DATASET, line: i + 1 },
    }));
    if (train.length === 0) throw new DataError(`${PROMETHEUS_DATASET}: no rows`);
    return { train, test: test ?? [], generated: false };
  }
  const gen = generateRubricDataset({ numTrain: config.numTrain, numTest: config.numTest, seed: 42 });
  const name = (split: string) => `generated addition ${split} (seed 42)`;
  return {
    train: gen.train.map((d, i) => ({ ...d, source: { file: name('train'), line: i + 1 } })),
    test: test ?? gen.test.map((d, i) => ({ ...d, source: { file: name('test'), line: i + 1 } })),
    generated: true,
  };
}

/** The judge's sampling client: a checkpoint or a base model, on the policy's service or `judge_base_url`. */
async function judgeSampler(
  config: RubricRecipeConfig,
  own: (c: { close(): Promise<void> }) => void,
): Promise<{ sampler: SamplingClientLike; model: string }> {
  const service = connectService(config.judgeBaseUrl ?? config.baseUrl);
  own(service);
  const model = config.judgeModel ?? config.modelName;
  const sampler =
    config.judgeModelPath === null
      ? await service.createSamplingClient({ baseModel: model })
      : await service.createSamplingClient({ modelPath: config.judgeModelPath });
  return { sampler, model };
}

function noScoreReporter(io: RecipeIO): RubricEnvOptions['onNoScore'] {
  let n = 0;
  return (e) => {
    n++;
    if (n <= NO_SCORE_LINES) {
      const head = e.response.length > 80 ? `${e.response.slice(0, 80)}…` : e.response;
      io.err(
        `rubric: the judge gave no score for ${rubricItemWhere(e.datapoint, e.itemIndex)} (counted 0): ${JSON.stringify(head)}`,
      );
      if (n === NO_SCORE_LINES)
        io.err('rubric: further judge replies without a score are counted in rubric_no_score only');
    }
  };
}

export const rubric = defineRecipe({
  name: 'rubric',
  description:
    'RL on rubric scores from a judge model (default: upstream’s addition data, local/qwen3-tiny as policy and judge, offline)',
  schema: rubricSchema,
  notes: [
    'Offline (no TINKER_API_KEY / TINKER_BASE_URL): local/qwen3-tiny, a tiny stand-in, is the policy and the judge.',
    'The run shows the mechanics (judge prompts, score parsing, rewards, training) but the judge cannot grade at this',
    "size: its scores are noise, mostly 'no score' (counted 0, see env/all/rubric_no_score).",
    'Hosted, upstream’s settings: TINKER_API_KEY=… cookbook rubric model_name=Qwen/Qwen3.5-9B lora_rank=32',
    '  judge_model=Qwen/Qwen3.6-35B-A3B judge_max_tokens=2048 group_size=4 groups_per_batch=100 learning_rate=1e-5',
    '  max_tokens=32 eval_every=20 save_every=20 num_test=1000 max_steps=100',
    'Prometheus: add dataset=prometheus (reads prometheus-eval/Feedback-Collection from the Hub; scores 1–5).',
    'Your data: train_jsonl_path=… (one {convo, rubric_items} per line); a generated run writes its data to',
    '<log_path>/data/ in that format.',
  ].join('\n'),
  async run(config, io) {
    const renderer = rlRenderer(config);
    const data = await rubricData(config);
    const owned: { close(): Promise<void> }[] = [];
    try {
      const judge = await judgeSampler(config, (c) => owned.push(c));
      const judgeRenderer = resolveModelSetup({
        modelName: judge.model,
        rendererName: config.judgeRendererName,
      }).renderer;
      const options: RubricEnvOptions = {
        renderer,
        judge: new TinkerMessageCompleter({
          samplingClient: judge.sampler,
          renderer: judgeRenderer,
          maxTokens: config.judgeMaxTokens,
          temperature: config.judgeTemperature,
        }),
        formatCoef: config.formatCoef,
        onNoScore: noScoreReporter(io),
      };
      io.err(
        `rubric: ${data.train.length} training and ${data.test.length} test datapoints; judge ${config.judgeModelPath ?? judge.model}`,
      );
      const datasetBuilder = async () => {
        const train = new RubricDataset(
          data.train,
          config.groupsPerBatch,
          config.groupSize,
          numBatches(config),
          options,
        );
        if (data.test.length === 0) return { train };
        return { train, test: new RubricDataset(data.test, data.test.length, config.testGroupSize, 1, options) };
      };
      const noSharedWarmStart = {
        warmStart: 'off',
        warmStartSteps: 0,
        warmStartExamples: 1,
        warmStartBatchSize: 1,
        warmStartLearningRate: 1,
      } as const;
      await runRlRecipe(rubricSchema, { ...config, ...noSharedWarmStart }, datasetBuilder, io, {
        warmStartName: 'rubric',
        demonstrations: undefined,
        headline: 'env/all/rubric_score',
      });
      if (data.generated) {
        const dir = join(config.logPath, 'data');
        mkdirSync(dir, { recursive: true });
        writeJsonl(join(dir, 'train.jsonl'), data.train);
        if (data.test.length > 0) writeJsonl(join(dir, 'test.jsonl'), data.test);
      }
    } finally {
      for (const c of owned) await c.close();
    }
  },
});
