import { describe, expect, it } from 'vitest';
import { DatumSchema, EncodedTextChunkSchema, SamplingParamsSchema } from './data-types.js';

describe('long lists are refused at their first bad element (regression: one issue per element, hundreds of MB)', () => {
  it('200,000 string tokens: one issue naming index 0', () => {
    const r = EncodedTextChunkSchema.safeParse({ type: 'encoded_text', tokens: Array(200_000).fill('a') });
    expect(r.success).toBe(false);
    expect(r.error?.issues).toHaveLength(1);
    expect(r.error?.issues[0]).toMatchObject({ path: ['tokens', 0], message: 'expected an integer, got "a"' });
  });

  it('tensor data, shape and stop lists alike; the first bad index is the one named', () => {
    const datum = DatumSchema.safeParse({
      model_input: { chunks: [{ tokens: [1, 2] }] },
      loss_fn_inputs: { weights: { data: [1, 2, ...Array(100_000).fill(null)], dtype: 'float32' } },
    });
    expect(datum.error?.issues).toHaveLength(1);
    expect(datum.error?.issues[0]?.path).toEqual(['loss_fn_inputs', 'weights', 'data', 2]);
    const shape = DatumSchema.safeParse({
      model_input: { chunks: [] },
      loss_fn_inputs: { weights: { data: [1], dtype: 'float32', shape: [1, -1, -1] } },
    });
    expect(shape.error?.issues[0]?.message).toBe('expected a non-negative integer, got -1');
    const stop = SamplingParamsSchema.safeParse({ stop: Array(100_000).fill({}) });
    expect(stop.success).toBe(false);
    expect(stop.error?.issues.length).toBeLessThan(10);
    expect(SamplingParamsSchema.parse({ stop: [1, 2] }).stop).toEqual([1, 2]);
    expect(SamplingParamsSchema.parse({ stop: ['a'] }).stop).toEqual(['a']);
  });
});
