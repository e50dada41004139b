/**
 * `cookbook dpo`: Direct Preference Optimization on labeled comparisons (upstream `recipes/preference/dpo/train.py`).
 * Offline by default: the built-in `local/qwen3-tiny` (a tiny stand-in, 64 wide × 2 layers) on the shipped
 * format comparisons (the preferred reply follows "Answer: <value>. Done.", the other breaks it), with held-out pair accuracy
 * in metrics.jsonl. Hosted: dataset=hhh|helpsteer3|ultrafeedback with the library's defaults (β 0.1, lr 1e-5).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, configToKeyStyle } from '@cookbook/core';
import { REPORT_FILE, readMetrics } from '@cookbook/logging';
import {
  type ComparisonDatasetBuilder,
  DpoTrainConfigSchema,
  FORMAT_COMPARISONS_TEST,
  FORMAT_COMPARISONS_TRAIN,
  HUB_COMPARISONS,
  type HubComparisonName,
  loadHubComparisons,
  readComparisonFile,
  trainDpo,
} from '@cookbook/preference';
import { planRun } from '@cookbook/training';
import { z } from 'zod';
import { defineRecipe, type RecipeIO } from '../recipe.js';
import { connectService } from './common.js';

const lib = DpoTrainConfigSchema.shape;

/** The comparison data set fields shared by the preference recipes. */
export const comparisonDatasetShape = {
  dataset: z
    .string()
    .default('format')
    .describe(
      `format (shipped: reply in the requested "Answer: <value>. Done." format), ${Object.keys(HUB_COMPARISONS).join(' | ')} (Hugging Face Hub, network), or a comparison .jsonl file`,
    ),
  testPath: z
    .string()
    .nullable()
    .default(null)
    .describe('Held-out comparison .jsonl when dataset is a file; null = none (format: the shipped held-out file)'),
  maxTrainRows: z.number().int().positive().default(10_000).describe('Hub data sets: training rows read'),
  testSize: z.number().int().nonnegative().default(1024).describe('Hub data sets: held-out comparisons'),
};

/** The comparisons named by `dataset` (checked when the run prepares, before anything is written). */
export function comparisonsFromArg(
  config: { dataset: string; testPath: string | null; maxTrainRows: number; testSize: number },
  io: RecipeIO,
): ComparisonDatasetBuilder {
  const { dataset } = config;
  if (dataset === 'format') {
    return () => ({
      train: readComparisonFile(FORMAT_COMPARISONS_TRAIN),
      test: readComparisonFile(FORMAT_COMPARISONS_TEST),
    });
  }
  if (dataset in HUB_COMPARISONS) {
    return () =>
      loadHubComparisons(dataset as HubComparisonName, {
        maxTrainRows: config.maxTrainRows,
        testSize: config.testSize,
        log: io.err,
      });
  }
  const path = resolve(dataset);
  if (!existsSync(path)) {
    throw new ConfigError(
      `dataset=${dataset}: not a known data set (format, ${Object.keys(HUB_COMPARISONS).join(', ')}) and no such file ${path}`,
      { key: 'dataset' },
    );
  }
  return () => ({
    train: readComparisonFile(path),
    ...(config.testPath === null ? {} : { test: readComparisonFile(resolve(config.testPath)) }),
  });
}

export const dpoSchema = DpoTrainConfigSchema.omit({ recipeName: true }).extend({
  logPath: lib.logPath.default('.cookbook-runs/dpo'),
  ...comparisonDatasetShape,
  // Offline defaults for the tiny stand-in: its logprobs start far from any preference, so it needs a large
  // step (1e-5 moves it by nothing measurable in minutes), a high β so the implicit reward is not flattened, and a
  // small rank. Hosted runs set learning_rate=1e-5 dpo_beta=0.1 lora_rank=32 batch_size=256 max_steps=null.
  learningRate: lib.learningRate.default(1e-2),
  dpoBeta: lib.dpoBeta.default(1),
  loraRank: lib.loraRank.default(8),
  batchSize: lib.batchSize.default(8),
  maxLength: lib.maxLength.default(128),
  maxSteps: lib.maxSteps.default(8),
  evalEvery: lib.evalEvery.default(8),
  saveEvery: lib.saveEvery.default(0),
});

export const dpo = defineRecipe({
  name: 'dpo',
  description:
    'DPO on comparisons (default: local/qwen3-tiny on the shipped format comparisons, offline; held-out test/pair_accuracy). ' +
    'Hosted: TINKER_API_KEY=… cookbook dpo model_name=Qwen/Qwen3-8B dataset=hhh learning_rate=1e-5 dpo_beta=0.1 lora_rank=32 batch_size=256 max_steps=null',
  schema: dpoSchema,
  async run(config, io) {
    const dataset = comparisonsFromArg(config, io);
    const service = await connectService(config.baseUrl);
    try {
      // The plan comes from the command line's parse (dpoSchema extends the DPO fields): no second parse.
      const plan = planRun(
        DpoTrainConfigSchema,
        { ...config, recipeName: 'dpo' },
        { loop: 'supervised', hparams: configToKeyStyle(dpoSchema, config, { keyStyle: 'snake_case' }) },
      );
      const result = await trainDpo(plan, {
        dataset,
        serviceClient: service,
        console: false,
        log: io.err,
        onStepLogged: (step, m) =>
          io.out(
            `step ${String(step).padStart(4)}  dpo_loss ${m.dpo_loss?.toFixed(4)}  accuracy ${m.accuracy?.toFixed(2)}` +
              `  margin ${m.margin?.toFixed(3)}` +
              `${m['test/pair_accuracy'] === undefined ? '' : `  test/pair_accuracy ${m['test/pair_accuracy'].toFixed(3)}`}` +
              `  ${(m['time/total'] ?? 0).toFixed(2)}s`,
          ),
      });
      if (result.status !== 'completed') return;
      const { rows } = await readMetrics(join(config.logPath, 'metrics.jsonl'));
      const acc = rows.map((r) => r['test/pair_accuracy']).filter((v): v is number => typeof v === 'number');
      if (acc.length > 0) io.out(`test/pair_accuracy ${acc[0]?.toFixed(3)} → ${acc.at(-1)?.toFixed(3)}`);
      io.out(`report: ${join(config.logPath, REPORT_FILE)}`);
    } finally {
      await service.close();
    }
  },
});
