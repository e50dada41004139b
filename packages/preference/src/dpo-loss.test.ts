import { type Datum, ModelInput, tensorFromFloat32, tensorFromInt64 } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { pairAccuracy } from './dpo-evaluator.js';
import { dpoFromSequenceLogprobs, dpoLoss, negLogSigmoid, sigmoid, weightedSum } from './dpo-loss.js';

function datum(weights: number[]): Datum {
  return {
    modelInput: ModelInput.fromInts(weights.map((_, i) => i + 1)),
    lossFnInputs: {
      target_tokens: tensorFromInt64(weights.map((_, i) => i + 2)),
      weights: tensorFromFloat32(weights),
    },
  };
}

describe('DPO loss', () => {
  it('is ln 2 with zero gradient share split evenly when the policy equals the reference', () => {
    const r = dpoFromSequenceLogprobs([-3, -7], [-5, -2], [-3, -7], [-5, -2], 0.1);
    expect(r.dpo_loss).toBeCloseTo(Math.LN2, 12);
    expect(r.accuracy).toBe(0);
    expect(r.margin).toBe(0);
    // dL/dΔ = −β(1 − σ(0))/n = −0.1 · 0.5 / 2
    expect(r.dLossDMargin).toEqual([-0.025, -0.025]);
  });

  it('matches hand-computed loss and metrics', () => {
    // pair 0: r_c = −1 − (−2) = 1, r_r = −4 − (−3) = −1 → β(r_c − r_r) = 0.5·2 = 1
    // pair 1: r_c = −5 − (−4) = −1, r_r = −2 − (−3) = 1 → β(r_c − r_r) = −1
    const r = dpoFromSequenceLogprobs([-1, -5], [-4, -2], [-2, -4], [-3, -3], 0.5);
    const l0 = Math.log(1 + Math.exp(-1)); // −log σ(1)
    const l1 = Math.log(1 + Math.exp(1)); // −log σ(−1)
    expect(r.dpo_loss).toBeCloseTo((l0 + l1) / 2, 12);
    expect(r.accuracy).toBe(0.5);
    expect(r.chosen_reward).toBeCloseTo((0.5 * 1 + 0.5 * -1) / 2, 12);
    expect(r.rejected_reward).toBeCloseTo((0.5 * -1 + 0.5 * 1) / 2, 12);
    expect(r.margin).toBeCloseTo(0, 12);
    expect(r.num_pairs).toBe(2);
    expect(r.dLossDMargin[0]).toBeCloseTo((-0.5 * (1 - 1 / (1 + Math.exp(-1)))) / 2, 12);
  });

  it('gives per-token gradients β(1−σ)·w/n, negative on chosen tokens and positive on rejected ones', () => {
    const data = [datum([0, 1, 1]), datum([0, 0, 2])];
    const logprobs = [Float32Array.from([-9, -1, -1]), Float32Array.from([-9, -9, -1])];
    // π_c = −2, π_r = −2 (weight 2 on −1); refs −2 and −1 → r_c = 0, r_r = −1, Δ = 1
    const out = dpoLoss(data, logprobs, [-2, -1], 1);
    expect(out.loss).toBeCloseTo(Math.log(1 + Math.exp(-1)), 6);
    const g = -(1 - sigmoid(1));
    expect(Array.from(out.gradLogprobs[0]!)).toEqual([0, g, g].map((x) => Math.fround(x)));
    expect(Array.from(out.gradLogprobs[1]!)).toEqual([0, 0, -2 * g].map((x) => Math.fround(x)));
    expect(out.metrics.accuracy).toBe(1);
  });

  it('agrees with a finite difference of the loss', () => {
    const data = [datum([1, 1]), datum([1, 0.5]), datum([0, 1]), datum([1, 1])];
    const lp = [
      [-1.2, -0.3],
      [-0.7, -2],
      [-3, -0.1],
      [-0.4, -0.9],
    ];
    const ref = [-1, -2.1, -0.5, -1.6];
    const f = (x: number[][]) =>
      dpoLoss(
        data,
        x.map((r) => Float64Array.from(r)),
        ref,
        0.3,
      ).loss;
    const grad = dpoLoss(
      data,
      lp.map((r) => Float64Array.from(r)),
      ref,
      0.3,
    ).gradLogprobs;
    const h = 1e-6;
    for (let i = 0; i < lp.length; i++) {
      for (let t = 0; t < 2; t++) {
        const up = lp.map((r) => [...r]);
        const down = lp.map((r) => [...r]);
        up[i]![t]! += h;
        down[i]![t]! -= h;
        expect(grad[i]![t]!).toBeCloseTo((f(up) - f(down)) / (2 * h), 5);
      }
    }
  });

  it('refuses an odd number of datums and mismatched reference counts', () => {
    expect(() => dpoLoss([datum([1])], [[0]], [0], 0.1)).toThrow(/odd count of 1 datums/);
    expect(() => dpoLoss([datum([1]), datum([1])], [[0], [0]], [0], 0.1)).toThrow(/1 reference logprobs/);
  });

  it('computes −log σ and σ without overflow', () => {
    expect(negLogSigmoid(0)).toBeCloseTo(Math.LN2, 15);
    expect(negLogSigmoid(1000)).toBe(0);
    expect(negLogSigmoid(-1000)).toBe(1000);
    expect(sigmoid(-1000)).toBe(0);
    expect(weightedSum([1, 2, 3], [0, 1, 2])).toBe(8);
  });
});

describe('pairAccuracy', () => {
  it('counts a pair right, wrong, or half when the rewards tie within float noise', () => {
    // rewards: pair 0 r_c − r_r = 1 (right), pair 1 = −1 (wrong), pair 2 = 1e-5 (tie)
    const policy = [0, -1, -2, -1, -3, -3];
    const ref = [-1, -1, -2, -2, -3, -3.00001];
    expect(pairAccuracy(policy, ref)).toBeCloseTo((1 + 0 + 0.5) / 3, 12);
    expect(pairAccuracy([], [])).toBe(0);
  });
});
