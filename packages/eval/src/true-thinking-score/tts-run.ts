/**
 * The true-thinking-score analysis (upstream `recipes/true_thinking_score/analyze.py`) as a run: for each problem,
 * greedy reasoning from the model (or the problem's shipped reasoning), then every step's score
 * ({@link ttsForCot}). Writes `metrics.jsonl` (one row per problem, then the aggregate as the last row),
 * `tts_per_problem.jsonl`, `tts_summary.json` and `tts.html` (each problem's steps coloured by their score).
 */
import { join } from 'node:path';
import { ConfigError, configToKeyStyle, getTextContent } from '@cookbook/core';
import { writeFileAtomicSync } from '@cookbook/logging';
import { type Renderer, resolveModelSetup, safeParseResponse } from '@cookbook/renderers';
import type { SamplingClientLike, ServiceClientLike } from '@cookbook/tinker-client';
import { type RunResult, runConfigShape, runLoop, runService } from '@cookbook/training';
import { z } from 'zod';
import { loadTTSProblems, type TTSProblem } from './tts-problems.js';
import { ttsHtml } from './tts-report.js';
import { type TTSResult, ttsAggregate, ttsForCot, ttsProblemSummary } from './tts-score.js';

/** The analysis's settings. */
export const TTSConfigSchema = z.object({
  ...runConfigShape,
  modelName: z.string().default('Qwen/Qwen3.5-4B').describe('Model whose reasoning is scored'),
  modelPath: z.string().nullable().default(null).describe('Sampler checkpoint (tinker://…) instead of the base model'),
  rendererName: z.string().nullable().default(null).describe("Chat format; null = the model's recommended renderer"),
  dataset: z
    .enum(['offline', 'math', 'gsm8k'])
    .default('math')
    .describe("'math' (MATH-500) or 'gsm8k' from the Hugging Face Hub (network), or the shipped 'offline' problems"),
  reasoning: z
    .enum(['model', 'shipped'])
    .default('model')
    .describe("'model': the model's greedy reasoning; 'shipped': the offline problems' written reasoning"),
  nProblems: z.number().int().positive().max(10_000).default(50).describe('Problems analysed (after a seeded shuffle)'),
  maxTokens: z.number().int().positive().default(4096).describe('Tokens of greedy reasoning per problem'),
  concurrency: z.number().int().positive().default(8).describe('Problems analysed at once'),
  seed: z.number().int().default(42).describe('Seed of the problem shuffle and the number perturbations'),
});

/** Parsed settings. */
export type TTSConfig = z.infer<typeof TTSConfigSchema>;
/** Settings as given. */
export type TTSConfigInput = z.input<typeof TTSConfigSchema>;

/** Non-serialisable inputs. */
export interface TTSDeps {
  serviceClient?: ServiceClientLike;
  /** Problems instead of `dataset` (tests). */
  problems?: TTSProblem[];
  /** Lines above the progress display. Default: stderr. */
  log?: (line: string) => void;
  /** `config.json`'s content (a recipe's snake_case config). Default: this schema's fields in snake_case. */
  hparams?: unknown;
}

/** What the run returns: every problem's result and the aggregate. */
export interface TTSRunValue {
  results: TTSResult[];
  aggregate: Record<string, number>;
}

/**
 * Greedy reasoning: the reply parsed by the renderer, its thinking when it has some, else its text (upstream reads the
 * raw text between `<think>` and `</think>`, else all of it; parsing also drops the stop token and handles templates
 * whose generation prompt already opened the thinking block).
 */
export async function greedyReasoning(
  sampler: Pick<SamplingClientLike, 'sample'>,
  renderer: Renderer,
  question: string,
  maxTokens: number,
): Promise<string> {
  const res = await sampler.sample({
    prompt: renderer.buildGenerationPrompt([{ role: 'user', content: question }]),
    numSamples: 1,
    samplingParams: { maxTokens, temperature: 0, stop: renderer.getStopSequences() },
  });
  const { message } = safeParseResponse(renderer, res.sequences[0]?.tokens ?? []);
  if (typeof message.content !== 'string') {
    const thinking = message.content.flatMap((p) => (p.type === 'thinking' ? [p.thinking] : [])).join('');
    if (thinking.trim() !== '') return thinking.trim();
  }
  const text = getTextContent(message);
  const think = /<think>([\s\S]*?)<\/think>/.exec(text);
  return think === null ? text : (think[1] ?? '').trim();
}

