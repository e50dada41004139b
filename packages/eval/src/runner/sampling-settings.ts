/**
 * The sampling settings one benchmark of an eval is drawn with: each of temperature, `max_tokens`, concurrency and the
 * per-sample timeout is the config's value when given, else the benchmark's own default (upstream's per-benchmark
 * defaults for the native benchmarks: temperature 0.6, 32768 tokens, 64 in flight, 300 s), else this package's
 * default (temperature 1, 1000 tokens — 64 for the built-in `local/*` models —, 16 in flight, 300 s).
 *
 * A benchmark's `max_tokens` default is bounded by what the model can do: for a built-in `local/*` model (the tiny
 * offline stand-in, whose replies carry no signal past a few dozen tokens) it is cut to that model's default (64), and
 * for another model to its context length when the catalog knows it. Each cut comes with a note the eval logs. An
 * explicit `max_tokens` is never cut.
 */
import { findModel, resolveModelRef } from '@cookbook/core';
import type { Benchmark } from '../benchmark.js';

/** This package's defaults, used where neither the config nor the benchmark sets a value. */
export const PACKAGE_SAMPLING_DEFAULTS = { temperature: 1, concurrency: 16, timeoutSeconds: 300 } as const;

/** The `max_tokens` used when neither the config nor the benchmark sets one: 64 for built-in models, else 1000. */
export function defaultMaxTokens(modelName: string): number {
  return resolveModelRef(modelName).kind === 'built-in' ? 64 : 1000;
}

/** The config keys that may be left to the benchmark (null = unset). */
export interface SamplingOverrides {
  temperature: number | null;
  maxTokens: number | null;
  concurrency: number | null;
  timeoutSeconds: number | null;
}

/** The settings a benchmark is sampled with, and where each came from. */
export interface ResolvedSampling {
  temperature: number;
  maxTokens: number;
  concurrency: number;
  timeoutSeconds: number;
  /** Which keys came from the benchmark's defaults (for the log line). */
  fromBenchmark: readonly ('temperature' | 'maxTokens' | 'concurrency' | 'timeoutSeconds')[];
  /** Set when the benchmark's `max_tokens` was cut to what the model can do: what to add to the log line. */
  note?: string;
}

/** The settings `benchmark` is sampled with under `config` for the model `baseModel`; see the module comment. */
export function resolveSampling(
  config: SamplingOverrides,
  benchmark: Pick<Benchmark, 'name' | 'samplingDefaults'>,
  baseModel: string,
): ResolvedSampling {
  const own = benchmark.samplingDefaults ?? {};
  const fromBenchmark: ResolvedSampling['fromBenchmark'][number][] = [];
  const pick = <K extends 'temperature' | 'concurrency' | 'timeoutSeconds'>(key: K): number => {
    const given = config[key];
    if (given !== null) return given;
    const recommended = own[key];
    if (recommended !== undefined) {
      fromBenchmark.push(key);
      return recommended;
    }
    return PACKAGE_SAMPLING_DEFAULTS[key];
  };
  const temperature = pick('temperature');
  const concurrency = pick('concurrency');
  const timeoutSeconds = pick('timeoutSeconds');
  let maxTokens: number;
  let note: string | undefined;
  if (config.maxTokens !== null) maxTokens = config.maxTokens;
  else if (own.maxTokens !== undefined) {
    fromBenchmark.push('maxTokens');
    maxTokens = own.maxTokens;
    const cap =
      resolveModelRef(baseModel).kind === 'built-in'
        ? defaultMaxTokens(baseModel)
        : findModel(baseModel)?.contextLength;
    if (cap !== undefined && maxTokens > cap) {
      note =
        `max_tokens ${maxTokens} (the benchmark's default) cut to ${cap} for ${baseModel} ` +
        `(${resolveModelRef(baseModel).kind === 'built-in' ? 'the built-in stand-in model' : 'its context length'}); ` +
        'pass max_tokens to choose';
      maxTokens = cap;
    }
  } else maxTokens = defaultMaxTokens(baseModel);
  return { temperature, maxTokens, concurrency, timeoutSeconds, fromBenchmark, ...(note ? { note } : {}) };
}
