import { describe, expect, it } from 'vitest';
import { EngineInputError } from './errors.js';
import { type EngineDatum, validateBatch } from './losses.js';

const model = { vocabSize: 100, maxContextLength: 16 };

function datum(lossFnInputs: EngineDatum['lossFnInputs']): EngineDatum {
  return { tokens: [1, 2, 3], lossFnInputs: { target_tokens: { data: [2, 3, 4], dtype: 'int64' }, ...lossFnInputs } };
}

describe('validateBatch (the one validation of a batch, the local service included)', () => {
  it('accepts a well-formed batch', () => {
    expect(() =>
      validateBatch(
        [datum({ weights: { data: [1, 1, 0], shape: [3], dtype: 'float32' } })],
        'cross_entropy',
        {},
        model,
      ),
    ).not.toThrow();
  });

  it('refuses a tensor whose shape does not hold its data', () => {
    const bad = datum({ weights: { data: [1, 1, 0], shape: [4], dtype: 'float32' } });
    expect(() => validateBatch([bad], 'cross_entropy', {}, model)).toThrow(EngineInputError);
    expect(() => validateBatch([bad], 'cross_entropy', {}, model)).toThrow(
      'data[0]: weights has shape [4] (4 values) but 3 values',
    );
  });

  it('refuses values that are not finite or do not fit the dtype, naming the element', () => {
    const huge = datum({ weights: { data: [1, 1e300, 0], dtype: 'float32' } });
    expect(() => validateBatch([huge], 'cross_entropy', {}, model)).toThrow(
      /^data\[0\]\.loss_fn_inputs\.weights\.data\[1\] = 1e\+300: a float32 value must be finite/,
    );
    const nan = datum({ weights: { data: [1, Number.NaN, 0], dtype: 'float32' } });
    expect(() => validateBatch([nan], 'cross_entropy', {}, model)).toThrow(/weights\.data\[1\] = NaN/);
    const unsafe = datum({ weights: { data: [1, 2 ** 60, 0], dtype: 'int64' } });
    expect(() => validateBatch([unsafe], 'cross_entropy', {}, model)).toThrow(/an int64 value must be finite/);
  });
});
