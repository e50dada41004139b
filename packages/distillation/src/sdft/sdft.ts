/**
 * Self-distillation fine-tuning (upstream `distillation/sdft.py`, after Shenfeld et al. 2026, "Self-Distillation
 * Enables Continual Learning"): the student samples on the question alone; the teacher — the same model, frozen at
 * the start (or re-synced to the student every `teacher_sync_every` steps) — sees the question plus a reference
 * answer in upstream's template and is teacher-forced on the student's completion; the student is trained towards the
 * teacher's view (top-K cross-entropy by default, reverse KL over the top-K, or the per-token advantage form; see
 * `sdft-targets.ts`). Logged every step: `sdft/kl` (mean student − teacher logprob per sampled completion token, the
 * distance the run closes), `sdft/mean_teacher_entropy`, `sdft/positions`, the rollout lengths and timings.
 */
import { performance } from 'node:perf_hooks';
import { ConfigError, type Datum, type Message, recordTime, tensorToNumbers } from '@cookbook/core';
import { resolveModelSetup, TinkerTokenCompleter } from '@cookbook/renderers';
import { assembleTrainingData, computeAdvantages, doGroupRollout, removeMask } from '@cookbook/rl';
import type { SamplingClientLike, ServiceClientLike, TrainingClientLike } from '@cookbook/tinker-client';
import {
  CheckpointManager,
  LOOP_ADAM,
  openTrainingClient,
  type RunPlan,
  type RunResult,
  resolveRunPlan,
  runConfigShape,
  runLoop,
  runService,
  trainingConfigShape,
} from '@cookbook/training';
import { z } from 'zod';
import { mapLimit } from '../internal/concurrency.js';
import { PromptGroupBuilder } from '../prompt-env.js';
import type { TopkRow } from '../topk.js';
import {
  DEFAULT_DEMO_TEMPLATE,
  formatDemoTemplate,
  reverseKlTopkLoss,
  SDFT_DEFAULTS,
  sampledKl,
  sdftAdvantageDatum,
  sdftTeacherPrompt,
  sdftTopkDatum,
  studentCompletion,
} from './sdft-targets.js';

/** The SDFT loop's settings (upstream's `Config`). */
export const SdftConfigSchema = z.object({
  ...runConfigShape,
  modelName: z.string().describe('Student and teacher model (the teacher is the same model, frozen)'),
  rendererName: z.string().nullable().default(null).describe("Chat format; null = the model's recommended renderer"),
  loraRank: z.number().int().positive().default(128).describe('LoRA rank of the student'),
  loadCheckpointPath: z
    .string()
    .nullable()
    .default(null)
    .describe('Student weights to start from (tinker://…/weights/…)'),
  learningRate: trainingConfigShape.learningRate
    .unwrap()
    .unwrap()
    .default(2e-5)
    .describe('Adam learning rate (upstream suggests 5e-4 to 1e-3 for LoRA)'),
  maxTokens: z.number().int().positive().default(2048).describe('Tokens the student may sample per completion'),
  temperature: z.number().positive().default(1).describe("The student's sampling temperature"),
  topk: z
    .number()
    .int()
    .nonnegative()
    .default(SDFT_DEFAULTS.topk)
    .describe(
      'Teacher tokens per position (K); 0 = the advantage form (teacher − student logprob, importance_sampling)',
    ),
  reverse: z
    .boolean()
    .default(false)
    .describe('Reverse KL over the top-K slots instead of top-K cross-entropy (needs topk > 0)'),
  skipFirstTokens: z
    .number()
    .int()
    .nonnegative()
    .default(SDFT_DEFAULTS.skipFirstNTokens)
    .describe('Completion tokens at the start left out of the top-K loss'),
  demoTemplate: z
    .string()
    .default(DEFAULT_DEMO_TEMPLATE)
    .describe("The teacher's prompt: Python format fields {question} and {golden_answer} (required)"),
  systemPrompt: z.string().nullable().default(null).describe('System message of the teacher prompt'),
  teacherSyncEvery: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('Copy the student into the teacher every N steps; null = the teacher stays the frozen start'),
  maxContextLength: z
    .number()
    .int()
    .positive()
    .default(SDFT_DEFAULTS.maxContextLength)
    .describe("The teacher's context: completions are cut to fit after its prompt"),
  groupSize: z.number().int().positive().default(1).describe('Completions per question'),
  groupsPerBatch: z.number().int().positive().default(8).describe('Questions per step'),
  maxSteps: z.number().int().positive().nullable().default(null).describe('Steps; null = one pass over the data'),
  saveEvery: z.number().int().nonnegative().default(20).describe('Checkpoint every N steps (0 = only the final one)'),
  seed: z.number().int().default(0).describe('Seed of the LoRA initialisation and of every sampled completion'),
  teacherConcurrency: z.number().int().positive().default(64).describe('Most teacher calls in flight'),
});
/** Parsed settings. */
export type SdftConfig = z.infer<typeof SdftConfigSchema>;
/** Settings as given. */
export type SdftConfigInput = z.input<typeof SdftConfigSchema>;

