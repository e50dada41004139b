/**
 * `cookbook rl_loop`: the minimal GRPO loop in one file (upstream `recipes/rl_loop.py`), written against the
 * clients directly: sample `group_size` answers per problem, grade them, skip groups whose rewards are all equal,
 * centre rewards per group, build importance-sampling datums, one forward_backward + optim_step per batch.
 * Offline by default: arithmetic problems on `local/qwen3-tiny`; hosted: env=gsm8k online=true.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Datum, ModelInput, tensorFromFloat32, tensorFromInt64 } from '@cookbook/core';
import { REPORT_FILE, setupLogging, writeRunReport } from '@cookbook/logging';
import {
  extractBoxed,
  fetchHubRows,
  generateArithmeticProblems,
  gradeAnswer,
  lastInteger,
  loadGsm8kJsonl,
  type MathProblem,
  parseGsm8kRow,
} from '@cookbook/rl';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService } from './common.js';
import { resolveRlLearningRate, rlRenderer } from './rl-common.js';

export const rlLoopSchema = z.object({
  log_path: z.string().default('.cookbook-runs/rl_loop').describe('Run folder: config.json, metrics.jsonl'),
  model_name: z.string().default('local/qwen3-tiny').describe('Base model (hosted example: Qwen/Qwen3-8B)'),
  renderer_name: z.string().nullable().default(null).describe("Chat format; null = the model's recommended renderer"),
  env: z.enum(['arithmetic', 'gsm8k']).default('arithmetic').describe('arithmetic (generated) or gsm8k'),
  online: z.boolean().default(false).describe('gsm8k: read openai/gsm8k from the Hub (network)'),
  gsm8k_path: z.string().nullable().default(null).describe('gsm8k offline: a JSONL file of {question, answer}'),
  batch_size: z.number().int().positive().default(4).describe('Problems per step (hosted example: 128)'),
  group_size: z.number().int().positive().default(4).describe('Answers sampled per problem (hosted example: 16)'),
  learning_rate: z.number().positive().nullable().default(null).describe('null = 3e-3 for local/* models'),
  lora_rank: z.number().int().positive().default(32).describe('LoRA rank'),
  max_tokens: z.number().int().positive().default(8).describe('Tokens per answer (hosted example: 256)'),
  max_steps: z.number().int().positive().default(5).describe('Training steps'),
  seed: z.number().int().default(0).describe('Seed of generated problems'),
  base_url: z.string().nullable().default(null).describe('Tinker-compatible server; null = environment or embedded'),
});

async function loadProblems(config: z.infer<typeof rlLoopSchema>, count: number): Promise<MathProblem[]> {
  if (config.env === 'arithmetic') {
    return generateArithmeticProblems(count, config.seed).map(({ x, y }) => ({
      question: `What is ${x} + ${y}?`,
      answer: String(x + y),
    }));
  }
  if (config.online) {
    const rows = await fetchHubRows({ dataset: 'openai/gsm8k', config: 'main', split: 'train', limit: count });
    return rows.map((r) => parseGsm8kRow({ question: String(r.question), answer: String(r.answer) }));
  }
  if (config.gsm8k_path === null) throw new Error('env=gsm8k needs online=true or gsm8k_path=<file.jsonl>');
  return loadGsm8kJsonl(config.gsm8k_path);
}

export const rlLoop = defineRecipe({
  name: 'rl_loop',
  description: 'Minimal GRPO loop in one file, written against the clients (default: arithmetic, offline)',
  schema: rlLoopSchema,
  async run(config, io) {
    const renderer = rlRenderer(config);
    const lr = resolveRlLearningRate(config.model_name, config.learning_rate);
    const problems = await loadProblems(config, config.batch_size * config.max_steps);
    const grade = (text: string, answer: string) =>
      config.env === 'arithmetic' ? lastInteger(text) === Number(answer) : gradeAnswer(extractBoxed(text), answer);
    const suffix = config.env === 'arithmetic' ? '' : ' Provide a numerical answer written inside \\boxed{}.';
    mkdirSync(config.log_path, { recursive: true });
    const logger = setupLogging({ logDir: config.log_path, config, console: false });
    const service = await connectService(config.base_url);
    try {
      const training = await service.createLoraTrainingClient({ baseModel: config.model_name, rank: config.lora_rank });
      let sampler = await training.saveWeightsAndGetSamplingClient();
      const stop = renderer.getStopSequences();
      for (let step = 0; step < config.max_steps; step++) {
        const start = performance.now();
        const batch = problems.slice(step * config.batch_size, (step + 1) * config.batch_size);
        const data_D: Datum[] = [];
        const rewards: number[] = [];
        let skipped = 0;
        await Promise.all(
          batch.map(async (problem) => {
            const prompt = renderer.buildGenerationPrompt([{ role: 'user', content: problem.question + suffix }]);
            const res = await sampler.sample({
              prompt,
              numSamples: config.group_size,
              samplingParams: { maxTokens: config.max_tokens, temperature: 1, stop },
            });
            const rewards_G = res.sequences.map((seq): number => {
              const text = renderer.tokenizer.decode(seq.tokens);
              return grade(text, problem.answer) ? 1 : 0;
            });
            rewards.push(...rewards_G);
            const mean = rewards_G.reduce((a, b) => a + b, 0) / rewards_G.length;
            if (rewards_G.every((r) => r === rewards_G[0])) {
              skipped++;
              return; // no signal: every advantage would be 0
            }
            const promptTokens = prompt.toInts();
            res.sequences.forEach((seq, g) => {
              const advantage = rewards_G[g]! - mean;
              const tokens = [...promptTokens, ...seq.tokens];
              const n = promptTokens.length;
              const logprobs = seq.logprobs ?? seq.tokens.map(() => 0);
              // Shift by one: input = tokens[:-1], targets = tokens[1:]; prompt positions carry no advantage.
              data_D.push({
                modelInput: ModelInput.fromInts(tokens.slice(0, -1)),
                lossFnInputs: {
                  target_tokens: tensorFromInt64(tokens.slice(1)),
                  logprobs: tensorFromFloat32([...new Array<number>(n - 1).fill(0), ...logprobs]),
                  advantages: tensorFromFloat32([
                    ...new Array<number>(n - 1).fill(0),
                    ...seq.tokens.map(() => advantage),
                  ]),
                },
              });
            });
          }),
        );
        if (data_D.length > 0) {
          const fb = training.forwardBackward(data_D, 'importance_sampling');
          const optim = training.optimStep({ learningRate: lr, beta1: 0.9, beta2: 0.95, eps: 1e-8 });
          await fb;
          await optim;
          sampler = await training.saveWeightsAndGetSamplingClient();
        }
        const reward = rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length);
        const seconds = (performance.now() - start) / 1000;
        logger.logMetrics(
          {
            'env/all/reward/total': reward,
            'progress/skipped_groups': skipped,
            datums: data_D.length,
            'time/total': seconds,
          },
          step,
        );
        io.out(
          `step ${String(step).padStart(4)}  reward ${reward.toFixed(3)}  skipped ${skipped}  ${seconds.toFixed(2)}s`,
        );
      }
      const final = await training.saveState('final');
      io.out(`final state: ${final.path}`);
    } finally {
      await logger.close();
      await service.close();
      await writeRunReport(config.log_path).catch(() => undefined);
    }
    io.out(`report: ${join(config.log_path, REPORT_FILE)}`);
  },
});
