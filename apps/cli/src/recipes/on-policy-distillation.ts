/**
 * `cookbook on_policy_distillation` (upstream `distillation/train_on_policy.py`): the student answers prompts, the
 * teacher scores every sampled token, and the RL update lowers the per-token reverse KL (student sampled logprob −
 * teacher logprob). `teacher_kl` in metrics.jsonl is the mean reverse KL per sampled token: the run drives it down.
 *
 * Offline, with no teacher given, the teacher is `local/qwen3-tiny` fine-tuned on the example conversations (trained
 * once, cached) and the prompts are those conversations' user turns; the student starts from the untrained
 * `local/qwen3-tiny`. Both are tiny stand-ins of real models.
 */

import { join } from 'node:path';
import { configToKeyStyle, type Message, seededPermutation } from '@cookbook/core';
import { OnPolicyDistillationConfigSchema, PromptDataset, trainOnPolicyDistillation } from '@cookbook/distillation';
import { REPORT_FILE, readMetrics } from '@cookbook/logging';
import { loadModelSetup } from '@cookbook/renderers';
import { planRun } from '@cookbook/training';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService, rendererNameField } from './common.js';
import {
  distillationDataShape,
  readDistillationConversations,
  resolveStudentStart,
  resolveTeacher,
} from './distillation-common.js';

const lib = OnPolicyDistillationConfigSchema.shape;

export const onPolicyDistillationSchema = OnPolicyDistillationConfigSchema.omit({
  streamMinibatchConfig: true,
  asyncConfig: true,
  // The recipe's `seed` seeds the sampling too (as the RL recipes'), so the same command repeats a run exactly.
  samplingSeed: true,
}).extend({
  logPath: lib.logPath.default('.cookbook-runs/on_policy_distillation'),
  rendererName: rendererNameField,
  ...distillationDataShape,
  groupSize: z.number().int().positive().default(4).describe('Answers sampled per prompt'),
  groupsPerBatch: z.number().int().positive().default(8).describe('Prompts per training step (hosted example: 1024)'),
  maxTokens: lib.maxTokens.default(12),
  maxSteps: lib.maxSteps.default(10),
  evalEvery: lib.evalEvery.default(0),
  saveEvery: lib.saveEvery.default(0),
  numGroupsToLog: lib.numGroupsToLog.default(2),
  loraRank: lib.loraRank.default(16),
  studentSftSteps: z
    .number()
    .int()
    .nonnegative()
    .default(10)
    .describe(
      'No teacher given: the student first gets this many SFT steps on the data (a weaker stand-in of a base model ' +
        'that already writes text; cached); 0 = start from model_name',
    ),
});

/** The prompt of a conversation: everything before its last assistant turn (or the whole, if it has none). */
function promptOf(messages: readonly Message[]): Message[] {
  const last = messages.findLastIndex((m) => m.role === 'assistant');
  return last < 0 ? [...messages] : messages.slice(0, last);
}

export const onPolicyDistillation = defineRecipe({
  name: 'on_policy_distillation',
  description:
    'On-policy distillation: the student samples, the RL update lowers its reverse KL to a teacher (default: a ' +
    'teacher fine-tuned on the example conversations, offline)',
  schema: onPolicyDistillationSchema,
  async run(config, io) {
    const { rendererName, renderer } = await loadModelSetup(config);
    const conversations = readDistillationConversations(config.dataset);
    const all = conversations.map(promptOf).filter((p) => p.length > 0);
    const prompts = seededPermutation(all.length, config.seed).map((i) => all[i]!);
    const service = await connectService(config.baseUrl);
    try {
      const teacher = await resolveTeacher(service, config, conversations, renderer, io);
      const loadCheckpointPath = await resolveStudentStart(service, config, conversations, renderer, io);
      const resolved = { ...config, ...teacher, loadCheckpointPath, rendererName, samplingSeed: config.seed };
      // The plan comes from the command line's parse (the recipe schema extends the loop's fields): no second parse.
      const plan = planRun(OnPolicyDistillationConfigSchema, resolved, {
        loop: 'rl',
        hparams: {
          ...(configToKeyStyle(onPolicyDistillationSchema, resolved, { keyStyle: 'snake_case' }) as Record<
            string,
            unknown
          >),
          sampling_seed: config.seed,
        },
      });
      const result = await trainOnPolicyDistillation(plan, {
        datasets: [
          {
            builder: async () =>
              new PromptDataset({
                renderer,
                prompts,
                groupsPerBatch: config.groupsPerBatch,
                groupSize: config.groupSize,
                numBatches: config.maxSteps ?? 1,
              }),
          },
        ],
        serviceClient: service,
        console: false,
        log: io.err,
        onStep: (step, m) =>
          io.out(
            `step ${String(step).padStart(4)}  teacher_kl ${(m.teacher_kl ?? 0).toFixed(4)}` +
              `  entropy ${(m['optim/entropy'] ?? 0).toFixed(3)}  ${(m['time/total'] ?? 0).toFixed(2)}s`,
          ),
      });
      if (result.stepsRun === 0) return;
      const { rows } = await readMetrics(join(config.logPath, 'metrics.jsonl'));
      const kl = rows.map((r) => r.teacher_kl).filter((v): v is number => typeof v === 'number');
      io.out(`teacher_kl ${kl[0]?.toFixed(4)} → ${kl.at(-1)?.toFixed(4)} over ${kl.length} steps`);
      io.out(`report: ${join(config.logPath, REPORT_FILE)}`);
    } finally {
      await service.close();
    }
  },
});
