import { describe, expect, it } from 'vitest';
import { ConfigError, DataError } from './errors.js';
import { getLoraParamCount, getLr } from './hyperparams.js';
import { computeScheduleLrMultiplier } from './lr-schedule.js';
import { dictMean, safeZip, splitList } from './misc.js';
import { recordTime, Tracer, timed, traceScope, withTracer } from './timing.js';

describe('safeZip / splitList / dictMean', () => {
  it('zips equal lengths and throws on a mismatch', () => {
    expect(safeZip([1, 2], ['a', 'b'])).toEqual([
      [1, 'a'],
      [2, 'b'],
    ]);
    expect(() => safeZip([1, 2], ['a'])).toThrow(/argument 1 has length 1/);
    expect(() => safeZip([1, 2], ['a'])).toThrow(DataError);
  });
  it('splits near-equally', () => {
    expect(splitList([1, 2, 3, 4, 5], 3)).toEqual([[1, 2], [3, 4], [5]]);
  });
  it('averages keys over the dicts that have them', () => {
    expect(dictMean([{ a: 1, b: 2 }, { a: 3 }])).toEqual({ a: 2, b: 2 });
  });
});

describe('LR schedules', () => {
  it('follows the upstream formulas', () => {
    expect(computeScheduleLrMultiplier('linear', 0, 10)).toBe(1);
    expect(computeScheduleLrMultiplier('linear', 5, 10)).toBeCloseTo(0.5);
    expect(computeScheduleLrMultiplier('cosine', 5, 10)).toBeCloseTo(0.5);
    expect(computeScheduleLrMultiplier('cosine', 10, 10)).toBeCloseTo(0);
    expect(computeScheduleLrMultiplier('constant', 7, 10)).toBe(1);
  });
  it('warms up linearly then decays over the rest', () => {
    expect(computeScheduleLrMultiplier('linear', 0, 12, 2)).toBeCloseTo(0.5);
    expect(computeScheduleLrMultiplier('linear', 1, 12, 2)).toBeCloseTo(1);
    expect(computeScheduleLrMultiplier('linear', 7, 12, 2)).toBeCloseTo(0.5);
  });
  it('rejects a non-positive total', () => {
    expect(() => computeScheduleLrMultiplier('linear', 0, 0)).toThrow(ConfigError);
  });
});

describe('getLr / getLoraParamCount', () => {
  it('matches upstream examples', () => {
    expect(getLr('meta-llama/Llama-3.1-8B')).toBeCloseTo(2.86e-4, 6);
    expect(getLr('meta-llama/Llama-3.2-1B')).toBeCloseTo(4.91e-4, 6);
    expect(getLr('Qwen/Qwen3-8B')).toBeCloseTo(4.73e-4, 6);
    expect(getLr('Qwen/Qwen3-8B', { isLora: false })).toBeCloseTo(4.73e-5, 7);
  });
  it('refuses unknown or unsupported models with a clear error', () => {
    expect(() => getLr('openai/gpt-oss-20b')).toThrow(/set learning_rate explicitly/);
    expect(() => getLr('acme/unknown')).toThrow(/Known: /);
  });
  it('counts rank × Σ(in + out) over the adapted matrices', () => {
    const shape = {
      hidden_size: 8,
      intermediate_size: 16,
      num_hidden_layers: 2,
      num_attention_heads: 2,
      num_key_value_heads: 1,
      head_dim: 4,
      vocab_size: 100,
    };
    // attn per layer: q (8+8) + k (8+4) + v (8+4) + o (8+8) = 56; mlp: 3 × (8+16) = 72; unembed: 108
    expect(getLoraParamCount(shape, { rank: 2 })).toBe(2 * ((56 + 72) * 2 + 108));
    expect(getLoraParamCount(shape, { rank: 1, trainMlp: false, trainUnembed: false })).toBe(112);
    expect(getLoraParamCount('meta-llama/Llama-3.2-1B', { rank: 32 })).toBeGreaterThan(1e7);
  });
});

describe('timing', () => {
  it('timed adds time/<name> and traceScope records nested spans', async () => {
    const metrics: Record<string, number> = {};
    const tracer = new Tracer();
    await withTracer(tracer, async () => {
      await timed('step', metrics, async () => {
        await traceScope('inner', () => new Promise((r) => setTimeout(r, 5)));
      });
    });
    expect(metrics['time/step']).toBeGreaterThan(0.004);
    expect(tracer.spans.map((s) => [s.name, s.depth])).toEqual([
      ['inner', 1],
      ['step', 0],
    ]);
    expect(tracer.toTraceEvents()[0]).toMatchObject({ ph: 'X', name: 'inner' });
  });

  it('recordTime stores time/<name> and, under a tracer, the same interval as a span; bounded tracers count drops', async () => {
    const metrics: Record<string, number> = {};
    // A start whose sums with the durations below are exact in binary (performance.now()'s fractions are not: t0 +
    // 1500 − t0 can come out as 1499.9999999999998).
    const t0 = 1024;
    expect(recordTime(metrics, 'sample', t0, t0 + 1500)).toBe(1.5);
    expect(metrics['time/sample']).toBe(1.5);
    const tracer = new Tracer(2);
    await withTracer(tracer, async () => {
      recordTime(metrics, 'train', t0, t0 + 250);
      await traceScope('outer', async () => {
        recordTime(metrics, 'inner', t0, t0 + 1);
      });
      recordTime(metrics, 'late', t0, t0 + 1);
    });
    expect(metrics['time/train']).toBe(0.25);
    expect(tracer.spans.map((s) => [s.name, s.depth, s.dur])).toEqual([
      ['train', 0, 250_000],
      ['inner', 1, 1000],
    ]);
    expect(tracer.spans[0]!.ts).toBeCloseTo((performance.timeOrigin + t0) * 1000, 0);
    const taken = tracer.take();
    expect(taken.spans).toHaveLength(2);
    expect(taken.dropped).toBe(2);
    expect(tracer.take()).toEqual({ spans: [], dropped: 0 });
  });
});
