import { DataError, ModelInput, tensorFromFloat32, tensorFromInt64, tensorToNumbers } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { distillationDatum, logSumExp, topkTargets } from './topk.js';

// Hand-computed: softmax of (-1, -2, -3) = (1, e⁻¹, e⁻²) / (1 + e⁻¹ + e⁻²).
const Z = 1 + Math.exp(-1) + Math.exp(-2);
const P = [1 / Z, Math.exp(-1) / Z, Math.exp(-2) / Z];

describe('topkTargets', () => {
  it('renormalises the teacher probabilities over the K tokens, scaled by the row weight', () => {
    expect(P[0]).toBeCloseTo(0.665241, 6);
    expect(P[1]).toBeCloseTo(0.244728, 6);
    expect(P[2]).toBeCloseTo(0.090031, 6);
    const t = topkTargets(
      [7, 8],
      [1, 0.5],
      [
        [
          [7, -1],
          [9, -2],
          [4, -3],
        ],
        [
          [8, Math.log(0.5)],
          [3, Math.log(0.25)],
        ],
      ],
      3,
    );
    expect(t.N).toBe(2);
    expect(t.K).toBe(3);
    expect(t.tokens_NK).toEqual([7, 9, 4, 8, 3, 8]);
    // Row 0: the softmax above. Row 1: (0.5, 0.25) renormalise to (2/3, 1/3), × weight 0.5; the pad has weight 0.
    const expected = [P[0]!, P[1]!, P[2]!, 1 / 3, 1 / 6, 0];
    for (const [i, w] of t.weights_NK.entries()) expect(w).toBeCloseTo(expected[i]!, 10);
    // Each row's weights sum to its original weight.
    expect(t.weights_NK.slice(0, 3).reduce((a, b) => a + b)).toBeCloseTo(1, 12);
    expect(t.weights_NK.slice(3).reduce((a, b) => a + b)).toBeCloseTo(0.5, 12);
  });

  it('zeroes the rows whose original weight was 0 and those without a teacher row; keeps the target there', () => {
    const row: [number, number][] = [
      [5, -0.1],
      [6, -3],
    ];
    const t = topkTargets([1, 2, 3], [0, 1, 1], [row, null, row], 2);
    expect(t.tokens_NK).toEqual([1, 1, 2, 2, 5, 6]);
    expect(t.weights_NK.slice(0, 4)).toEqual([0, 0, 0, 0]);
    expect(t.weights_NK[4]! + t.weights_NK[5]!).toBeCloseTo(1, 12);
  });

  it('uses only the first K teacher entries when the teacher gave more', () => {
    const t = topkTargets(
      [1],
      [1],
      [
        [
          [1, -1],
          [2, -2],
          [3, -3],
        ],
      ],
      2,
    );
    expect(t.tokens_NK).toEqual([1, 2]);
    expect(t.weights_NK[0]).toBeCloseTo(1 / (1 + Math.exp(-1)), 12);
  });

  it('refuses mismatched lengths, K < 1 and non-finite logprobs', () => {
    expect(() => topkTargets([1, 2], [1], [null, null], 2)).toThrow(/2 targets but 1 weights and 2 teacher rows/);
    expect(() => topkTargets([1], [1], [null], 0)).toThrow(DataError);
    expect(() => topkTargets([1], [1], [[[1, Number.NaN]]], 1)).toThrow(/row 0 holds a non-finite logprob/);
  });

  it('logSumExp is stable for large magnitudes', () => {
    expect(logSumExp([1000, 1000])).toBeCloseTo(1000 + Math.log(2), 9);
    expect(logSumExp([-1000, -1000])).toBeCloseTo(-1000 + Math.log(2), 9);
    expect(logSumExp([])).toBe(Number.NEGATIVE_INFINITY);
  });
});

describe('distillationDatum', () => {
  const datum = {
    modelInput: ModelInput.fromInts([10, 11, 12]),
    lossFnInputs: { target_tokens: tensorFromInt64([11, 12, 13]), weights: tensorFromFloat32([0, 1, 1]) },
  };

  it('aligns target row t with the teacher entry of sequence token t + 1 and writes (N, K) tensors', () => {
    const teacher = [
      null,
      [
        [11, -0.1],
        [99, -5],
      ],
      [
        [12, -1],
        [98, -1],
      ],
      [
        [13, -2],
        [97, -3],
      ],
    ] as const;
    const out = distillationDatum(
      datum,
      teacher.map((r) => (r === null ? null : r.map((e) => [e[0], e[1]] as const))),
      2,
    );
    expect(out.modelInput.toInts()).toEqual([10, 11, 12]);
    expect(out.lossFnInputs.target_tokens!.shape).toEqual([3, 2]);
    expect(out.lossFnInputs.weights!.shape).toEqual([3, 2]);
    expect(tensorToNumbers(out.lossFnInputs.target_tokens!)).toEqual([11, 11, 12, 98, 13, 97]); // a weight-0 row keeps its own target
    const w = tensorToNumbers(out.lossFnInputs.weights!);
    expect(w.slice(0, 2)).toEqual([0, 0]); // the prompt row keeps weight 0
    expect(w[2]).toBeCloseTo(0.5, 6); // equal teacher logprobs → equal weights
    expect(w[3]).toBeCloseTo(0.5, 6);
    expect(w[4]).toBeCloseTo(1 / (1 + Math.exp(-1)), 6);
  });

  it('names the mismatch when the teacher scored a different number of positions', () => {
    expect(() => distillationDatum(datum, [null, null, null], 2)).toThrow(
      /the teacher returned top-K for 3 positions; the sequence has 4/,
    );
  });
});
