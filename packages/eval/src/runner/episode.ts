/**
 * One sample of one example: play the example's message env with the model — render, sample, parse, step — until the
 * env ends the episode, within a turn limit and a wall-clock timeout, and say how it went. Failures become the
 * sample's `error`, never an exception, so one bad example cannot stop a benchmark.
 */
import { CookbookError, type Message, type ModelInput } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import type { MessageEnv } from '@cookbook/training';
import { type Benchmark, type BenchmarkExample, GradedEnv, graderOf, replyText } from '../benchmark.js';

/** How to sample. */
export interface SamplingSettings {
  maxTokens: number;
  temperature: number;
  topP: number;
  /** Seed of the first turn; turn t uses seed + t. */
  seed: number;
}

/** Options of {@link runEpisode}. */
export interface EpisodeOptions extends SamplingSettings {
  sampler: Pick<SamplingClientLike, 'sample'>;
  renderer: Renderer;
  /** Most model turns before the episode is cut (an env that never ends). */
  maxTurns: number;
  /** Wall-clock limit of the whole episode, in seconds. */
  timeoutSeconds: number;
  /** Prepended when the example has no system message. */
  systemPrompt?: string | null | undefined;
}

/** How one sample went: the results.jsonl fields, before the id and answer are attached. */
export interface EpisodeOutcome {
  /** Everything before the final reply (with earlier replies and follow-up turns). */
  prompt: Message[];
  /** Text of the final reply ("" when none came). */
  response: string;
  correct: boolean;
  score: number;
  stopReason: 'stop' | 'length' | null;
  error?: string;
  /** Wall-clock seconds of the episode. */
  timeSeconds?: number;
  /** Per model turn: prompt tokens and completion tokens. */
  tokens?: [number, number][];
  /** What the grader extracted from the final reply (graded examples). */
  extracted?: string;
}

/** An error whose message is a timeout. */
class EpisodeTimeout extends CookbookError {}

function timeout<T>(promise: Promise<T>, seconds: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EpisodeTimeout(`timed out after ${seconds} s`)), seconds * 1000);
    timer.unref?.();
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

/** The env of an example in a benchmark: its own, or the graded default. */
export function envFor(benchmark: Benchmark, example: BenchmarkExample): MessageEnv {
  return benchmark.makeEnv?.(example) ?? new GradedEnv(example, graderOf(benchmark, example));
}

/** Plays one episode. Never throws: errors and timeouts are reported in `error`. */
export async function runEpisode(env: MessageEnv, options: EpisodeOptions): Promise<EpisodeOutcome> {
  const conversation: Message[] = [];
  const started = performance.now();
  const tokens: [number, number][] = [];
  const state: EpisodeOutcome = { prompt: [], response: '', correct: false, score: 0, stopReason: null, tokens };
  const play = async (): Promise<EpisodeOutcome> => {
    const initial = await env.initialMessages();
    if (options.systemPrompt && initial[0]?.role !== 'system') {
      conversation.push({ role: 'system', content: options.systemPrompt });
    }
    conversation.push(...initial);
    let reward = 0;
    for (let turn = 0; turn < options.maxTurns; turn++) {
      state.prompt = [...conversation];
      const prompt: ModelInput = options.renderer.buildGenerationPrompt(conversation);
      const res = await options.sampler.sample({
        prompt,
        numSamples: 1,
        samplingParams: {
          maxTokens: options.maxTokens,
          temperature: options.temperature,
          topP: options.topP,
          seed: options.seed + turn,
          stop: options.renderer.getStopSequences(),
        },
      });
      const seq = res.sequences[0];
      if (seq === undefined) throw new CookbookError('the sampler returned no sequence');
      state.stopReason = seq.stopReason;
      tokens.push([prompt.length, seq.tokens.length]);
      const parsed = options.renderer.parseResponse(seq.tokens).message;
      const reply: Message = { ...parsed, role: 'assistant' };
      state.response = replyText(reply);
      const step = await env.step(reply);
      reward += step.reward;
      if (step.episodeDone) {
        const m = step.metrics ?? {};
        state.score = typeof m.score === 'number' ? m.score : reward;
        state.correct = typeof m.correct === 'number' ? m.correct >= 1 : reward > 0;
        const extracted = env instanceof GradedEnv ? env.extracted.at(-1) : undefined;
        if (extracted !== undefined) state.extracted = extracted;
        return state;
      }
      conversation.push(reply, ...step.nextMessages);
    }
    state.error = `the episode did not end within ${options.maxTurns} turns`;
    return state;
  };
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const done = await timeout(play(), options.timeoutSeconds);
    return { ...done, timeSeconds: seconds() };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ...state,
      correct: false,
      score: 0,
      ...(error instanceof EpisodeTimeout ? { stopReason: null } : {}),
      error: message,
      timeSeconds: seconds(),
    };
  }
}
