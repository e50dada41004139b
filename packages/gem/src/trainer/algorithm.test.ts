import { Sfc32Rng, tensorToNumbers } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { discountedReturns, rebn, samplerLearnerMetrics, subsample, transitionDatum } from './algorithm.js';
import { applyTemplate } from './templates.js';
import { episodeSeed } from './train.js';

describe('discounted returns', () => {
  it('sums rewards backwards with gamma, per turn', () => {
    // r = [0, 0, 1], gamma 0.9: G2 = 1, G1 = 0.9, G0 = 0.81.
    const g = discountedReturns([0, 0, 1], 0.9);
    expect(g[0]).toBeCloseTo(0.81, 12);
    expect(g[1]).toBeCloseTo(0.9, 12);
    expect(g[2]).toBe(1);
    // Dense rewards: r = [0.5, -0.1], gamma 0.5 → G1 = -0.1, G0 = 0.5 - 0.05 = 0.45.
    const h = discountedReturns([0.5, -0.1], 0.5);
    expect(h[0]).toBeCloseTo(0.45, 12);
    expect(h[1]).toBeCloseTo(-0.1, 12);
    expect(discountedReturns([1, 1], 1)).toEqual([2, 1]);
    expect(discountedReturns([], 0.9)).toEqual([]);
  });
});

describe('ReBN', () => {
  it('normalises with the unbiased std over all transitions', () => {
    // G = [1, 2, 3, 6]: mean 3, unbiased var (4 + 1 + 0 + 9) / 3 = 14/3, std = 2.1602469…
    const a = rebn([1, 2, 3, 6]);
    const std = Math.sqrt(14 / 3);
    expect(a[0]).toBeCloseTo(-2 / std, 6);
    expect(a[1]).toBeCloseTo(-1 / std, 6);
    expect(a[2]).toBeCloseTo(0, 6);
    expect(a[3]).toBeCloseTo(3 / std, 6);
  });

  it('gives 0 (not NaN) for one transition and for equal returns', () => {
    expect(rebn([0.7])).toEqual([0]);
    expect(rebn([0.5, 0.5, 0.5])).toEqual([0, 0, 0]);
    // Eight format errors: the float mean of −0.1s is not exactly −0.1; the advantages must still be exactly 0.
    const flat = Array.from({ length: 8 }, () => -0.1);
    expect(flat.reduce((a, b) => a + b, 0) / 8).not.toBe(-0.1);
    expect(rebn(flat)).toEqual(flat.map(() => 0));
    expect(rebn(discountedReturns([0, -0.1], 0.9).concat([-0.1]))[1]).not.toBe(0);
    expect(rebn([])).toEqual([]);
  });
});

describe('subsample', () => {
  it('draws exactly k distinct items, reproducibly from the seed', () => {
    const items = Array.from({ length: 20 }, (_, i) => i);
    const a = subsample(items, 8, new Sfc32Rng(5));
    expect(a).toHaveLength(8);
    expect(new Set(a).size).toBe(8);
    expect(subsample(items, 8, new Sfc32Rng(5))).toEqual(a);
    expect(subsample(items, 8, new Sfc32Rng(6))).not.toEqual(a);
    expect(subsample(items.slice(0, 3), 8, new Sfc32Rng(5))).toEqual([0, 1, 2]);
  });
});

describe('transitionDatum', () => {
  it('shifts by one and puts the advantage on the action tokens only', () => {
    const d = transitionDatum({ obsTokens: [10, 11, 12], actTokens: [20, 21], actLogprobs: [-0.5, -1.5] }, 0.75);
    expect(d.modelInput.toInts()).toEqual([10, 11, 12, 20]);
    expect(tensorToNumbers(d.lossFnInputs.target_tokens!)).toEqual([11, 12, 20, 21]);
    expect(tensorToNumbers(d.lossFnInputs.logprobs!)).toEqual([0, 0, -0.5, -1.5]);
    expect(tensorToNumbers(d.lossFnInputs.advantages!)).toEqual([0, 0, 0.75, 0.75]);
    expect(() => transitionDatum({ obsTokens: [1], actTokens: [2], actLogprobs: [] }, 1)).toThrow(/logprobs/);
  });
});

describe('diagnostics', () => {
  it('computes kl v1/v2 and the entropy proxy over action tokens', () => {
    // Learner logprobs cover every target position; the last |act| are the action's.
    const m = samplerLearnerMetrics(
      [
        transitionDatum({ obsTokens: [1, 2], actTokens: [3, 4], actLogprobs: [-1, -2] }, 1),
        transitionDatum({ obsTokens: [1, 2], actTokens: [3], actLogprobs: [-3] }, 1),
      ],
      [
        [-9, -1.5, -1.5],
        [-9, -2],
      ],
    );
    // d = [0.5, -0.5, -1]: v1 = -1/3, v2 = 0.5 * (0.25 + 0.25 + 1) / 3 = 0.25, entropy = 6/3 = 2.
    expect(m.klV1).toBeCloseTo(-1 / 3, 12);
    expect(m.klV2).toBeCloseTo(0.25, 12);
    expect(m.tokenEntropy).toBeCloseTo(2, 12);
  });
});

describe('templates and seeds', () => {
  it('writes the seed templates verbatim', () => {
    expect(applyTemplate('qwen3_general', 'What is 2+2?')).toBe(
      '<|im_start|>user\nQuestion: What is 2+2?\nPlease reason step by step, and put your final answer within \\boxed{}.<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(applyTemplate('qwen3_game', 'obs')).toBe(
      '<|im_start|>user\nYou are playing language games. Make valid actions to win.\nObservation: obs\nPlease reason step by step, and put your final answer within \\boxed{}.<|im_end|>\n<|im_start|>assistant\n',
    );
    expect(applyTemplate('no', 'raw')).toBe('raw');
  });

  it('derives distinct, stable episode seeds', () => {
    const seen = new Set<number>();
    for (let step = 0; step < 5; step++)
      for (let round = 0; round < 5; round++)
        for (let env = 0; env < 8; env++) seen.add(episodeSeed(0, step, round, env));
    expect(seen.size).toBe(200);
    expect(episodeSeed(3, 1, 2, 3)).toBe(episodeSeed(3, 1, 2, 3));
  });
});
