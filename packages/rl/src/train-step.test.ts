/** What the RL step sends a built-in loss: only the inputs the hosted service takes. */
import { type Datum, ModelInput, TrainingError, tensorFromFloat32, tensorFromInt64 } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { removeMask } from './data-processing.js';
import { hostedDatum } from './train-step.js';

function datum(extra: Record<string, number[]> = {}): Datum {
  return {
    modelInput: ModelInput.fromInts([1, 2]),
    lossFnInputs: {
      target_tokens: tensorFromInt64([2, 3]),
      logprobs: tensorFromFloat32([0, -0.5]),
      advantages: tensorFromFloat32([0, 0.25]),
      mask: tensorFromFloat32([0, 1]),
      ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, tensorFromFloat32(v)])),
    },
  };
}

describe('hostedDatum', () => {
  it('passes a policy datum without its mask as it is', () => {
    const d = removeMask(datum());
    expect(hostedDatum(d, 'ppo')).toBe(d);
    expect(Object.keys(d.lossFnInputs).sort()).toEqual(['advantages', 'logprobs', 'target_tokens']);
  });

  it('refuses an input the hosted loss does not take, naming the datum, the key and the loss', () => {
    const d = removeMask(datum({ weights: [0, 0.5] }));
    expect(() => hostedDatum(d, 'importance_sampling', 3)).toThrow(TrainingError);
    expect(() => hostedDatum(d, 'importance_sampling', 3)).toThrow(
      'datum 3: loss_fn_inputs.weights is not an input the hosted importance_sampling loss takes',
    );
    // cross_entropy takes weights on the hosted service.
    const ce: Datum = {
      modelInput: d.modelInput,
      lossFnInputs: { target_tokens: d.lossFnInputs.target_tokens!, weights: d.lossFnInputs.weights! },
    };
    expect(hostedDatum(ce, 'cross_entropy')).toBe(ce);
  });
});
