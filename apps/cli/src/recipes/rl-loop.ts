/**
 * `cookbook rl_loop`: the minimal GRPO loop in one file (upstream `recipes/rl_loop.py`), written against the
 * clients directly: sample `group_size` answers per problem, grade them, skip groups whose rewards are all equal,
 * centre rewards per group, build importance-sampling datums, one forward_backward + optim_step per batch.
 * Offline by default: arithmetic problems on `local/qwen3-tiny`; hosted: env=gsm8k online=true.
 */

import { join } from 'node:path';
import {
  ConfigError,
  type Datum,
  deriveSeed,
  type Message,
  ModelInput,
  tensorFromFloat32,
  tensorFromInt64,
} from '@cookbook/core';
import { extractBoxed, fetchHubRows, gradeAnswer } from '@cookbook/eval';
import { appendCheckpointRecord, REPORT_FILE, readMetrics } from '@cookbook/logging';
import {
  generateArithmeticProblems,
  lastInteger,
  loadGsm8kJsonl,
  type MathProblem,
  parseGsm8kRow,
  RLTrainConfigSchema,
  transformAdvantages,
} from '@cookbook/rl';
import type { ServiceClient } from '@cookbook/tinker-client';
import { loopService, openTrainingClient, planRun, runLoop } from '@cookbook/training';
import { z } from 'zod';
import { defineRecipe } from '../recipe.js';
import { connectService, rendererNameField } from './common.js';
import {
  headlineSummary,
  MATH_WARM_START,
  maxOperandField,
  OFFLINE_MAX_STEPS,
  OFFLINE_MAX_TOKENS,
  rlRenderer,
} from './rl-common.js';
import { DEMONSTRATION_SEED_OFFSET, offlineRlNotes, resolveWarmStart, warmStartFields } from './rl-warm-start.js';

const lib = RLTrainConfigSchema.shape;

export const rlLoopSchema = RLTrainConfigSchema.pick({
  logPath: true,
  behaviorIfLogDirExists: true,
  baseUrl: true,
  wandbProject: true,
  wandbName: true,
  modelName: true,
  learningRate: true,
  loraRank: true,
  loadCheckpointPath: true,
  advantageTransform: true,
}).extend({
  logPath: lib.logPath.default('.cookbook-runs/rl_loop'),
  rendererName: rendererNameField,
  env: z.enum(['arithmetic', 'gsm8k']).default('arithmetic').describe('arithmetic (generated) or gsm8k'),
  online: z.boolean().default(false).describe('gsm8k: read openai/gsm8k from the Hub (network)'),
  gsm8kPath: z.string().nullable().default(null).describe('gsm8k offline: a JSONL file of {question, answer}'),
  maxOperand: maxOperandField,
  batchSize: z.number().int().positive().default(4).describe('Problems per step (hosted example: 128)'),
  groupSize: z.number().int().positive().default(8).describe('Answers sampled per problem (hosted example: 16)'),
  maxTokens: lib.maxTokens.default(OFFLINE_MAX_TOKENS),
  maxSteps: lib.maxSteps.default(OFFLINE_MAX_STEPS),
  seed: z.number().int().default(0).describe('Seed of generated problems, the warm start and the sampling'),
  ...warmStartFields(MATH_WARM_START),
});

type RlLoopConfig = z.infer<typeof rlLoopSchema>;

function suffixOf(config: RlLoopConfig): string {
  return config.env === 'arithmetic' ? '' : ' Provide a numerical answer written inside \\boxed{}.';
}

/** Problem → demonstration: the question as the loop asks it, answered by the reference. */
function demonstrationOf(config: RlLoopConfig, problem: MathProblem): Message[] {
  const answer = config.env === 'arithmetic' ? problem.answer : `\\boxed{${problem.answer}}`;
  return [
    { role: 'user', content: problem.question + suffixOf(config), trainable: false },
    { role: 'assistant', content: answer, trainable: true },
  ];
}

