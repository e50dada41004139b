/**
 * `cookbook sdft`: self-distillation fine-tuning (upstream `recipes/sdft`). The student answers the question alone;
 * the same model, frozen, with the reference answer in its prompt (upstream's template) is the teacher; the student
 * is trained towards it (top-K cross-entropy, K = 20, by default). Offline: the shipped code-word questions on
 * `local/qwen3-tiny` — the in-context teacher can copy the code word, the student cannot, and `sdft/kl` (student −
 * teacher logprob per sampled token) falls as the student moves towards the teacher.
 */
import { join } from 'node:path';
import { configToKeyStyle } from '@cookbook/core';
import {
  loadSciKnowEval,
  loadToolAlpaca,
  OFFLINE_SDFT_EXAMPLES,
  readSdftJsonl,
  SdftConfigSchema,
  type SdftExample,
  trainSdft,
} from '@cookbook/distillation';
import { REPORT_FILE, readMetrics } from '@cookbook/logging';
import { planRun } from '@cookbook/training';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { headlineSummary } from './rl-common.js';

const lib = SdftConfigSchema.shape;

export const sdftSchema = SdftConfigSchema.extend({
  logPath: lib.logPath.default('.cookbook-runs/sdft'),
  modelName: lib.modelName.default('local/qwen3-tiny'),
  dataset: z
    .enum(['offline', 'sciknoweval', 'toolalpaca'])
    .default('offline')
    .describe("Examples: the shipped 'offline' code words, or SciKnowEval chemistry MCQ / ToolAlpaca from the Hub"),
  dataPath: z.string().nullable().default(null).describe('A JSONL of {question, golden_answer} instead of dataset'),
  loraRank: lib.loraRank.default(16),
  learningRate: lib.learningRate.default(1e-3),
  maxTokens: lib.maxTokens.default(16),
  groupsPerBatch: lib.groupsPerBatch.default(12),
  groupSize: lib.groupSize.default(2),
  maxSteps: lib.maxSteps.default(12),
  saveEvery: lib.saveEvery.default(0),
});

async function examplesOf(config: z.infer<typeof sdftSchema>): Promise<SdftExample[]> {
  if (config.dataPath !== null) return readSdftJsonl(config.dataPath);
  if (config.dataset === 'sciknoweval') return (await loadSciKnowEval({ seed: 42 })).train;
  if (config.dataset === 'toolalpaca') return (await loadToolAlpaca({ seed: 42 })).train;
  return [...OFFLINE_SDFT_EXAMPLES];
}

export const sdft = defineRecipe({
  name: 'sdft',
  description:
    'Self-distillation: the model with the reference answer in context teaches itself without it (default: code words on local/qwen3-tiny, offline)',
  schema: sdftSchema,
  notes: [
    'Offline (no TINKER_API_KEY / TINKER_BASE_URL): local/qwen3-tiny, a tiny stand-in, on 12 shipped questions whose',
    'answer is an arbitrary code word. The teacher (the frozen start, with the answer in its prompt) can copy it; the',
    'student cannot; sdft/kl (student − teacher logprob per sampled completion token) is the distance the run closes.',
    'Modes: topk=20 (default, cross_entropy on the teacher’s renormalised top-K), reverse=true (reverse KL over the',
    'top-K, a client-side loss), topk=0 (advantage = teacher − student logprob, importance_sampling).',
    'Hosted, upstream’s example: TINKER_API_KEY=… cookbook sdft model_name=Qwen/Qwen3.6-35B-A3B dataset=toolalpaca',
    '  groups_per_batch=128 group_size=1 learning_rate=5e-4 lora_rank=64 max_tokens=2048 save_every=20',
    '  (dataset=sciknoweval: SciKnowEval chemistry L3 multiple choice; both read from the Hub).',
  ].join('\n'),
  async run(config, io) {
    const examples = await examplesOf(config);
    io.err(`sdft: ${examples.length} examples; teacher ${config.modelName} (frozen, answer in context)`);
    // The plan comes from the command line's parse (sdftSchema extends the SDFT fields): no second parse.
    const plan = planRun(SdftConfigSchema, config, {
      loop: 'supervised',
      hparams: configToKeyStyle(sdftSchema, config, { keyStyle: 'snake_case' }),
    });
    const result = await trainSdft(plan, {
      examples,
      log: io.err,
      onStep: (step, m) =>
        io.out(
          `step ${String(step).padStart(4)}  kl ${(m['sdft/kl'] ?? 0).toFixed(3)}  loss ${(m['loss:sum'] ?? 0).toFixed(3)}  ${(m['time/total'] ?? 0).toFixed(2)}s`,
        ),
    });
    if (result.stepsRun === 0) return;
    const { rows } = await readMetrics(join(config.logPath, 'metrics.jsonl'));
    io.out(headlineSummary('sdft/kl', rows));
    io.out(`report: ${join(config.logPath, REPORT_FILE)}`);
  },
});
