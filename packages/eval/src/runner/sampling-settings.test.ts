import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arithmeticBenchmark, arithmeticRespond, FakeSampler, renderer } from '../__fixtures__/fake-sampler.js';
import { UPSTREAM_DEFAULTS } from '../native/native-benchmark.js';
import { loadNativeBenchmark } from '../native/registry.js';
import { runBenchmarks } from './run-benchmarks.js';
import { resolveSampling } from './sampling-settings.js';

const unset = { temperature: null, maxTokens: null, concurrency: null, timeoutSeconds: null };
const upstream = {
  name: 'gsm8k',
  samplingDefaults: { temperature: 0.6, maxTokens: 32768, concurrency: 64, timeoutSeconds: 300 },
};

describe('resolveSampling', () => {
  it('applies the benchmark’s defaults where the config leaves a key unset, explicit keys override each', () => {
    expect(resolveSampling(unset, upstream, 'Qwen/Qwen3-8B')).toMatchObject({
      temperature: 0.6,
      maxTokens: 32768,
      concurrency: 64,
      timeoutSeconds: 300,
      fromBenchmark: ['temperature', 'concurrency', 'timeoutSeconds', 'maxTokens'],
    });
    const explicit = { temperature: 0, maxTokens: 100, concurrency: 3, timeoutSeconds: 9 };
    expect(resolveSampling(explicit, upstream, 'Qwen/Qwen3-8B')).toMatchObject({ ...explicit, fromBenchmark: [] });
    expect(resolveSampling({ ...unset, temperature: 1.2 }, upstream, 'Qwen/Qwen3-8B')).toMatchObject({
      temperature: 1.2,
      concurrency: 64,
    });
  });

  it('falls back to this package’s defaults for a benchmark without its own', () => {
    expect(resolveSampling(unset, { name: 'tasks' }, 'Qwen/Qwen3-8B')).toMatchObject({
      temperature: 1,
      maxTokens: 1000,
      concurrency: 16,
      timeoutSeconds: 300,
      fromBenchmark: [],
    });
    expect(resolveSampling(unset, { name: 'tasks' }, 'local/qwen3-tiny').maxTokens).toBe(64);
  });

  it('cuts a benchmark’s max_tokens to the stand-in’s 64 or a model’s context, with a note; never an explicit one', () => {
    const tiny = resolveSampling(unset, upstream, 'local/qwen3-tiny');
    expect(tiny.maxTokens).toBe(64);
    expect(tiny.temperature).toBe(0.6);
    expect(tiny.note).toMatch(/^max_tokens 32768 .* cut to 64 for local\/qwen3-tiny/);
    const long = { name: 'long', samplingDefaults: { maxTokens: 100_000 } };
    const hosted = resolveSampling(unset, long, 'openai/gpt-oss-20b');
    expect(hosted.maxTokens).toBe(32768);
    expect(hosted.note).toMatch(/context length/);
    expect(resolveSampling({ ...unset, maxTokens: 2000 }, upstream, 'local/qwen3-tiny')).toMatchObject({
      maxTokens: 2000,
    });
    expect(resolveSampling(unset, upstream, 'Qwen/Qwen3-8B').note).toBeUndefined();
  });

  it('gives native benchmarks upstream’s defaults', async () => {
    const b = await loadNativeBenchmark('aime_2025:sample');
    expect(b.samplingDefaults).toEqual({
      temperature: UPSTREAM_DEFAULTS.temperature,
      maxTokens: UPSTREAM_DEFAULTS.maxTokens,
      concurrency: UPSTREAM_DEFAULTS.concurrency,
      timeoutSeconds: UPSTREAM_DEFAULTS.timeoutSeconds,
    });
  });
});

describe('runBenchmarks with per-benchmark defaults', () => {
  const own = {
    ...arithmeticBenchmark(3, 'own'),
    samplingDefaults: { temperature: 0.6, maxTokens: 300, concurrency: 1 },
  };
  const plain = arithmeticBenchmark(2, 'plain');
  const go = (logPath: string, extra: Record<string, unknown>, sampler: FakeSampler) =>
    runBenchmarks(
      { behaviorIfLogDirExists: 'resume', modelName: 'fake', logPath, ...extra },
      { benchmarks: [own, plain], samplingClient: sampler, renderer, progress: false, log: () => undefined },
    );

  it('samples each benchmark with its own settings unless the config sets them, and records them', async () => {
    const logPath = mkdtempSync(join(tmpdir(), 'eval-defaults-'));
    const sampler = new FakeSampler(arithmeticRespond, 5);
    await go(logPath, {}, sampler);
    const by = (n: number) => sampler.params.filter((p) => p.user === `What is ${n + 2} + ${2 * n + 1}?`);
    // `own` first (3 samples at 0.6 / 300 tokens, one at a time), then `plain` (package defaults).
    expect(sampler.params.slice(0, 3).map((p) => [p.temperature, p.maxTokens])).toEqual([
      [0.6, 300],
      [0.6, 300],
      [0.6, 300],
    ]);
    expect(sampler.params.slice(3).map((p) => [p.temperature, p.maxTokens])).toEqual([
      [1, 1000],
      [1, 1000],
    ]);
    expect(by(0)).toHaveLength(2);
    const identity = JSON.parse(readFileSync(join(logPath, 'sampling.json'), 'utf8'));
    expect(identity).toMatchObject({
      temperature: 1,
      max_tokens: 1000,
      benchmark_settings: { own: { temperature: 0.6, max_tokens: 300 } },
    });
    expect(identity.benchmark_settings.plain).toBeUndefined();
    // Resuming with a setting that changes `own`'s samples is refused, naming it.
    await expect(go(logPath, { maxTokens: 300 }, new FakeSampler(arithmeticRespond))).rejects.toThrow(
      /plain: \{"temperature":1,"max_tokens":1000\} there, \{"temperature":1,"max_tokens":300\} now/,
    );
    const explicit = new FakeSampler(arithmeticRespond);
    await go(mkdtempSync(join(tmpdir(), 'eval-defaults-')), { temperature: 0.2, maxTokens: 50 }, explicit);
    expect(new Set(explicit.params.map((p) => `${p.temperature}/${p.maxTokens}`))).toEqual(new Set(['0.2/50']));
  });

  it('keeps a benchmark’s concurrency', async () => {
    const sampler = new FakeSampler(arithmeticRespond, 20);
    await runBenchmarks(
      { behaviorIfLogDirExists: 'resume', modelName: 'fake', logPath: mkdtempSync(join(tmpdir(), 'eval-defaults-')) },
      {
        benchmarks: [{ ...arithmeticBenchmark(6), samplingDefaults: { concurrency: 2 } }],
        samplingClient: sampler,
        renderer,
        progress: false,
        log: () => undefined,
      },
    );
    expect(sampler.maxInFlight).toBe(2);
  });
});
