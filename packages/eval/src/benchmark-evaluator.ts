/**
 * Benchmarks inside a training loop (upstream `BenchmarkEvaluator`): a sampling evaluator that plays every example
 * of its benchmarks against the current weights and reports `eval/<benchmark>/score`, `…/num_correct`,
 * `…/num_examples`, `…/num_errors`, `…/num_truncated` and `…/pass@k`, with an HTML transcript per evaluation.
 * Nothing is resumed here: an evaluation is short and belongs to one training step.
 */
import { join } from 'node:path';
import { writeFileAtomicSync } from '@cookbook/logging';
import type { Renderer } from '@cookbook/renderers';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import type { EvalContext, SamplingClientEvaluator } from '@cookbook/training';
import type { Benchmark } from './benchmark.js';
import { buildResultsHtml } from './report/results-html.js';
import { type SampleRecord, summarizeAll, summaryMetrics } from './runner/results.js';
import { resolvePassK } from './runner/run-benchmarks.js';
import { type SampleTask, sampleAll } from './runner/sample-all.js';

/** Options of {@link BenchmarkEvaluator}. */
export interface BenchmarkEvaluatorOptions {
  benchmarks: readonly Benchmark[];
  renderer: Renderer;
  /** Samples per example. Default 1. */
  numSamples?: number;
  /** k values of pass@k. Default: 1 and numSamples. */
  passK?: readonly number[];
  /** Default 0 (greedy), so evaluations of successive steps compare. */
  temperature?: number;
  topP?: number;
  /** Default 256. */
  maxTokens?: number;
  /** Default 0: the same samples' seeds at every step. */
  seed?: number;
  /** First N examples of each benchmark. Default all. */
  maxExamples?: number;
  /** Default 16. */
  concurrency?: number;
  /** Default 300. */
  timeoutSeconds?: number;
  /** Default 16. */
  maxTurns?: number;
  systemPrompt?: string;
  /** Metric prefix. Default `eval`. */
  prefix?: string;
  /** Transcript file prefix. Default `benchmarks`. */
  name?: string;
}

/** Runs benchmarks from a training loop; see the module comment. */
export class BenchmarkEvaluator implements SamplingClientEvaluator {
  readonly kind = 'sampling_client' as const;
  readonly name: string;
  private readonly passK: number[];

  constructor(private readonly options: BenchmarkEvaluatorOptions) {
    this.name = options.name ?? 'benchmarks';
    this.passK = resolvePassK(options.passK ?? null, options.numSamples ?? 1);
  }

  async evaluate(sampler: SamplingClientLike, ctx: EvalContext): Promise<Record<string, number>> {
    const o = this.options;
    const tasks: SampleTask[] = [];
    for (const benchmark of o.benchmarks) {
      for (const example of benchmark.examples.slice(0, o.maxExamples)) {
        for (let s = 0; s < (o.numSamples ?? 1); s++) tasks.push({ benchmark, example, sampleIndex: s });
      }
    }
    const records: SampleRecord[] = [];
    await sampleAll(
      tasks,
      {
        sampler,
        renderer: o.renderer,
        maxTokens: o.maxTokens ?? 256,
        temperature: o.temperature ?? 0,
        topP: o.topP ?? 1,
        seed: o.seed ?? 0,
        concurrency: o.concurrency ?? 16,
        timeoutSeconds: o.timeoutSeconds ?? 300,
        maxTurns: o.maxTurns ?? 16,
        systemPrompt: o.systemPrompt,
      },
      (r) => {
        records.push(r);
      },
    );
    const summary = summarizeAll(
      records,
      this.passK,
      o.benchmarks.map((b) => b.name),
    );
    const path =
      ctx.transcriptPath ??
      join(ctx.logPath, 'transcripts', `${this.name}_step_${String(ctx.step).padStart(6, '0')}.html`);
    writeFileAtomicSync(
      path,
      buildResultsHtml({ summary, records, passK: this.passK, title: `Benchmarks after ${ctx.step} steps` }),
    );
    return summaryMetrics(summary, o.prefix ?? 'eval');
  }
}
