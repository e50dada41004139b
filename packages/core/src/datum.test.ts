import { describe, expect, it } from 'vitest';
import { datumFromModelInputWeights, datumFromTokensWeights, validateDatum } from './datum.js';
import { DataError } from './errors.js';
import { ModelInput } from './model-input.js';

describe('datumFromTokensWeights', () => {
  it('shifts by one: input drops the last token, targets drop the first, weights follow targets', () => {
    const d = datumFromTokensWeights([10, 11, 12, 13], [0, 0, 1, 1]);
    expect(d.modelInput.toInts()).toEqual([10, 11, 12]);
    expect(d.lossFnInputs.target_tokens).toEqual({ data: [11, 12, 13], dtype: 'int64' });
    expect(d.lossFnInputs.weights).toEqual({ data: [0, 1, 1], dtype: 'float32' });
    validateDatum(d);
  });

  it('truncates from the end to maxLength before shifting', () => {
    const d = datumFromTokensWeights([1, 2, 3, 4, 5, 6], [0, 1, 1, 1, 1, 1], 4);
    expect(d.modelInput.toInts()).toEqual([1, 2, 3]);
    expect(d.lossFnInputs.target_tokens?.data).toEqual([2, 3, 4]);
    expect(d.lossFnInputs.weights?.data).toEqual([1, 1, 1]);
  });

  it('mean reduction makes the weights sum to one', () => {
    const d = datumFromTokensWeights([1, 2, 3, 4, 5], [0, 0, 1, 1, 2], undefined, 'mean');
    expect(d.lossFnInputs.weights?.data).toEqual([0, 0.25, 0.25, 0.5]);
  });

  it('keeps all-zero weights as they are under mean reduction', () => {
    const d = datumFromTokensWeights([1, 2, 3], [0, 0, 0], undefined, 'mean');
    expect(d.lossFnInputs.weights?.data).toEqual([0, 0]);
  });

  it('rejects sequences shorter than two tokens and mismatched weights', () => {
    expect(() => datumFromTokensWeights([1], [1])).toThrow(DataError);
    expect(() => datumFromTokensWeights([1, 2, 3], [1, 1])).toThrow(/weights has length 2/);
  });

  it('handles multi-chunk inputs with images: image targets are 0 and trailing images are dropped', () => {
    const mi = new ModelInput([
      { type: 'encoded_text', tokens: [1, 2] },
      { type: 'image', data: '', format: 'png', expected_tokens: 2 },
      { type: 'encoded_text', tokens: [3, 4] },
    ]);
    const d = datumFromModelInputWeights(mi, [0, 0, 0, 0, 1, 1]);
    expect(d.modelInput.length).toBe(5);
    expect(d.modelInput.chunks.at(-1)).toEqual({ type: 'encoded_text', tokens: [3] });
    expect(d.lossFnInputs.target_tokens?.data).toEqual([2, 0, 0, 3, 4]);
    expect(d.lossFnInputs.weights?.data).toEqual([0, 0, 0, 1, 1]);
  });
});

describe('validateDatum', () => {
  it('names the tensor whose length does not match the input', () => {
    const d = datumFromTokensWeights([1, 2, 3], [1, 1, 1]);
    d.lossFnInputs.advantages = { data: [1], dtype: 'float32' };
    expect(() => validateDatum(d, 4)).toThrow(/data\[4\]\.loss_fn_inputs\.advantages.*leading length 1.*2 tokens/);
  });
});
