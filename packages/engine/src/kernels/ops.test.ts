import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeGate } from '../__fixtures__/native-gate.js';
import { attentionForward, causalSoftmaxBackwardJs, causalSoftmaxJs } from '../layers/attention.js';
import { rmsnormBackwardJs, rmsnormForwardJs } from '../layers/rmsnorm.js';
import { RopeTable, ropeRowsJs } from '../layers/rope.js';
import { swigluBackwardJs, swigluForwardJs } from '../layers/swiglu.js';
import {
  logprobGradToLogits,
  logSumExpRowsJs,
  softmaxGradRowsJs,
  softmaxRowsUnnormalizedJs,
} from '../layers/unembed.js';
import { randn } from '../test-utils.js';
import { addonOps, type NativeOps } from './native-addon.js';

/** |a − b| ≤ rel·|b| + abs elementwise. */
function expectClose(a: ArrayLike<number>, b: ArrayLike<number>, rel: number, abs = 0): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) {
    const ok = Math.abs(a[i]! - b[i]!) <= rel * Math.abs(b[i]!) + abs || (Number.isNaN(a[i]!) && Number.isNaN(b[i]!));
    if (!ok) expect(a[i], `index ${i}`).toBe(b[i]);
  }
}

// float32 tolerance: a few ulp (2^-23 ≈ 1.2e-7) per value
const REL = 1e-6;

describe('softmax helpers (pure TS)', () => {
  it('softmaxRowsUnnormalized + softmaxGradRows equal logSumExpRows + logprobGradToLogits', () => {
    const T = 3;
    const V = 37;
    const K = 2;
    const x = randn(T * V, 1, 4);
    const targets = Int32Array.from([1, 5, 0, 36, 3, 3]);
    const g = Float64Array.from([0.3, -1, 2, 0.5, 0, 0]);
    const lse1 = new Float64Array(T);
    const ref = x.slice();
    logSumExpRowsJs(lse1, ref, T, V);
    logprobGradToLogits(ref, lse1, targets, g, T, V, K);
    const lse2 = new Float64Array(T);
    const inv = new Float64Array(T);
    const got = x.slice();
    softmaxRowsUnnormalizedJs(lse2, inv, got, T, V);
    softmaxGradRowsJs(got, inv, targets, g, T, V, K);
    expectClose(lse2, lse1, 1e-12);
    expectClose(got, ref, REL, 1e-7);
  });
});

