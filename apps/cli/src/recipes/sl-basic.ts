/**
 * `cookbook sl_basic`: supervised fine-tuning on a conversation file (upstream `recipes/sl_basic.py`). Offline by
 * default: the built-in `local/qwen3-tiny` on the embedded service, the shipped example conversations, 40 steps of
 * batch 4 (about a minute on 2 cores). Writes config.json, metrics.jsonl, checkpoints.jsonl, transcripts/ and
 * report.html under log_path.
 */
import { join } from 'node:path';
import type { Message } from '@cookbook/core';
import { REPORT_FILE, readMetrics } from '@cookbook/logging';
import { getRecommendedRendererName, getRenderer, getTokenizer } from '@cookbook/renderers';
import { SampleTranscriptEvaluator, trainSupervised } from '@cookbook/supervised';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService } from './common.js';
import { commonFields, datasetFromArg, resolveLearningRate } from './sl-common.js';

export const slBasicSchema = z.object({
  log_path: z
    .string()
    .default('.cookbook-runs/sl_basic')
    .describe('Run folder (relative to the current directory): metrics, checkpoints, transcripts, report.html'),
  dataset: z
    .string()
    .default('example')
    .describe(
      'example (shipped conversations), a .jsonl/.parquet file of {"messages": [...]}, or hf:<org>/<name>[:<split>]',
    ),
  streaming: z.boolean().default(false).describe('Read a .jsonl file forward in one pass instead of loading it'),
  test_size: z.number().int().nonnegative().default(16).describe('Conversations held out for test/nll'),
  shuffle_seed: z.number().int().default(0).describe('Seed of the train/test split shuffle'),
  batch_size: z.number().int().positive().default(4).describe('Conversations per step (hosted example: 128)'),
  num_epochs: z.number().int().positive().default(1).describe('Passes over the training set'),
  max_steps: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(40)
    .describe('Stop after this many steps; null = all epochs'),
  save_every: z.number().int().nonnegative().default(20).describe('Steps between checkpoints (0 = final only)'),
  eval_every: z.number().int().nonnegative().default(10).describe('Steps between test/nll evaluations (0 = never)'),
  infrequent_eval_every: z
    .number()
    .int()
    .nonnegative()
    .default(20)
    .describe('Steps between sampled-answer transcripts (0 = never)'),
  sample_max_tokens: z.number().int().positive().default(24).describe('Tokens sampled per transcript answer'),
  submit_ahead: z
    .number()
    .int()
    .nonnegative()
    .default(1)
    .describe('Steps submitted before the previous one is awaited'),
  load_checkpoint_path: z
    .string()
    .nullable()
    .default(null)
    .describe('Start from these weights (tinker://…/weights/…) with a fresh optimizer'),
  ...commonFields,
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
    'Supervised fine-tuning on conversations (default: local/qwen3-tiny on the shipped examples, offline, ~1 min). ' +
    'Hosted: TINKER_API_KEY=… cookbook sl_basic model_name=Qwen/Qwen3-8B batch_size=128 dataset=hf:HuggingFaceH4/no_robots max_steps=null',
  schema: slBasicSchema,
  async run(config, io) {
    const learningRate = resolveLearningRate(config.model_name, config.learning_rate);
    const rendererName = config.renderer_name ?? getRecommendedRendererName(config.model_name);
    const renderer = getRenderer(rendererName, getTokenizer(config.model_name));
    const common = {
      modelNameForTokenizer: config.model_name,
      rendererName,
      maxLength: config.max_length,
      batchSize: config.batch_size,
      trainOnWhat: config.train_on_what,
    };
    const dataset = datasetFromArg(config.dataset, common, {
      testSize: config.test_size,
      shuffleSeed: config.shuffle_seed,
      streaming: config.streaming,
    });
    const service = await connectService(config.base_url);
    try {
      const result = await trainSupervised({
        logPath: config.log_path,
        modelName: config.model_name,
        dataset,
        rendererName,
        recipeName: 'sl_basic',
        loadCheckpointPath: config.load_checkpoint_path,
        learningRate,
        lrSchedule: config.lr_schedule,
        numEpochs: config.num_epochs,
        loraRank: config.lora_rank,
        saveEvery: config.save_every,
        evalEvery: config.eval_every,
        infrequentEvalEvery: config.infrequent_eval_every,
        infrequentEvaluators: [
          new SampleTranscriptEvaluator({ prompts: SAMPLE_PROMPTS, renderer, maxTokens: config.sample_max_tokens }),
        ],
        maxSteps: config.max_steps,
        submitAhead: config.submit_ahead,
        behaviorIfLogDirExists: config.behavior_if_log_dir_exists,
        wandbProject: config.wandb_project,
        wandbName: config.wandb_name,
        hparams: { ...config, learning_rate: learningRate, renderer_name: rendererName },
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
      if (!result.ran) return;
      const { rows } = await readMetrics(join(config.log_path, 'metrics.jsonl'));
      const series = (key: string) => rows.map((r) => r[key]).filter((v): v is number => typeof v === 'number');
      const nll = series('train_mean_nll');
      const test = series('test/nll');
      io.out(
        `train_mean_nll ${nll[0]?.toFixed(4)} → ${nll.at(-1)?.toFixed(4)}` +
          (test.length > 1 ? `; test/nll ${test[0]?.toFixed(4)} → ${test.at(-1)?.toFixed(4)}` : ''),
      );
      io.out(`report: ${join(config.log_path, REPORT_FILE)}`);
    } finally {
      await service.close();
    }
  },
});
