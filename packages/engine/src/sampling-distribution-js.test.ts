/**
 * `sampling-distribution.test.ts` on the pure-TS kernel (what a machine without the native addon runs): seeded draws
 * at temperature 0.5 and 1.5, alone and with top-k / top-p, agree with transformers' logits processors.
 */
import { describe, expect, it } from 'vitest';
import { DRAW_SETTINGS, expectDrawsMatch, warperCase } from './__fixtures__/sampling-check.js';
import { nativeOps } from './kernels/kernel.js';

// Read once per thread, at the first kernel use (vitest runs each file in its own module graph).
process.env.COOKBOOK_KERNEL = 'js';

describe('seeded draws on the pure-TS kernel agree with the fixture’s distribution', () => {
  it('8 settings × 20,000 draws, on two rows', () => {
    expect(nativeOps()).toBeNull();
    for (const row of [0, 1]) {
      for (const [i, [t, k, p]] of DRAW_SETTINGS.entries()) {
        expectDrawsMatch(warperCase(row, t, k, p), 20_000, 200 + 10 * row + i);
      }
    }
  });
});
