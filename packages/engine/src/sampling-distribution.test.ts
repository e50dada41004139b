/**
 * The sampler draws from the distribution transformers' logits processors define (temperature, top-k, then top-p
 * over what top-k kept): its probability vector matches a fixture written with them, and seeded draws — on the
 * native kernel's fast path when the addon is there, see `sampling-distribution-js.test.ts` for the pure-TS one —
 * agree with it within a statistical bound. (Regression: the fast path could ignore `temperature` and every test
 * passed.)
 */
import { describe, expect, it } from 'vitest';
import { nativeGate } from './__fixtures__/native-gate.js';
import { DRAW_SETTINGS, expectDrawsMatch, WARPERS, warperCase } from './__fixtures__/sampling-check.js';
import { nativeOps } from './kernels/kernel.js';
import { TokenPicker } from './token-picker.js';

describe("the sampler's probabilities are transformers' logits processors'", () => {
  it('every fixture case (3 rows, 10 settings of temperature / top_k / top_p): the same vector within float32 rounding, the same tokens filtered out', () => {
    const picker = new TokenPicker();
    for (const c of WARPERS.cases) {
      const row = Float32Array.from(WARPERS.rows[c.row]!);
      const got = picker.distribution(row, row.length, c.temperature, c.top_k, c.top_p);
      const where = `row ${c.row}, T ${c.temperature}, top_k ${c.top_k}, top_p ${c.top_p}`;
      expect(
        Array.from(got, (p) => p === 0),
        where,
      ).toEqual(c.probs.map((p) => p === 0));
      for (let v = 0; v < row.length; v++) expect(got[v], `${where}, token ${v}`).toBeCloseTo(c.probs[v]!, 6);
    }
  });

  it('temperature 0 is the argmax', () => {
    const row = Float32Array.from(WARPERS.rows[0]!);
    const got = new TokenPicker().distribution(row, row.length, 0, 0, 1);
    const best = row.indexOf(Math.max(...row));
    expect(got[best]).toBe(1);
    expect(got.reduce((a, b) => a + b, 0)).toBe(1);
  });
});

const gate = nativeGate();
describe('seeded draws agree with the fixture’s distribution', () => {
  it.runIf(gate.run)(
    '[native addon] on the fast path (temperature alone) and the filtered one: 8 settings × 20,000 draws',
    () => {
      gate.addon();
      expect(nativeOps()).not.toBeNull();
      for (const [i, [t, k, p]] of DRAW_SETTINGS.entries()) expectDrawsMatch(warperCase(0, t, k, p), 20_000, 100 + i);
    },
  );
});