/** One training example: the question the student sees and the reference answer only the teacher sees. */
export interface SdftExample {
  question: string;
  goldenAnswer: string;
}

/** Non-serialisable inputs. */
export interface SdftDeps {
  examples: readonly SdftExample[];
  serviceClient?: ServiceClientLike;
  log?: (line: string) => void;
  /** Called after each step with its metrics. */
  onStep?: (step: number, metrics: Record<string, number>) => void;
  hparams?: unknown;
}

/** Batch `i`: `groupsPerBatch` examples from position i·groupsPerBatch, cycling. */
function batchOf(examples: readonly SdftExample[], i: number, size: number): SdftExample[] {
  return Array.from({ length: size }, (_, j) => examples[(i * size + j) % examples.length]!);
}

/** The number of steps: `maxSteps`, else one pass. */
export function sdftSteps(config: Pick<SdftConfig, 'maxSteps' | 'groupsPerBatch'>, examples: number): number {
  return config.maxSteps ?? Math.max(1, Math.floor(examples / config.groupsPerBatch));
}

/** Runs SDFT inside the run lifecycle. */
export async function trainSdft(
  input: SdftConfigInput | RunPlan<SdftConfig>,
  deps: SdftDeps,
): Promise<RunResult<undefined>> {
  const plan = resolveRunPlan(SdftConfigSchema, input, { loop: 'supervised', hparams: deps.hparams });
  const config = plan.config;
  const { renderer } = resolveModelSetup({ modelName: config.modelName, rendererName: plan.rendererName });
  const service = runService(deps.serviceClient, config);
  const totalSteps = sdftSteps(config, deps.examples.length);
  return runLoop(
    {
      ...config,
      config: plan.recorded,
      console: false,
      ...(deps.log === undefined ? {} : { log: deps.log }),
      prepare: () => {
        if (deps.examples.length === 0) throw new ConfigError('SDFT needs at least one example');
        if (config.reverse && config.topk === 0) {
          throw new ConfigError('reverse=true needs topk > 0: the reverse KL runs over the teacher’s top-K', {
            key: 'reverse',
          });
        }
        formatDemoTemplate(config.demoTemplate, 'q', 'a');
      },
      connect: service.connect,
    },
    async (run) => {
      const client = service.get();
      const { client: training } = await openTrainingClient<TrainingClientLike>(run, client, {
        modelName: config.modelName,
        loraRank: config.loraRank,
        loadCheckpointPath: config.loadCheckpointPath,
        seed: config.seed,
      });
      let teacher: SamplingClientLike =
        config.loadCheckpointPath === null
          ? await client.createSamplingClient({ baseModel: config.modelName })
          : await training.saveWeightsAndGetSamplingClient('sdft-teacher-start');
      const checkpoints = new CheckpointManager({
        client: training,
        logPath: run.logPath,
        policy: { saveEvery: config.saveEvery, ttlSeconds: null },
        startStep: run.startStep,
        log: run.log,
      });
      run.setTotalSteps(totalSteps);
      const vocabSize = renderer.tokenizer.vocabSize;
      let step = run.startStep;
      for (; step < totalSteps; step++) {
        if (run.signal.aborted) break;
        const t0 = performance.now();
        const student = await training.saveWeightsAndGetSamplingClient();
        const policy = new TinkerTokenCompleter({
          samplingClient: student,
          maxTokens: config.maxTokens,
          temperature: config.temperature,
        });
        const examples = batchOf(deps.examples, step, config.groupsPerBatch);
        const groups = await Promise.all(
          examples.map((ex, g) => {
            const prompt: Message[] = [{ role: 'user', content: ex.question }];
            return doGroupRollout(new PromptGroupBuilder(renderer, prompt, config.groupSize), policy, {
              seed: config.seed * 1_000_003 + step * 1_009 + g,
            });
          }),
        );
        const tSample = performance.now();
        const { data_D, metadata_D } = assembleTrainingData(groups, computeAdvantages(groups));
        const teacherPrompts = examples.map((ex) =>
          sdftTeacherPrompt(renderer, ex.question, ex.goldenAnswer, {
            systemPrompt: config.systemPrompt,
            demoTemplate: config.demoTemplate,
          }),
        );
        let klSum = 0;
        let klCount = 0;
        let entropySum = 0;
        let positions = 0;
        let truncated = 0;
        let completionTokens = 0;
        const trainData: Datum[] = [];
        await mapLimit(data_D, config.teacherConcurrency, async (datum, d) => {
          const prompt = teacherPrompts[metadata_D[d]!.groupIdx]!;
          const completion = studentCompletion(datum, prompt.length, config.maxContextLength);
          if (completion.truncated) truncated++;
          completionTokens += completion.rows.length;
          const res = await teacher.sample({
            prompt: prompt.appendInts(completion.tokens),
            numSamples: 1,
            samplingParams: { maxTokens: 1 },
            includePromptLogprobs: true,
            ...(config.topk > 0 ? { topkPromptLogprobs: config.topk } : {}),
          });
          const lps = res.promptLogprobs ?? [];
          const kl = sampledKl(datum, completion, lps, prompt.length, config.topk > 0 ? config.skipFirstTokens : 0);
          klSum += kl.sum;
          klCount += kl.count;
          if (config.topk > 0) {
            const built = sdftTopkDatum(datum, completion, (res.topkPromptLogprobs ?? []) as TopkRow[], prompt.length, {
              K: config.topk,
              vocabSize,
              skipFirstNTokens: config.skipFirstTokens,
            });
            entropySum += built.entropySum;
            positions += built.positions;
            trainData[d] = built.datum;
          } else {
            positions += sdftAdvantageDatum(datum, completion, lps, prompt.length);
            trainData[d] = removeMask(datum);
          }
        });
        const tTeacher = performance.now();
        const metrics: Record<string, number> = {
          'sdft/kl': klCount > 0 ? klSum / klCount : 0,
          'sdft/positions': positions,
          'sdft/completion_tokens': completionTokens,
          'sdft/teacher_truncated_count': truncated,
          'sdft/num_datums': data_D.length,
          'optim/lr': config.learningRate,
        };
        // Per completion token, the skipped ones included (upstream's denominator).
        if (config.topk > 0)
          metrics['sdft/mean_teacher_entropy'] = completionTokens > 0 ? entropySum / completionTokens : 0;
        if (config.reverse) {
          const K = config.topk;
          const out = await training.forwardBackwardCustom(trainData, (data, logprobs) => {
            let loss = 0;
            let n = 0;
            const gradLogprobs = data.map((d, i) => {
              const w = d.lossFnInputs.weights;
              const r = reverseKlTopkLoss(w === undefined ? [] : tensorToNumbers(w), logprobs[i]!, K);
              loss += r.loss;
              n += r.positions;
              return r.grad;
            });
            return { loss, gradLogprobs, metrics: { 'sdft/reverse_kl': n > 0 ? loss / n : 0 } };
          });
          Object.assign(metrics, out.metrics);
        } else {
          const out = await training.forwardBackward(
            trainData,
            config.topk > 0 ? 'cross_entropy' : 'importance_sampling',
          );
          Object.assign(metrics, out.metrics);
        }
        await training.optimStep({ learningRate: config.learningRate, ...LOOP_ADAM });
        const done = step + 1;
        const kind = checkpoints.due(done, totalSteps);
        if (kind !== undefined && done < totalSteps) await checkpoints.submit(kind, done, { step: done });
        if (config.teacherSyncEvery !== null && done % config.teacherSyncEvery === 0) {
          teacher = await training.saveWeightsAndGetSamplingClient(`sdft-teacher-sync-${done}`);
          run.log(`teacher synced to the student at step ${done}`);
        }
        recordTime(metrics, 'sample', t0, tSample);
        recordTime(metrics, 'teacher', tSample, tTeacher);
        metrics['time/total'] = (performance.now() - t0) / 1000;
        run.logger.logMetrics(metrics, step);
        checkpoints.logged(step);
        deps.onStep?.(step, metrics);
      }
      const finalCheckpoint =
        step > run.startStep
          ? await checkpoints.saveNow(
              step >= totalSteps ? 'final' : `${String(step).padStart(6, '0')}`,
              { step },
              step >= totalSteps,
            )
          : undefined;
      return { totalSteps, endStep: step, finalCheckpoint };
    },
  );
}
