/**
 * `cookbook off_policy_distillation` (upstream `distillation/train_off_policy.py`): the student learns the teacher's
 * next-token distribution on fixed text. Every conversation is teacher-forced through the teacher, whose top-K
 * logprobs at each position become (N, K) soft targets trained with `cross_entropy`. `test/nll` is the student's NLL
 * on held-out conversations (teacher text); `test/teacher_nll` the teacher's own, logged once.
 *
 * Offline, with no teacher given, the teacher is `local/qwen3-tiny` fine-tuned on the same conversations (trained
 * once, cached); the student starts from the untrained `local/qwen3-tiny`. Both are tiny stand-ins of real models.
 */
import { configToKeyStyle } from '@cookbook/core';
import { OffPolicyDistillationConfigSchema, trainOffPolicyDistillation } from '@cookbook/distillation';
import { loadModelSetup } from '@cookbook/renderers';
import { planRun } from '@cookbook/training';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService } from './common.js';
import { distillationDataShape, readDistillationConversations, resolveTeacher } from './distillation-common.js';
import { datasetFromArg } from './sl-common.js';

const lib = OffPolicyDistillationConfigSchema.shape;

export const offPolicyDistillationSchema = OffPolicyDistillationConfigSchema.extend({
  logPath: lib.logPath.default('.cookbook-runs/off_policy_distillation'),
  ...distillationDataShape,
  batchSize: z.number().int().positive().default(8).describe('Conversations per step (hosted example: 64)'),
  maxLength: z.number().int().positive().default(512).describe('Tokens per conversation (cut from the end)'),
  testSize: z.number().int().nonnegative().default(16).describe('Conversations held out for test/nll'),
  numEpochs: lib.numEpochs.default(2),
  evalEvery: lib.evalEvery.default(6),
  saveEvery: lib.saveEvery.default(0),
  loraRank: lib.loraRank.default(16),
  learningRate: lib.learningRate.default(3e-3),
  // The tiny offline teacher spreads its mass thinly, so the offline K is the service maximum (upstream uses 20).
  nTeacherTargets: lib.nTeacherTargets.default(64),
});

export const offPolicyDistillation = defineRecipe({
  name: 'off_policy_distillation',
  description:
    "Off-policy distillation: train on a teacher's top-K next-token distribution over fixed text (default: a " +
    'teacher fine-tuned on the example conversations, offline)',
  schema: offPolicyDistillationSchema,
  async run(config, io) {
    const { rendererName, renderer } = await loadModelSetup(config);
    const conversations = readDistillationConversations(config.dataset);
    const service = await connectService(config.baseUrl);
    try {
      const teacher = await resolveTeacher(service, config, conversations, renderer, io);
      const resolved = { ...config, ...teacher, rendererName };
      // The plan comes from the command line's parse (the recipe schema extends the loop's fields): no second parse.
      const plan = planRun(OffPolicyDistillationConfigSchema, resolved, {
        loop: 'supervised',
        hparams: configToKeyStyle(offPolicyDistillationSchema, resolved, { keyStyle: 'snake_case' }),
      });
      await trainOffPolicyDistillation(plan, {
        dataset: datasetFromArg(
          config.dataset,
          {
            modelNameForTokenizer: config.modelName,
            rendererName,
            maxLength: config.maxLength,
            batchSize: config.batchSize,
          },
          { testSize: config.testSize, shuffleSeed: config.seed },
        ),
        serviceClient: service,
        console: false,
        log: io.err,
        onStep: (step, m) =>
          io.out(
            `step ${String(step).padStart(4)}` +
              (m['train/distill_loss'] === undefined ? '' : `  distill_loss ${m['train/distill_loss'].toFixed(4)}`) +
              (m['test/nll'] === undefined ? '' : `  test/nll ${m['test/nll'].toFixed(4)}`) +
              (m['test/teacher_nll'] === undefined ? '' : `  test/teacher_nll ${m['test/teacher_nll'].toFixed(4)}`),
          ),
      });
    } finally {
      await service.close();
    }
  },
});
