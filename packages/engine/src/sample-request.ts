// One sample request, checked and resolved (prompt tokens, sampling parameters, stop rules) before anything is
// allocated for it; the sampler's batch decodes from this. Every bad value is an EngineInputError naming it.

import { randomSeed, Xoshiro128Rng } from '@cookbook/core';
import { EngineInputError } from './errors.js';
import type { BaseModel } from './model/base-model.js';
import type { SamplerWeights } from './model/sampling-weights.js';
import { loadTokenDecoder } from './model/token-decoder.js';

/** Options of one sample call (Tinker SamplingParams plus prompt-logprob flags). */
export interface SampleOptions {
  /** Number of independent completions. */
  numSamples: number;
  /** Most tokens to generate per completion (default: up to the context length). */
  maxTokens?: number;
  /** Softmax temperature; 0 = greedy (default 1). */
  temperature?: number;
  /** Keep only the k most likely tokens; −1 = off (default). */
  topK?: number;
  /** Nucleus sampling mass in (0, 1]; 1 = off (default). */
  topP?: number;
  /** Same seed and inputs ⇒ same tokens; omitted ⇒ random. */
  seed?: number | bigint;
  /**
   * null/undefined: stop at the model's EOS tokens. A string, list of strings or list of token ids replaces the
   * defaults; `[]` disables every stop, EOS included.
   */
  stop?: string | string[] | number[] | null;
  /** Also return the logprob of every prompt token given its prefix (first entry null). */
  includePromptLogprobs?: boolean;
  /** Also return the top-k (token, logprob) pairs for every prompt position (first entry null); 0 = off. */
  topkPromptLogprobs?: number;
  /**
   * Checked between prefill chunks and decode steps; once `aborted` is true the call throws EngineCancelledError.
   * An `AbortSignal` fits, and so does a view of a shared flag (a worker thread cannot see an AbortSignal change
   * while it runs synchronously).
   */
  signal?: { readonly aborted: boolean };
}

/** One generated completion. Tokens include the stop token (or the token that completed a stop string). */
export interface SampledSequence {
  tokens: number[];
  /** Model logprob (temperature 1, before top-k/top-p) of each generated token. */
  logprobs: number[];
  stopReason: 'stop' | 'length';
}

/** Result of {@link Sampler.sample}. */
export interface SampleResult {
  sequences: SampledSequence[];
  promptLogprobs?: (number | null)[];
  topkPromptLogprobs?: ([number, number][] | null)[];
}

/** Optional hooks: a decoder for string stop sequences when the model has no tokenizer.json. */
export interface SamplerOptions {
  decode?: (tokens: number[]) => string;
  /**
   * Storage of the projection weights the sampler multiplies by (default `auto`). A 16-bit copy halves the bytes a
   * decode step reads (decode is memory-bound); it is made once per base model and shared by its samplers, next to
   * the f32 weights training uses. `auto`: bf16 (or fp16) when every projection weight is exactly such a value (a
   * checkpoint stored in bf16), so sampling changes no weight; otherwise float32. Forcing `bfloat16` / `float16` on
   * weights that are not rounds them: logprobs then differ from the trainer's (see BENCHMARKS.md, decode).
   */
  weights?: SamplerWeights;
}

/** An incremental detokenizer: push a token, get the text it adds. */
export interface TextStream {
  push(t: number): string;
}

/** A validated request. */
export interface SampleRequest {
  tokens: Int32Array;
  numSamples: number;
  maxTokens: number;
  temperature: number;
  topK: number;
  topP: number;
  topkPromptLogprobs: number;
  includePromptLogprobs: boolean;
  rng: Xoshiro128Rng;
  stopTokens: Set<number>;
  stopStrings: string[];
  /** Length of the longest stop string. */
  maxStop: number;
  /** A new detokenizer per sequence, when there are stop strings. */
  makeStream: (() => TextStream) | null;
  signal: { readonly aborted: boolean } | undefined;
}