for (const variant of ['default', 'own'] as const) {
  const gate = nativeGate(variant);
  describe.runIf(gate.run)(`native row-wise ops (${variant} build) equal the TS references [native addon]`, () => {
    let ops: NativeOps;
    let threadsBefore = 1;
    beforeAll(() => {
      const addon = gate.addon();
      const found = addonOps(addon);
      expect(found, `the ${variant} build of the native addon has no row-wise ops`).not.toBeNull();
      ops = found!;
      // The rest of the suite runs the engine on one thread (vitest.config.ts): these run the threaded path.
      threadsBefore = addon.info().threads;
      addon.setThreads(2);
    });
    afterAll(() => gate.addon().setThreads(threadsBefore));
    it('causal softmax forward and backward (odd widths, offsets)', () => {
      for (const [T, W, off, ld] of [
        [7, 7, 0, 7],
        [5, 21, 16, 23],
        [3, 130, 127, 131],
        [40, 9, -3, 9],
      ] as const) {
        const att = randn(T * ld, 2, 6);
        const datt = randn(T * ld, 3);
        const a1 = att.slice();
        const a2 = att.slice();
        causalSoftmaxJs(a1, ld, T, W, off);
        ops.softmaxCausal(a2, ld, T, W, off);
        expectClose(a2, a1, REL, 1e-9);
        const d1 = datt.slice();
        const d2 = datt.slice();
        causalSoftmaxBackwardJs(a1, d1, ld, T, W, off);
        ops.softmaxCausalBackward(a1, d2, ld, T, W, off);
        expectClose(d2, d1, 1e-5, 1e-6);
      }
      expect(() => ops.softmaxCausal(new Float32Array(10), 4, 3, 4, 0)).toThrow(/too small/);
    });

    it('log-sum-exp, fused softmax and its gradient over a vocabulary (exp accurate to float32)', () => {
      const T = 4;
      const V = 1003;
      const K = 2;
      const x = randn(T * V, 4, 30); // exps span ~e^-200 … e^0
      x[5] = -1e30;
      const lse1 = new Float64Array(T);
      const lse2 = new Float64Array(T);
      logSumExpRowsJs(lse1, x, T, V);
      ops.logSumExpRows(lse2, x, T, V);
      expectClose(lse2, lse1, 1e-7);
      const e1 = x.slice();
      const e2 = x.slice();
      const inv1 = new Float64Array(T);
      const inv2 = new Float64Array(T);
      softmaxRowsUnnormalizedJs(lse1, inv1, e1, T, V);
      ops.softmaxRowsUnnormalized(lse2, inv2, e2, T, V);
      expectClose(lse2, lse1, 1e-7);
      expectClose(inv2, inv1, 1e-6);
      // exp itself: within a few float32 ulp of Math.exp (denormal-range results may flush to 0)
      expectClose(e2, e1, 3e-7, 1e-37);
      const targets = Int32Array.from([0, 1002, 7, 7, 500, 3, 9, 9]);
      const g = Float64Array.from([0.5, -1, 0, 0, 2, 0.25, -0.3, 0.1]);
      softmaxGradRowsJs(e1, inv1, targets, g, T, V, K);
      ops.softmaxGradRows(e2, inv2, targets, g, T, V, K);
      expectClose(e2, e1, 1e-6, 1e-9);
      expect(() => ops.softmaxGradRows(e2, inv2, Int32Array.from([0, V, 0, 0, 0, 0, 0, 0]), g, T, V, K)).toThrow(
        /outside/,
      );
    });

    it('swiglu forward and backward (including saturated gates)', () => {
      const T = 3;
      const I = 29;
      const gu = randn(T * 2 * I, 5, 3);
      gu[0] = 120;
      gu[1] = -120;
      gu[2] = 90;
      gu[3] = -90;
      const dact = randn(T * I, 6);
      const a1 = new Float32Array(T * I);
      const a2 = new Float32Array(T * I);
      swigluForwardJs(a1, gu, T, I);
      ops.swigluForward(a2, gu, T, I);
      expectClose(a2, a1, REL, 1e-30);
      const d1 = new Float32Array(T * 2 * I);
      const d2 = new Float32Array(T * 2 * I);
      swigluBackwardJs(d1, dact, gu, T, I);
      ops.swigluBackward(d2, dact, gu, T, I);
      expectClose(d2, d1, 2e-6, 1e-30);
    });

    it('rmsnorm forward and backward (strided rows, accumulate)', () => {
      const R = 5;
      const C = 67;
      const ld = 70;
      const x = randn(R * ld, 7);
      const w = randn(C, 8);
      const dy = randn(R * ld, 9);
      const y1 = new Float32Array(R * ld);
      const y2 = new Float32Array(R * ld);
      const r1 = new Float32Array(R);
      const r2 = new Float32Array(R);
      rmsnormForwardJs(y1, ld, r1, x, ld, w, R, C, 1e-5);
      ops.rmsnormForward(y2, ld, r2, x, ld, w, R, C, 1e-5);
      expectClose(r2, r1, REL);
      expectClose(y2, y1, REL, 1e-7);
      for (const acc of [false, true]) {
        const d1 = randn(R * ld, 10);
        const d2 = d1.slice();
        rmsnormBackwardJs(d1, ld, dy, ld, x, ld, r1, w, R, C, acc);
        ops.rmsnormBackward(d2, ld, dy, ld, x, ld, r1, w, R, C, acc);
        expectClose(d2, d1, 1e-5, 1e-6);
      }
      expect(() => ops.rmsnormForward(y2, ld, r2, x, ld, w, R + 1, C, 1e-5)).toThrow(/too small/);
    });

    it('sampleRow draws the token whose cumulative probability first exceeds u (blocks, temperature, -inf)', () => {
      for (const [V, T] of [
        [5, 1],
        [700, 0.7],
        [3000, 1],
        [1537, 1.9],
      ] as const) {
        const x = randn(V, V, 3);
        for (let j = 0; j < V; j += 7) x[j] = Number.NEGATIVE_INFINITY;
        let mx = Number.NEGATIVE_INFINITY;
        for (const v of x) mx = Math.max(mx, v);
        const p = Array.from(x, (v) => Math.exp((v - mx) / T));
        const total = p.reduce((a, b) => a + b, 0);
        for (let i = 0; i < 200; i++) {
          const u = (i + 0.5) / 200;
          const t = ops.sampleRow(x, V, 1 / T, u);
          expect(p[t]).toBeGreaterThan(0);
          let before = 0;
          for (let j = 0; j < t; j++) before += p[j]!;
          // within float rounding of the boundary
          expect(before / total).toBeLessThanOrEqual(u + 1e-6);
          expect((before + p[t]!) / total).toBeGreaterThanOrEqual(u - 1e-6);
        }
      }
      expect(() => ops.sampleRow(new Float32Array(3), 4, 1, 0.5)).toThrow(/too small/);
    });

    it('attentionDecode equals attentionForward over one query row (GQA, strided cache)', () => {
      for (const [S, H, KV, D, ld] of [
        [1, 4, 2, 8, 20],
        [37, 9, 3, 64, 200],
        [130, 4, 4, 12, 50],
      ] as const) {
        const q = randn(H * D, 1);
        const k = randn(S * ld, 2);
        const v = randn(S * ld, 3);
        const o1 = new Float32Array(H * D);
        const o2 = new Float32Array(H * D);
        attentionForward(o1, H * D, q, H * D, k, ld, v, ld, new Float32Array(S), { T: 1, S, H, KV, D });
        ops.attentionDecode(o2, q, k, ld, v, ld, S, H, KV, D);
        expectClose(o2, o1, 1e-5, 1e-6);
      }
      expect(() =>
        ops.attentionDecode(
          new Float32Array(8),
          new Float32Array(8),
          new Float32Array(7),
          8,
          new Float32Array(8),
          8,
          1,
          1,
          1,
          8,
        ),
      ).toThrow(/too small/);
    });

    it('ropeRows rotates exactly as the pure-TS rope, forward and back (strided rows, any head width)', () => {
      for (const [T, H, D, ld] of [
        [7, 3, 64, 3 * 64 + 40],
        [5, 2, 6, 12],
      ] as const) {
        const half = D / 2;
        const inv = Float64Array.from({ length: half }, (_, i) => 1 / 10000 ** ((2 * i) / D));
        const table = new RopeTable(inv, half);
        table.ensure(300);
        const pos = Int32Array.from({ length: T }, (_, t) => (t * 37) % 300);
        const x = randn(T * ld, 9, 3);
        for (const inverse of [false, true]) {
          const want = x.slice();
          const got = x.slice();
          ropeRowsJs(want, ld, pos, T, H, D, table, inverse);
          ops.ropeRows(got, ld, pos, T, H, D, table.cos, table.sin, inverse);
          expect(got).toEqual(want);
        }
      }
      const c = new Float32Array(8);
      const run = (pos: number[], x = new Float32Array(8)) =>
        ops.ropeRows(x, 4, Int32Array.from(pos), 2, 1, 4, c, c, false);
      expect(() => run([0, 3])).not.toThrow();
      expect(() => run([0, 4])).toThrow(/outside the cos\/sin tables/);
      expect(() => run([-1, 0])).toThrow(/outside the cos\/sin tables/);
      expect(() => run([0, 0], new Float32Array(7))).toThrow(/too small/);
      expect(() => run([0])).toThrow(/too small/);
    });

    it('attentionDecodeBatch gives every sequence exactly its attentionDecode result', () => {
      for (const [H, KV, D] of [
        [9, 3, 64],
        [4, 2, 12],
      ] as const) {
        const ld = KV * D;
        const L = 40;
        const lens = Int32Array.from([37, 1, 6, 40, 13]);
        const first = Int32Array.from([2 * L, 0, 4 * L, L, 3 * L]); // slots in any order
        const B = lens.length;
        const k = randn(5 * L * ld, 4);
        const v = randn(5 * L * ld, 5);
        const q = randn(B * H * D, 6);
        const got = new Float32Array(B * H * D);
        ops.attentionDecodeBatch(got, q, k, v, ld, first, lens, B, H, KV, D);
        for (let b = 0; b < B; b++) {
          const one = new Float32Array(H * D);
          const r = first[b]! * ld;
          ops.attentionDecode(one, q.subarray(b * H * D), k.subarray(r), ld, v.subarray(r), ld, lens[b]!, H, KV, D);
          expect(got.subarray(b * H * D, (b + 1) * H * D)).toEqual(one);
        }
      }
      const run = (first: number[], lens: number[]) =>
        ops.attentionDecodeBatch(
          new Float32Array(16),
          new Float32Array(16),
          new Float32Array(64),
          new Float32Array(64),
          8,
          Int32Array.from(first),
          Int32Array.from(lens),
          2,
          1,
          1,
          8,
        );
      expect(() => run([0, 4], [4, 4])).not.toThrow();
      expect(() => run([0, 5], [4, 4])).toThrow(/outside the cache/);
      expect(() => run([0, 2 ** 31 - 2], [4, 4])).toThrow(/outside the cache/);
      expect(() => run([0, 0], [4, 0])).toThrow(/outside the cache/);
      expect(() => run([0], [4])).toThrow(/too small/);
    });
  });
}
