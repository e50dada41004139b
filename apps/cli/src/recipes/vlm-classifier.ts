/**
 * `cookbook vlm_classifier`: image classification as supervised fine-tuning of a vision-language model (upstream
 * `recipes/vlm_classifier`): each example is an image and the question "What is the name of the subject in this
 * photo?", answered `The subject in this photo is: <class>`; accuracy on a held-out split is sampled greedily every
 * `eval_every` steps. Data: `shapes` (coloured shapes generated at run time, seeded) or `hf:<org>/<name>` (a Hub
 * image-classification dataset, online).
 *
 * Training needs a vision model on the hosted Tinker service (the embedded service is text-only). Without a server
 * configured (no TINKER_BASE_URL / base_url / TINKER_API_KEY) the recipe still loads the data and renders and checks
 * the first batch (what runs offline: images, rendering, image-token counts, batching), then stops with a message
 * saying that training needs a hosted vision model.
 */
import { ConfigError, type Datum, findModel } from '@cookbook/core';
import { classificationMessages, ImageClassificationEvaluator, type LabelledImage } from '@cookbook/eval';
import { loadModelSetup, VISION_RENDERER_NAMES } from '@cookbook/renderers';
import {
  conversationToDatum,
  SupervisedDatasetFromRows,
  SupervisedTrainConfigSchema,
  trainSupervised,
} from '@cookbook/supervised';
import { planRun } from '@cookbook/training';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService } from './common.js';
import { slRecipeSchema } from './sl-common.js';
import { generateShapes, loadHubImageDataset } from './vlm-classifier-data.js';

const lib = slRecipeSchema.shape;

export const vlmClassifierSchema = slRecipeSchema.extend({
  logPath: lib.logPath.default('.cookbook-runs/vlm_classifier'),
  modelName: lib.modelName.default('Qwen/Qwen3-VL-30B-A3B-Instruct'),
  learningRate: lib.learningRate.default(5e-4),
  lrSchedule: lib.lrSchedule.default('cosine'),
  numEpochs: lib.numEpochs.default(3),
  batchSize: lib.batchSize.default(32),
  maxLength: lib.maxLength.default(8192),
  trainOnWhat: lib.trainOnWhat.default('last_assistant_message'),
  evalEvery: lib.evalEvery.default(20),
  dataset: z
    .string()
    .default('shapes')
    .describe('shapes (coloured shapes generated at run time) or hf:<org>/<name> (e.g. hf:dpdl-benchmark/caltech101)'),
  trainSize: z.number().int().positive().default(288).describe('Training examples (shapes: generated; hf: rows read)'),
  testSize: z.number().int().nonnegative().default(36).describe('Held-out examples for the accuracy evaluator'),
  dataSeed: z.number().int().default(0).describe('Seed of the generated shapes'),
  imageSize: z.number().int().default(64).describe('Side of the generated shape pictures, in pixels'),
  maxImageSize: z.number().int().positive().default(480).describe('Hub images are downscaled to at most this side'),
  imageColumn: z.string().default('image').describe('Hub dataset: the image column'),
  labelColumn: z.string().default('label').describe('Hub dataset: the class-label column'),
  evalMaxTokens: z.number().int().positive().default(32).describe('Tokens sampled per evaluation answer'),
});

export type VlmClassifierConfig = z.infer<typeof vlmClassifierSchema>;

/** Whether a Tinker server is configured (else the client would start the text-only embedded service). */
function serverConfigured(baseUrl: string | null): boolean {
  return Boolean(baseUrl || process.env.TINKER_BASE_URL || process.env.TINKER_API_KEY);
}

