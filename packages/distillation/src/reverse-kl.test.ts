import { type Datum, ModelInput, tensorFromFloat32, tensorFromInt64, tensorToNumbers } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { incorporateTeacherKl, reverseKlAdvantages } from './reverse-kl.js';

describe('reverseKlAdvantages', () => {
  // Hand-computed: rkl = mask · (sampled − teacher) = [0, −2 − (−3), −0.5 − (−0.2)] = [0, 1, −0.3].
  const sampled = [-1, -2, -0.5];
  const teacher = [-1.5, -3, -0.2];
  const mask = [0, 1, 1];

  it('subtracts coef × reverse KL on action tokens; observation tokens keep their advantage', () => {
    const r = reverseKlAdvantages(sampled, teacher, mask, [0.5, 0.5, 0.5], 2);
    expect(r.advantages_T[0]).toBe(0.5);
    expect(r.advantages_T[1]).toBeCloseTo(0.5 - 2 * 1, 12);
    expect(r.advantages_T[2]).toBeCloseTo(0.5 - 2 * -0.3, 12);
    expect(r.klSum).toBeCloseTo(0.7, 12);
    expect(r.count).toBe(2);
  });

  it('with a discount each token answers for the discounted reverse KL that follows it', () => {
    // γ = 0.5: penalty_2 = −0.3; penalty_1 = 1 + 0.5·(−0.3) = 0.85; token 0 is masked out.
    const r = reverseKlAdvantages(sampled, teacher, mask, [0, 0, 0], 1, 0.5);
    expect(r.advantages_T[0]).toBe(0);
    expect(r.advantages_T[1]).toBeCloseTo(-0.85, 12);
    expect(r.advantages_T[2]).toBeCloseTo(0.3, 12);
  });

  it('a student that samples what the teacher would is not penalised', () => {
    const r = reverseKlAdvantages([-0.3, -0.7], [-0.3, -0.7], [1, 1], [0, 0], 1);
    expect(r.advantages_T).toEqual([0, 0]);
    expect(r.klSum).toBe(0);
  });

  it('refuses mismatched lengths and a missing teacher logprob on an action token', () => {
    expect(() => reverseKlAdvantages([0, 0], [0], [1, 1], [0, 0], 1)).toThrow(/2 sampled logprobs but 1 teacher/);
    expect(() => reverseKlAdvantages([0], [null], [1], [0], 1)).toThrow(/no logprob for action token 0/);
    // A masked-out position may lack one (the first token of a sequence has none).
    expect(reverseKlAdvantages([0], [null], [0], [0], 1).advantages_T).toEqual([0]);
  });
});

function rlDatum(tokens: number[], sampled: number[], mask: number[]): Datum {
  return {
    modelInput: ModelInput.fromInts(tokens.slice(0, -1)),
    lossFnInputs: {
      target_tokens: tensorFromInt64(tokens.slice(1)),
      logprobs: tensorFromFloat32(sampled),
      advantages: tensorFromFloat32(sampled.map(() => 0)),
      mask: tensorFromFloat32(mask),
    },
  };
}

/** A teacher whose logprob of token x is −x/10 (first entry null, as a real prompt_logprobs). */
function fakeTeacher(scale: number) {
  const seen: number[][] = [];
  return {
    seen,
    computeLogprobs: async (prompt: ModelInput) => {
      const ints = prompt.toInts();
      seen.push(ints);
      return [null, ...ints.slice(1).map((x) => (-x / 10) * scale)];
    },
  };
}

describe('incorporateTeacherKl', () => {
  it("scores each datum's full sequence with its dataset's teacher and reports teacher_kl per dataset", async () => {
    const a = rlDatum([1, 2, 3], [-0.5, -0.5], [0, 1]);
    const b = rlDatum([4, 5, 6], [-0.1, -0.1], [1, 1]);
    const t0 = fakeTeacher(1);
    const t1 = fakeTeacher(2);
    const metrics = await incorporateTeacherKl([a, b], [0, 1], [t0, t1], { coef: 1, concurrency: 1 });
    expect(t0.seen).toEqual([[1, 2, 3]]);
    expect(t1.seen).toEqual([[4, 5, 6]]);
    // a: action token 3, teacher −0.3 → rkl = −0.5 + 0.3 = −0.2. b: teacher −1.0, −1.2 → rkl 0.9, 1.1.
    expect(tensorToNumbers(a.lossFnInputs.advantages!)[1]).toBeCloseTo(0.2, 6);
    expect(tensorToNumbers(b.lossFnInputs.advantages!)[0]).toBeCloseTo(-0.9, 6);
    expect(tensorToNumbers(b.lossFnInputs.advantages!)[1]).toBeCloseTo(-1.1, 6);
    expect(metrics['teacher_kl/dataset_0']).toBeCloseTo(-0.2, 6);
    expect(metrics['teacher_kl/dataset_1']).toBeCloseTo(1.0, 6);
    expect(metrics.teacher_kl).toBeCloseTo((-0.2 + 0.9 + 1.1) / 3, 6);
  });
});
