/**
 * Sampling every (example, sample index) of some benchmarks with bounded concurrency: at most `concurrency` episodes
 * in flight, each with its own deterministic seed (a function of the run seed, the result id and the sample index,
 * so a resumed or re-ordered run draws the same samples), results handed over as each finishes.
 */
import { createHash } from 'node:crypto';
import type { Renderer } from '@cookbook/renderers';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import type { Benchmark, BenchmarkExample } from '../benchmark.js';
import { type EpisodeOutcome, envFor, runEpisode } from './episode.js';
import { resultId, type SampleRecord } from './results.js';

/** One sample to draw. */
export interface SampleTask {
  benchmark: Benchmark;
  example: BenchmarkExample;
  sampleIndex: number;
}

/** Settings of {@link sampleAll}. */
export interface SampleAllOptions {
  sampler: Pick<SamplingClientLike, 'sample'>;
  renderer: Renderer;
  maxTokens: number;
  temperature: number;
  topP: number;
  seed: number;
  concurrency: number;
  timeoutSeconds: number;
  maxTurns: number;
  systemPrompt?: string | null | undefined;
  /** Stop starting new samples once aborted (those in flight finish). */
  signal?: AbortSignal | undefined;
}

/** The seed of a sample: stable across runs, resumes and concurrency. */
export function sampleSeed(runSeed: number, id: string, sampleIndex: number): number {
  const h = createHash('sha256').update(`${runSeed}|${id}|${sampleIndex}`).digest();
  return h.readUInt32BE(0) & 0x3fffffff;
}

/** The reference answer as `results.jsonl` shows it. */
export function answerField(example: BenchmarkExample): string | string[] | null {
  const a = example.answer;
  if (a === undefined) return example.instructions ? example.instructions.map((i) => i.id) : null;
  return typeof a === 'string' ? a : [...a];
}

/** A results.jsonl record from a task and its outcome. */
export function toRecord(task: SampleTask, outcome: EpisodeOutcome): SampleRecord {
  return {
    id: resultId(task.benchmark.name, task.example.id),
    sample_index: task.sampleIndex,
    prompt: outcome.prompt,
    response: outcome.response,
    answer: answerField(task.example),
    correct: outcome.correct,
    score: outcome.score,
    stop_reason: outcome.stopReason,
    ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    ...(outcome.extracted !== undefined ? { extracted: outcome.extracted } : {}),
    ...(outcome.timeSeconds !== undefined ? { time_seconds: outcome.timeSeconds } : {}),
    ...(outcome.tokens !== undefined && outcome.tokens.length > 0 ? { tokens: outcome.tokens } : {}),
  };
}

/**
 * Draws every task, at most `concurrency` at once, calling `onResult` as each finishes (in completion order).
 * Returns how many ran (fewer than the tasks when aborted).
 */
export async function sampleAll(
  tasks: readonly SampleTask[],
  options: SampleAllOptions,
  onResult: (record: SampleRecord, task: SampleTask) => void | Promise<void>,
): Promise<number> {
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (;;) {
      if (options.signal?.aborted) return;
      const i = next++;
      const task = tasks[i];
      if (task === undefined) return;
      const id = resultId(task.benchmark.name, task.example.id);
      let outcome: EpisodeOutcome;
      try {
        const env = envFor(task.benchmark, task.example);
        outcome = await runEpisode(env, {
          sampler: options.sampler,
          renderer: options.renderer,
          maxTokens: options.maxTokens,
          temperature: options.temperature,
          topP: options.topP,
          seed: sampleSeed(options.seed, id, task.sampleIndex),
          maxTurns: options.maxTurns,
          timeoutSeconds: options.timeoutSeconds,
          systemPrompt: options.systemPrompt,
        });
      } catch (error) {
        // Making the env failed (e.g. an unknown grader name): the sample records the error.
        outcome = {
          prompt: task.example.messages,
          response: '',
          correct: false,
          score: 0,
          stopReason: null,
          error: error instanceof Error ? error.message : String(error),
        };
      }
      done++;
      await onResult(toRecord(task, outcome), task);
    }
  };
  const n = Math.max(1, Math.min(options.concurrency, tasks.length));
  await Promise.all(Array.from({ length: n }, worker));
  return done;
}