async function loadExamples(config: VlmClassifierConfig): Promise<{ train: LabelledImage[]; test: LabelledImage[] }> {
  if (config.dataset === 'shapes') {
    return {
      train: generateShapes(config.trainSize, config.dataSeed, config.imageSize),
      test: generateShapes(config.testSize, config.dataSeed + 1_000_003, config.imageSize),
    };
  }
  if (!config.dataset.startsWith('hf:')) {
    throw new ConfigError(`dataset must be "shapes" or hf:<org>/<name>, got "${config.dataset}"`, { key: 'dataset' });
  }
  const name = config.dataset.slice(3);
  const common = {
    dataset: name,
    imageColumn: config.imageColumn,
    labelColumn: config.labelColumn,
    maxSide: config.maxImageSize,
  };
  const train = await loadHubImageDataset({ ...common, split: 'train', limit: config.trainSize });
  const test =
    config.testSize === 0 ? [] : await loadHubImageDataset({ ...common, split: 'test', limit: config.testSize });
  return { train, test };
}

/** Counts of a batch, for the log line and the offline message. */
function describeBatch(batch: readonly Datum[]): string {
  let images = 0;
  let tokens = 0;
  for (const d of batch) {
    for (const c of d.modelInput.chunks) if (c.type === 'image') images++;
    tokens += d.modelInput.length;
  }
  return `${batch.length} examples, ${images} images, ${tokens} input tokens`;
}

export const vlmClassifier = defineRecipe({
  name: 'vlm_classifier',
  description:
    'Image classification SFT on a vision model (hosted only; offline it builds and checks the first batch of the ' +
    'generated shapes set, then stops). Hosted: TINKER_API_KEY=… cookbook vlm_classifier ' +
    'model_name=Qwen/Qwen3.5-397B-A17B dataset=hf:dpdl-benchmark/caltech101 train_size=3000',
  schema: vlmClassifierSchema,
  async run(config, io) {
    const model = findModel(config.modelName);
    if (model !== undefined && !model.vision) {
      throw new ConfigError(
        `model_name ${config.modelName} does not take images; vlm_classifier needs a vision model (Qwen3-VL, ` +
          'Qwen3.5 / 3.6 / 3.8, Kimi K2.5 / K2.6)',
        { key: 'model_name' },
      );
    }
    const { rendererName, renderer } = await loadModelSetup(config);
    if (!VISION_RENDERER_NAMES.includes(rendererName)) {
      throw new ConfigError(
        `renderer ${rendererName} renders text only; vlm_classifier needs one of ${VISION_RENDERER_NAMES.join(', ')}`,
        { key: 'renderer_name' },
      );
    }
    const { train, test } = await loadExamples(config);
    const toDatum = (ex: LabelledImage): Datum =>
      conversationToDatum(classificationMessages(ex), renderer, config.maxLength, config.trainOnWhat);
    const trainSet = new SupervisedDatasetFromRows(train, config.batchSize, toDatum);
    if (trainSet.length === 0) {
      throw new ConfigError(`train_size ${train.length} is smaller than one batch (batch_size ${config.batchSize})`, {
        key: 'batch_size',
      });
    }
    const first = trainSet.getBatch(0);
    io.err(`vlm_classifier: first batch built for ${config.modelName} (${rendererName}): ${describeBatch(first)}`);
    if (!serverConfigured(config.baseUrl)) {
      throw new ConfigError(
        `vlm_classifier needs a hosted vision model: the first batch is built (${describeBatch(first)}), but the ` +
          'embedded service is text-only and cannot train on images. Set TINKER_API_KEY to train on the hosted ' +
          'Tinker service (or TINKER_BASE_URL / base_url for another Tinker server)',
        { key: 'base_url' },
      );
    }
    const service = connectService(config.baseUrl);
    try {
      // The plan comes from the command line's parse (the recipe schema extends the SFT fields): no second parse.
      const plan = planRun(
        SupervisedTrainConfigSchema,
        { ...config, rendererName, recipeName: 'vlm_classifier' },
        { loop: 'supervised' },
      );
      const result = await trainSupervised(plan, {
        dataset: { train: trainSet },
        evaluators:
          test.length === 0
            ? []
            : [new ImageClassificationEvaluator({ examples: test, renderer, maxTokens: config.evalMaxTokens })],
        serviceClient: service,
        console: false,
        log: io.err,
      });
      io.out(`vlm_classifier: ${result.status} after ${result.stepsRun} steps; logs in ${config.logPath}`);
    } finally {
      await service.close();
    }
  },
});
