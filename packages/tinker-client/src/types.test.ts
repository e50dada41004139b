import { ADAM_PARAMS_DEFAULTS } from '@cookbook/tinker-wire';
import { describe, expect, it } from 'vitest';
import { adamParamsToWire } from './types.js';

describe('adamParamsToWire', () => {
  it("sends every field, an absent one as the protocol's default (as the SDK does)", () => {
    expect(adamParamsToWire({})).toEqual(ADAM_PARAMS_DEFAULTS);
    expect(
      adamParamsToWire({ learningRate: 3e-4, beta2: 0.99, eps: 1e-8, weightDecay: 0.01, gradClipNorm: 1 }),
    ).toEqual({ learning_rate: 3e-4, beta1: 0.9, beta2: 0.99, eps: 1e-8, weight_decay: 0.01, grad_clip_norm: 1 });
  });
});
