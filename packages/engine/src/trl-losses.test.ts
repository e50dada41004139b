/**
 * The built-in policy losses against TRL: per-token loss and ∂L/∂lp on a ragged batch whose policy logprobs differ
 * from the sampler's (ratios ≈ 0.4 … 2.5), with a zero-advantage group and tokens on both sides of every clip bound.
 * The fixture is written by `scripts/trl-loss-fixtures.py` (TRL's `GRPOTrainer._compute_loss` on these tensors; dro
 * from the hosted docs' formula in PyTorch); this test only reads it.
 */
import { readFileSync } from 'node:fs';
import { BUILTIN_LOSSES, type LossFnType } from '@cookbook/tinker-wire';
import { describe, expect, it } from 'vitest';
import { type EngineDatum, prepareDatum, resolveLossConfig, segmentLoss } from './losses.js';

interface Case {
  name: string;
  loss_fn: LossFnType;
  loss_fn_config: Record<string, number>;
  note: string;
  weights: number[][];
  loss: number;
  token_loss: number[][];
  grad: number[][];
}
interface Fixture {
  versions: { trl: string; torch: string };
  lengths: number[];
  advantages: number[];
  sampler_logprobs: number[][];
  logprobs: number[][];
  coverage: Record<string, number>;
  cases: Case[];
}

const fixture = JSON.parse(readFileSync(new URL('./__fixtures__/trl-losses.json', import.meta.url), 'utf8')) as Fixture;

/** |a − b| within 1e-6 of the larger magnitude (or 1e-12 absolute near zero). */
function expectRel(actual: number, expected: number, what: string): void {
  const tol = 1e-6 * Math.max(Math.abs(actual), Math.abs(expected)) + 1e-12;
  if (!(Math.abs(actual - expected) <= tol)) {
    throw new Error(`${what}: got ${actual}, TRL gives ${expected} (|diff| ${Math.abs(actual - expected)} > ${tol})`);
  }
}

/**
 * The engine's loss rows of datum i: per-token loss and ∂L/∂lp at the fixture's policy logprobs. `fold`: no `weights`
 * input, the case's token weight multiplied into the advantage instead (what an RL loop sends the hosted service).
 */
function engineRows(c: Case, i: number, fold = false): { loss: number[]; grad: number[] } {
  const n = fixture.lengths[i]!;
  const A = fixture.advantages[i]!;
  const w = c.weights[i]!;
  const datum: EngineDatum = {
    tokens: new Array<number>(n).fill(1),
    lossFnInputs: {
      target_tokens: { data: new Array<number>(n).fill(2), dtype: 'int64' },
      logprobs: { data: fixture.sampler_logprobs[i]!, dtype: 'float32' },
      advantages: { data: fold ? w.map((x) => x * A) : new Array<number>(n).fill(A), dtype: 'float32' },
      ...(fold ? {} : { weights: { data: w, dtype: 'float32' as const } }),
    },
  };
  const seg = segmentLoss(
    c.loss_fn,
    resolveLossConfig(c.loss_fn, c.loss_fn_config),
    prepareDatum(datum, i, c.loss_fn, 8, 64),
  );
  const lp = Float64Array.from(fixture.logprobs[i]!);
  const loss: number[] = [];
  const grad: number[] = [];
  for (let t = 0; t < n; t++) {
    const dlp = new Float64Array(1);
    loss.push(seg.rows(t, 1, lp.subarray(t, t + 1), dlp));
    grad.push(dlp[0]!);
  }
  return { loss, grad };
}

describe(`built-in policy losses equal TRL ${fixture.versions.trl} (torch ${fixture.versions.torch}) off-policy`, () => {
  it('the fixture batch has clipped and unclipped tokens of both advantage signs', () => {
    for (const k of ['clipped_high_pos_adv', 'clipped_low_neg_adv', 'outside_unclipped', 'inside']) {
      expect(fixture.coverage[k]).toBeGreaterThan(0);
    }
    expect(fixture.advantages.filter((a) => a === 0).length).toBeGreaterThanOrEqual(3);
  });

  for (const c of fixture.cases) {
    it(`${c.name} (${c.loss_fn} ${JSON.stringify(c.loss_fn_config)}): per-token loss, gradient and total (${c.note})`, () => {
      let total = 0;
      fixture.lengths.forEach((n, i) => {
        const { loss, grad } = engineRows(c, i);
        for (let t = 0; t < n; t++) {
          expectRel(loss[t]!, c.token_loss[i]![t]!, `datum ${i} token ${t} loss`);
          expectRel(grad[t]!, c.grad[i]![t]!, `datum ${i} token ${t} ∂L/∂lp`);
          total += loss[t]!;
        }
      });
      expectRel(total, c.loss, 'summed loss');
    });
  }

  // The hosted policy losses take no `weights`: a loss linear in A per token takes the weight folded into A instead.
  for (const c of fixture.cases.filter((x) => BUILTIN_LOSSES[x.loss_fn].weightFoldsIntoAdvantage)) {
    it(`${c.name}: the token weight folded into the advantage gives TRL's weighted loss and gradient`, () => {
      fixture.lengths.forEach((n, i) => {
        const { loss, grad } = engineRows(c, i, true);
        for (let t = 0; t < n; t++) {
          expectRel(loss[t]!, c.token_loss[i]![t]!, `datum ${i} token ${t} loss (folded)`);
          expectRel(grad[t]!, c.grad[i]![t]!, `datum ${i} token ${t} ∂L/∂lp (folded)`);
        }
      });
    });
  }

  it('dro: a folded weight would not give the weighted loss (its quadratic term does not scale with A)', () => {
    const c = fixture.cases.find((x) => x.loss_fn === 'dro')!;
    expect(BUILTIN_LOSSES.dro.weightFoldsIntoAdvantage).toBe(false);
    const { loss } = engineRows(c, 0, true);
    const tol = 1e-6 * Math.abs(c.token_loss[0]![0]!);
    expect(Math.abs(loss[0]! - c.token_loss[0]![0]!)).toBeGreaterThan(tol);
  });
});
