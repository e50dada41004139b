/**
 * One Tinker `sample` call for an OpenAI request, and the top-k logprobs OpenAI's `top_logprobs` asks for. The
 * Tinker sample result carries each sampled token's logprob but no alternatives, so `top_logprobs` costs a second
 * request: prompt + completion with `topk_prompt_logprobs=k`, whose rows at the completion's positions are the
 * model's top-k there (under the model's plain distribution, before temperature and top_p).
 */
import type { ModelInput, StopCondition } from '@cookbook/core';
import type { SampledSequence } from '@cookbook/tinker-client';
import type { ResolvedModel } from './models.js';
import { OpenAIHttpError } from './openai-errors.js';

/** What to sample. */
export interface SampleSpec {
  prompt: ModelInput;
  n: number;
  /** Undefined: the service's default. */
  maxTokens: number | undefined;
  temperature: number;
  topP: number;
  seed: number | undefined;
  /** Undefined: the model's EOS. */
  stop: StopCondition | undefined;
  /** 0: none. */
  topLogprobs: number;
  /** Abandons the samples (the client went away). */
  signal: AbortSignal | undefined;
  /** Gets each sequence's new tokens while they are sampled (a service that streams; see `SampleArgs.onTokens`). */
  onTokens?: (sequences: { tokens: number[] }[]) => void;
}

/** One sampled sequence with, when asked, the top-k `[token, logprob]` pairs at each of its positions. */
export interface SampledChoice {
  sequence: SampledSequence;
  top: [number, number][][] | undefined;
}

/** Sample `spec.n` sequences (and their top-k logprobs when `spec.topLogprobs > 0`). */
export async function sampleChoices(model: ResolvedModel, spec: SampleSpec): Promise<SampledChoice[]> {
  const res = await model.sampler.sample({
    prompt: spec.prompt,
    numSamples: spec.n,
    samplingParams: {
      temperature: spec.temperature,
      topP: spec.topP,
      ...(spec.maxTokens === undefined ? {} : { maxTokens: spec.maxTokens }),
      ...(spec.seed === undefined ? {} : { seed: spec.seed }),
      ...(spec.stop === undefined ? {} : { stop: spec.stop }),
    },
    ...(spec.signal === undefined ? {} : { signal: spec.signal }),
    ...(spec.onTokens === undefined ? {} : { onTokens: spec.onTokens }),
  });
  const choices: SampledChoice[] = [];
  for (const sequence of res.sequences) {
    let top: [number, number][][] | undefined;
    if (spec.topLogprobs > 0 && sequence.tokens.length > 0) {
      const full = spec.prompt.appendInts(sequence.tokens);
      const scored = await model.sampler.sample({
        prompt: full,
        numSamples: 1,
        samplingParams: { maxTokens: 1, temperature: 1, ...(spec.seed === undefined ? {} : { seed: spec.seed }) },
        includePromptLogprobs: true,
        topkPromptLogprobs: spec.topLogprobs,
        ...(spec.signal === undefined ? {} : { signal: spec.signal }),
      });
      const rows = scored.topkPromptLogprobs;
      if (rows === undefined) {
        throw new OpenAIHttpError(502, 'the Tinker service returned no topk_prompt_logprobs for top_logprobs');
      }
      const start = spec.prompt.length;
      top = sequence.tokens.map((_, i) => rows[start + i] ?? []);
    }
    choices.push({ sequence, top });
  }
  return choices;
}

/** A token's text and UTF-8 bytes as OpenAI's logprob entries show them (a partial UTF-8 token shows U+FFFD). */
export function tokenText(
  decode: (tokens: readonly number[]) => string,
  token: number,
): { token: string; bytes: number[] } {
  const text = decode([token]);
  return { token: text, bytes: [...Buffer.from(text, 'utf8')] };
}

/** The index of the earliest occurrence of any of `stops` in `text`, with the stop found; undefined when none. */
export function firstStop(text: string, stops: readonly string[]): { index: number; stop: string } | undefined {
  let best: { index: number; stop: string } | undefined;
  for (const s of stops) {
    if (s === '') continue;
    const i = text.indexOf(s);
    if (i >= 0 && (best === undefined || i < best.index)) best = { index: i, stop: s };
  }
  return best;
}
