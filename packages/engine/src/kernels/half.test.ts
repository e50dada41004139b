import { describe, expect, it } from 'vitest';
import { nativeGate } from '../__fixtures__/native-gate.js';
import { randn } from '../test-utils.js';
import {
  bf16ToFloat,
  fp16ToFloat,
  type HalfMatrix,
  hgemmNT,
  hgemmNTJs,
  toBf16,
  toFp16,
  toHalfMatrix,
  widenHalf,
} from './half.js';
import { rowIndependentRows } from './kernel.js';
import { sgemmJs } from './sgemm-js.js';

/** C = alpha·A·Wᵀ + beta·C on the widened weights with the pure-TS kernel (the reference). */
function reference(
  M: number,
  N: number,
  K: number,
  alpha: number,
  A: Float32Array,
  W: HalfMatrix,
  beta: number,
  C: Float32Array,
) {
  const w = new Float32Array(N * K);
  widenHalf(w, W.data, 0, N * K, W.format);
  sgemmJs(false, true, M, N, K, alpha, A, K, w, K, beta, C, N);
}

describe('half-width weights', () => {
  it('rounds to the nearest bf16 / fp16 (ties to even) and widens back exactly', () => {
    for (const x of [0, -0, 1, -2.5, 3.140625, 65504, 1e-3, -7.5e-5, 6e-8, 1e30]) {
      expect(bf16ToFloat(toBf16(x))).toBe(Math.fround(bf16ToFloat(toBf16(x))));
      expect(Math.abs(bf16ToFloat(toBf16(x)) - x)).toBeLessThanOrEqual(Math.abs(x) * 2 ** -9);
    }
    for (const x of [0, 1, -2.5, 3.140625, 65504, 1e-3, -7.5e-5, 6e-8]) {
      const y = fp16ToFloat(toFp16(x));
      // normal: half an ulp of 11 bits; subnormal: half of 2^-24
      expect(Math.abs(y - x)).toBeLessThanOrEqual(Math.max(Math.abs(x) * 2 ** -11, 2 ** -25));
    }
    expect(toFp16(1)).toBe(0x3c00);
    expect(toFp16(65504)).toBe(0x7bff);
    expect(toFp16(65520)).toBe(0x7c00); // halfway to 65536 rounds to even: inf
    expect(toFp16(-(2 ** -24))).toBe(0x8001);
    expect(toFp16(1 + 2 ** -11)).toBe(0x3c00); // tie, to even
    expect(toFp16(1 + 3 * 2 ** -11)).toBe(0x3c02); // tie, to even (up)
    expect(toBf16(1 + 2 ** -8)).toBe(0x3f80); // tie, to even
    expect(toBf16(1 + 3 * 2 ** -8)).toBe(0x3f82);
    expect(Number.isNaN(bf16ToFloat(toBf16(Number.NaN)))).toBe(true);
    expect(Number.isNaN(fp16ToFloat(toFp16(Number.NaN)))).toBe(true);
    // every fp16 pattern widens to the float the TS decoder gives (round trip is the identity on finite values)
    for (let h = 0; h < 0x7c00; h += 7) expect(toFp16(fp16ToFloat(h))).toBe(h);
  });

  for (const format of ['bfloat16', 'float16'] as const) {
    it(`hgemmNT (${format}) equals the float product on the widened weights, odd sizes, beta, strides`, () => {
      for (const [M, N, K] of [
        [1, 1, 1],
        [1, 37, 19],
        [3, 70, 300],
        [8, 33, 65],
        [32, 41, 576],
        [40, 130, 70],
      ] as const) {
        const W = toHalfMatrix(randn(N * K, 11, 0.3), N, K, format);
        const A = randn(M * K, 12);
        const C1 = randn(M * N, 13);
        const C2 = C1.slice();
        const C3 = C1.slice();
        reference(M, N, K, 0.7, A, W, 0.5, C1);
        hgemmNT(M, N, K, 0.7, A, K, W, 0.5, C2, N);
        hgemmNTJs(M, N, K, 0.7, A, K, W, 0.5, C3, N);
        for (let i = 0; i < C1.length; i++) expect(Math.abs(C1[i]! - C2[i]!)).toBeLessThan(1e-4 * Math.sqrt(K));
        for (let i = 0; i < C1.length; i++) expect(Math.abs(C1[i]! - C3[i]!)).toBeLessThan(1e-4 * Math.sqrt(K));
      }
    });

    it(`hgemmNT (${format}) gives each of up to rowIndependentRows rows exactly its result alone`, () => {
      const rows = Math.min(rowIndependentRows(), 32);
      for (const [N, K] of [
        [45, 61],
        [200, 576],
      ] as const) {
        const W = toHalfMatrix(randn(N * K, 21, 0.3), N, K, format);
        const A = randn(rows * K, 22);
        const all = new Float32Array(rows * N);
        hgemmNT(rows, N, K, 1, A, K, W, 0, all, N);
        const allJs = new Float32Array(rows * N);
        hgemmNTJs(rows, N, K, 1, A, K, W, 0, allJs, N);
        for (const m of [1, 2, 3, 5, 8, rows]) {
          const some = new Float32Array(m * N);
          hgemmNT(m, N, K, 1, A.subarray((rows - m) * K), K, W, 0, some, N);
          expect(some).toEqual(all.subarray((rows - m) * N));
          hgemmNTJs(m, N, K, 1, A.subarray((rows - m) * K), K, W, 0, some, N);
          expect(some).toEqual(allJs.subarray((rows - m) * N));
        }
      }
    });
  }

  const ownGate = nativeGate('own');
  it.runIf(ownGate.run)('the build without BLAS computes the same products (both row counts) [native addon]', () => {
    const own = ownGate.addon();
    expect(own.hgemmNT, 'the own build of the addon has no hgemmNT').toBeTypeOf('function');
    for (const [M, N, K] of [
      [5, 37, 70],
      [48, 90, 33],
    ] as const) {
      for (const [f, format] of [
        [0, 'bfloat16'],
        [1, 'float16'],
      ] as const) {
        const W = toHalfMatrix(randn(N * K, 31, 0.3), N, K, format);
        const A = randn(M * K, 32);
        const C1 = randn(M * N, 33);
        const C2 = C1.slice();
        reference(M, N, K, 1.5, A, W, -1, C1);
        own.hgemmNT!(f, M, N, K, 1.5, A, K, W.data, K, -1, C2, N);
        for (let i = 0; i < C1.length; i++) expect(Math.abs(C1[i]! - C2[i]!)).toBeLessThan(1e-4 * Math.sqrt(K));
      }
    }
  });

  const gate = nativeGate();
  it.runIf(gate.run)('the native kernel rejects arrays too small for the sizes [native addon]', () => {
    const a = gate.addon();
    expect(a.hgemmNT, 'the addon has no hgemmNT').toBeTypeOf('function');
    expect(() =>
      a.hgemmNT!(0, 2, 4, 4, 1, new Float32Array(8), 4, new Uint16Array(15), 4, 0, new Float32Array(8), 4),
    ).toThrow(/too small/);
  });
});