async function loadProblems(config: RlLoopConfig, count: number, seed = config.seed): Promise<MathProblem[]> {
  if (config.env === 'arithmetic') {
    return generateArithmeticProblems(count, seed, config.maxOperand).map(({ x, y }) => ({
      question: `What is ${x} + ${y}?`,
      answer: String(x + y),
    }));
  }
  if (config.online) {
    const rows = await fetchHubRows({ dataset: 'openai/gsm8k', config: 'main', split: 'train', limit: count });
    return rows.map((r) => parseGsm8kRow({ question: String(r.question), answer: String(r.answer) }));
  }
  if (config.gsm8kPath === null) {
    throw new ConfigError('env=gsm8k needs online=true or gsm8k_path=<file.jsonl>', { key: 'gsm8k_path' });
  }
  return loadGsm8kJsonl(config.gsm8kPath);
}

export const rlLoop = defineRecipe({
  name: 'rl_loop',
  description: 'Minimal GRPO loop in one file, written against the clients (default: arithmetic, offline)',
  schema: rlLoopSchema,
  notes: offlineRlNotes(
    'rl_loop',
    'model_name=Qwen/Qwen3-8B env=gsm8k online=true max_tokens=256 batch_size=128 group_size=16 max_steps=100',
  ),
  async run(config, io) {
    // The run plan (learning rate, renderer name, Adam settings) from the command line's parsed config (no second
    // parse), then the renderer it names.
    const plan = planRun(rlLoopSchema, config, { loop: 'rl' });
    const renderer = rlRenderer({ modelName: config.modelName, rendererName: plan.rendererName ?? null });
    const maxSteps = config.maxSteps;
    if (maxSteps === null) {
      throw new ConfigError('rl_loop generates max_steps batches of problems: give max_steps a number', {
        key: 'max_steps',
      });
    }
    const lr = plan.config.learningRate;
    let problems: MathProblem[] = [];
    const grade = (text: string, answer: string) =>
      config.env === 'arithmetic' ? lastInteger(text) === Number(answer) : gradeAnswer(extractBoxed(text), answer);
    const suffix = suffixOf(config);
    // The server answers before the run folder is created or an old run deleted.
    const connection = loopService<ServiceClient>(undefined, () => connectService(config.baseUrl));
    const result = await runLoop(
      {
        connect: connection.connect,
        ...config,
        config: plan.recorded,
        console: false,
        log: io.err,
        prepare: async () => {
          problems = await loadProblems(config, config.batchSize * maxSteps);
        },
      },
      async (run) => {
        run.setTotalSteps(maxSteps);
        const service = connection.get();
        const resume = run.resumeFrom?.state_path;
        if (run.startStep >= maxSteps) return { totalSteps: maxSteps, endStep: run.startStep };
        const warm =
          resume === undefined
            ? await resolveWarmStart(config, {
                name: `rl_loop-${config.env}`,
                service,
                renderer,
                demonstrations: async () => {
                  const seed = config.seed + DEMONSTRATION_SEED_OFFSET;
                  const demos = await loadProblems(config, config.warmStartExamples, seed);
                  return demos.slice(0, config.warmStartExamples).map((p) => demonstrationOf(config, p));
                },
                io,
              })
            : null;
        // The run's checkpoint (with its optimizer), else the warm start or load_checkpoint_path, else a new LoRA.
        const { client: training } = await openTrainingClient(run, service, {
          modelName: config.modelName,
          loraRank: config.loraRank,
          loadCheckpointPath: warm ?? config.loadCheckpointPath,
        });
        let noSignalSteps = 0;
        let sampler = await training.saveWeightsAndGetSamplingClient();
        const stop = renderer.getStopSequences();
        let step = run.startStep;
        for (; step < maxSteps && !run.signal.aborted; step++) {
          const stepStart = performance.now();
          const batch = problems.slice(step * config.batchSize, (step + 1) * config.batchSize);
          // Per problem, filled as its group comes in and read in problem order (a run does not depend on timing).
          const dataByGroup: Datum[][] = batch.map(() => []);
          const rewardsByGroup: number[][] = batch.map(() => []);
          let skipped = 0;
          let groupsDone = 0;
          run.setProgressDetail(`rollouts 0/${batch.length}`);
          await Promise.all(
            batch.map(async (problem, i) => {
              const prompt = renderer.buildGenerationPrompt([{ role: 'user', content: problem.question + suffix }]);
              const res = await sampler.sample({
                prompt,
                numSamples: config.groupSize,
                // Seeded by the run's seed, the step and the problem: the same seed repeats the run exactly.
                samplingParams: {
                  maxTokens: config.maxTokens,
                  temperature: 1,
                  stop,
                  seed: deriveSeed(config.seed, step, i),
                },
              });
              const rewards_G = res.sequences.map((seq): number => {
                const text = renderer.tokenizer.decode(seq.tokens);
                return grade(text, problem.answer) ? 1 : 0;
              });
              run.setProgressDetail(`rollouts ${++groupsDone}/${batch.length}`);
              rewardsByGroup[i] = rewards_G;
              const mean = rewards_G.reduce((a, b) => a + b, 0) / rewards_G.length;
              if (rewards_G.every((r) => r === rewards_G[0])) {
                skipped++;
                return; // no signal: every advantage would be 0
              }
              const promptTokens = prompt.toInts();
              // Centred rewards; the diagnostic control (advantage_transform) negates or zeroes them.
              const [advantages_G] = transformAdvantages([rewards_G.map((r) => r - mean)], config.advantageTransform);
              res.sequences.forEach((seq, g) => {
                const advantage = advantages_G![g]!;
                const tokens = [...promptTokens, ...seq.tokens];
                const n = promptTokens.length;
                const logprobs = seq.logprobs ?? seq.tokens.map(() => 0);
                // Shift by one: input = tokens[:-1], targets = tokens[1:]; prompt positions carry no advantage.
                dataByGroup[i]!.push({
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
          const data_D = dataByGroup.flat();
          const rewards = rewardsByGroup.flat();
          if (data_D.length > 0) {
            const fb = training.forwardBackward(data_D, 'importance_sampling');
            const optim = training.optimStep({ learningRate: lr, ...plan.adam });
            await fb;
            await optim;
            sampler = await training.saveWeightsAndGetSamplingClient();
          }
          const reward = rewards.reduce((a, b) => a + b, 0) / Math.max(1, rewards.length);
          const seconds = (performance.now() - stepStart) / 1000;
          if (skipped === batch.length) {
            noSignalSteps++;
            if (noSignalSteps === 1) {
              run.log(
                `rl_loop: step ${step} has no training signal: in every group all answers earned the same reward, ` +
                  'so every group was skipped and nothing was learned (see env/all/frac_groups_with_signal). Start ' +
                  'from a model that sometimes succeeds (warm_start=on, a checkpoint) or make the task easier.',
              );
            }
          }
          run.logger.logMetrics(
            {
              'env/all/reward/total': reward,
              'env/all/frac_groups_with_signal': batch.length === 0 ? 0 : (batch.length - skipped) / batch.length,
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
        if (noSignalSteps > 0) {
          run.log(
            `rl_loop: ${noSignalSteps} of ${step - run.startStep} steps had no training signal (all groups skipped)`,
          );
        }
        const final = await training.saveState('final');
        const finalCheckpoint = { name: 'final', step, final: step >= maxSteps, state_path: final.path };
        appendCheckpointRecord(config.logPath, finalCheckpoint);
        io.out(`final state: ${final.path}`);
        return { totalSteps: maxSteps, endStep: step, finalCheckpoint };
      },
    );
    if (result.status === 'completed') {
      if (result.stepsRun > 0) {
        const { rows } = await readMetrics(join(config.logPath, 'metrics.jsonl'));
        io.out(headlineSummary('env/all/reward/total', rows));
      }
      io.out(`report: ${join(config.logPath, REPORT_FILE)}`);
    }
  },
});