/** Checks `prompt` and `opts` against `base`; throws EngineInputError on the first bad value. */
export function parseSampleRequest(
  base: BaseModel,
  prompt: number[] | Int32Array,
  opts: SampleOptions,
  hooks: SamplerOptions,
): SampleRequest {
  const V = base.vocabSize;
  const P = prompt.length;
  const S = opts.numSamples;
  if (!Number.isInteger(S) || S < 1) throw new EngineInputError(`num_samples must be a positive integer, got ${S}`);
  if (P === 0) throw new EngineInputError('prompt is empty');
  if (P >= base.maxContextLength) {
    throw new EngineInputError(`prompt has ${P} tokens; the model's context length is ${base.maxContextLength}`);
  }
  const tokens = Int32Array.from(prompt);
  for (let i = 0; i < P; i++) {
    if (!Number.isInteger(tokens[i]) || tokens[i]! < 0 || tokens[i]! >= V || tokens[i] !== Number(prompt[i])) {
      throw new EngineInputError(`prompt token ${i} = ${prompt[i]} is outside the vocabulary [0, ${V})`);
    }
  }
  const temperature = opts.temperature ?? 1;
  const topK = opts.topK ?? -1;
  const topP = opts.topP ?? 1;
  if (!(temperature >= 0)) throw new EngineInputError(`temperature must be >= 0, got ${temperature}`);
  if (!Number.isInteger(topK) || (topK < 1 && topK !== -1 && topK !== 0)) {
    throw new EngineInputError(`top_k must be -1 (off) or a positive integer, got ${topK}`);
  }
  if (!(topP > 0 && topP <= 1)) throw new EngineInputError(`top_p must be in (0, 1], got ${topP}`);
  const room = base.maxContextLength - P;
  const maxTokens = Math.min(opts.maxTokens ?? room, room);
  if (!Number.isInteger(maxTokens) || maxTokens < 0) {
    throw new EngineInputError(`max_tokens must be a non-negative integer, got ${opts.maxTokens}`);
  }
  const k = opts.topkPromptLogprobs ?? 0;
  if (!Number.isInteger(k) || k < 0) throw new EngineInputError(`topk_prompt_logprobs must be >= 0, got ${k}`);

  const stop = opts.stop;
  let stopTokens: Set<number>;
  let stopStrings: string[] = [];
  if (stop === null || stop === undefined) stopTokens = new Set(base.eosTokenIds);
  else if (typeof stop === 'string') {
    stopTokens = new Set();
    stopStrings = [stop];
  } else if (stop.every((s): s is number => typeof s === 'number')) stopTokens = new Set(stop as number[]);
  else if (stop.every((s): s is string => typeof s === 'string')) {
    stopTokens = new Set();
    stopStrings = stop as string[];
  } else throw new EngineInputError('stop must be a string, a list of strings or a list of token ids');
  stopStrings = stopStrings.filter((s) => s.length > 0);
  let makeStream: (() => TextStream) | null = null;
  if (stopStrings.length > 0) {
    const hook = hooks.decode;
    if (hook) {
      makeStream = () => {
        const toks: number[] = [];
        let prev = '';
        return {
          push(t: number) {
            toks.push(t);
            const s = hook(toks);
            const d = s.startsWith(prev) ? s.slice(prev.length) : s;
            prev = s;
            return d;
          },
        };
      };
    } else if (base.tokenizerDir) {
      const dec = loadTokenDecoder(base.tokenizerDir);
      makeStream = () => dec.stream();
    } else {
      throw new EngineInputError('string stop sequences need a tokenizer: the model has no tokenizer.json');
    }
  }
  return {
    tokens,
    numSamples: S,
    maxTokens,
    temperature,
    topK,
    topP,
    topkPromptLogprobs: k,
    includePromptLogprobs: opts.includePromptLogprobs === true,
    rng: new Xoshiro128Rng(opts.seed ?? randomSeed()),
    stopTokens,
    stopStrings,
    maxStop: stopStrings.reduce((m, s) => Math.max(m, s.length), 0),
    makeStream,
    signal: opts.signal,
  };
}
