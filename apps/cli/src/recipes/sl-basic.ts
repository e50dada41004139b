/**
 * `cookbook sl_basic`: supervised fine-tuning on a conversation file (upstream `recipes/sl_basic.py`). Offline by
 * default: the built-in `local/qwen3-tiny` on the embedded service, the shipped example conversations, 40 steps of
 * batch 4 (about a minute on 2 cores). Writes config.json, metrics.jsonl, checkpoints.jsonl, transcripts/ and
 * report.html under log_path.
 */
import { join } from 'node:path';
import { configToKeyStyle, type Message } from '@cookbook/core';
import { REPORT_FILE, readMetrics } from '@cookbook/logging';
import { loadModelSetup } from '@cookbook/renderers';
import { SampleTranscriptEvaluator, SupervisedTrainConfigSchema, trainSupervised } from '@cookbook/supervised';
import { planRun } from '@cookbook/training';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService } from './common.js';
import { datasetFromArg, slRecipeSchema } from './sl-common.js';

const lib = slRecipeSchema.shape;

export const slBasicSchema = slRecipeSchema.extend({
  logPath: lib.logPath.default('.cookbook-runs/sl_basic'),
  dataset: z
    .string()
    .default('example')
    .describe(
      'example (shipped conversations), a .jsonl/.parquet file of {"messages": [...]}, or hf:<org>/<name>[:<split>]',
    ),
  streaming: z.boolean().default(false).describe('Read a .jsonl file forward in one pass instead of loading it'),
  testSize: z.number().int().nonnegative().default(16).describe('Conversations held out for test/nll'),
  shuffleSeed: z.number().int().default(0).describe('Seed of the train/test split shuffle'),
  maxSteps: lib.maxSteps.default(40),
  infrequentEvalEvery: lib.infrequentEvalEvery.default(20),
  sampleMaxTokens: z.number().int().positive().default(24).describe('Tokens sampled per transcript answer'),
});

/** Questions whose answers the transcripts show as training goes on. */
const SAMPLE_PROMPTS: Message[][] = [
  [{ role: 'user', content: 'What is 12 + 7?' }],
  [{ role: 'user', content: 'What is the capital of Peru?' }],
  [{ role: 'user', content: 'How many minutes are in 3 hours?' }],
  [{ role: 'user', content: 'Define a planet.' }],
];

export const slBasic = defineRecipe({
  name: 'sl_basic',
  description:
    'Supervised fine-tuning on conversations (default: local/qwen3-tiny on the shipped examples, offline: 12 s measured on 2 idle cores, about 1 min on busy shared ones). ' +
    'Hosted: TINKER_API_KEY=… cookbook sl_basic model_name=Qwen/Qwen3-8B batch_size=128 dataset=hf:HuggingFaceH4/no_robots max_steps=null',
  schema: slBasicSchema,
  async run(config, io) {
    const { rendererName, renderer } = await loadModelSetup(config);
    const common = {
      modelNameForTokenizer: config.modelName,
      rendererName,
      maxLength: config.maxLength,
      batchSize: config.batchSize,
      trainOnWhat: config.trainOnWhat,
    };
    const dataset = datasetFromArg(config.dataset, common, {
      testSize: config.testSize,
      shuffleSeed: config.shuffleSeed,
      streaming: config.streaming,
    });
    const service = await connectService(config.baseUrl);
    try {
      // The plan comes from the command line's parse (slBasicSchema extends the SFT fields): no second parse.
      const plan = planRun(
        SupervisedTrainConfigSchema,
        { ...config, rendererName, recipeName: 'sl_basic' },
        {
          loop: 'supervised',
          hparams: configToKeyStyle(slBasicSchema, { ...config, rendererName }, { keyStyle: 'snake_case' }),
        },
      );
      const result = await trainSupervised(plan, {
        dataset,
        infrequentEvaluators: [
          new SampleTranscriptEvaluator({ prompts: SAMPLE_PROMPTS, renderer, maxTokens: config.sampleMaxTokens }),
        ],
        serviceClient: service,
        console: false,
        log: io.err,
        onStepLogged: (step, m) =>
          io.out(
            `step ${String(step).padStart(4)}  train_mean_nll ${m.train_mean_nll?.toFixed(4)}` +
              `${m['test/nll'] === undefined ? '' : `  test/nll ${m['test/nll'].toFixed(4)}`}` +
              `  lr ${m.learning_rate?.toExponential(2)}  ${(m['time/total'] ?? 0).toFixed(2)}s`,
          ),
      });
      if (result.status !== 'completed') return;
      const { rows } = await readMetrics(join(config.logPath, 'metrics.jsonl'));
      const series = (key: string) => rows.map((r) => r[key]).filter((v): v is number => typeof v === 'number');
      const nll = series('train_mean_nll');
      const test = series('test/nll');
      io.out(
        `train_mean_nll ${nll[0]?.toFixed(4)} → ${nll.at(-1)?.toFixed(4)}` +
          (test.length > 1 ? `; test/nll ${test[0]?.toFixed(4)} → ${test.at(-1)?.toFixed(4)}` : ''),
      );
      io.out(`report: ${join(config.logPath, REPORT_FILE)}`);
    } finally {
      await service.close();
    }
  },
});