async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (x: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Runs the analysis inside the run lifecycle. */
export async function runTrueThinkingScore(input: TTSConfigInput, deps: TTSDeps = {}): Promise<RunResult<TTSRunValue>> {
  const config = TTSConfigSchema.parse(input);
  const { renderer } = resolveModelSetup(config);
  const service = runService(deps.serviceClient, config);
  let problems: TTSProblem[] = [];
  return runLoop<TTSRunValue>(
    {
      ...config,
      config: deps.hparams ?? configToKeyStyle(TTSConfigSchema, config, { keyStyle: 'snake_case' }),
      console: false,
      ...(deps.log === undefined ? {} : { log: deps.log }),
      prepare: async () => {
        problems = deps.problems ?? (await loadTTSProblems(config.dataset, config.nProblems, config.seed));
        if (config.reasoning === 'shipped' && problems.some((p) => p.reasoning === undefined)) {
          throw new ConfigError(
            `reasoning=shipped needs problems with written reasoning (dataset=offline); dataset=${config.dataset} has none`,
            { key: 'reasoning' },
          );
        }
      },
      connect: service.connect,
    },
    async (run) => {
      const client = service.get();
      const sampler = await client.createSamplingClient(
        config.modelPath === null ? { baseModel: config.modelName } : { modelPath: config.modelPath },
      );
      run.setTotalSteps(problems.length);
      let done = 0;
      const results = await mapLimited(problems, config.concurrency, async (p, i) => {
        const cot =
          config.reasoning === 'shipped' && p.reasoning !== undefined
            ? p.reasoning
            : await greedyReasoning(sampler, renderer, p.question, config.maxTokens);
        const r = await ttsForCot(sampler, renderer, p.question, p.answer, cot, { seed: config.seed });
        const s = ttsProblemSummary(r);
        run.log(
          `problem ${i + 1}/${problems.length}: ${r.skipped === undefined ? `${r.steps.length} steps, mean TTS ${(s.mean_tts as number).toFixed(4)}` : `skipped (${r.skipped})`}`,
        );
        done++;
        run.setProgressDetail(`problems ${done}/${problems.length}`);
        return r;
      });
      results.forEach((r, i) => {
        const s = ttsProblemSummary(r);
        run.logger.logMetrics(
          {
            n_steps: r.steps.length,
            mean_tts: s.mean_tts as number,
            frac_high_tts: s.frac_high_tts as number,
            frac_decorative: s.frac_decorative as number,
            n_self_verification: s.n_self_verification as number,
            model_correct: Number(r.modelCorrect),
            skipped: Number(r.skipped !== undefined),
          },
          i,
        );
      });
      const aggregate = ttsAggregate(results);
      run.logger.logMetrics(
        Object.fromEntries(Object.entries(aggregate).map(([k, v]) => [`aggregate/${k}`, v])),
        problems.length,
      );
      const lines = results.map((r, i) => JSON.stringify({ problem_idx: i, ...ttsProblemSummary(r) }));
      writeFileAtomicSync(join(run.logPath, 'tts_per_problem.jsonl'), `${lines.join('\n')}\n`);
      writeFileAtomicSync(
        join(run.logPath, 'tts_summary.json'),
        `${JSON.stringify({ model: config.modelPath ?? config.modelName, dataset: config.dataset, ...aggregate }, null, 2)}\n`,
      );
      writeFileAtomicSync(
        join(run.logPath, 'tts.html'),
        ttsHtml(config.modelPath ?? config.modelName, results, aggregate),
      );
      return { totalSteps: problems.length, endStep: problems.length, value: { results, aggregate } };
    },
  );
}
