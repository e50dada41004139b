import { describe, expect, it } from 'vitest';
import { nativeGate } from '../__fixtures__/native-gate.js';
import { randn } from '../test-utils.js';
import { kernelInfo } from './kernel.js';
import { loadNativeAddon } from './native-addon.js';
import { sgemmJs } from './sgemm-js.js';

function naive(
  tA: boolean,
  tB: boolean,
  M: number,
  N: number,
  K: number,
  alpha: number,
  A: Float32Array,
  lda: number,
  B: Float32Array,
  ldb: number,
  beta: number,
  C: Float32Array,
  ldc: number,
) {
  for (let i = 0; i < M; i++)
    for (let j = 0; j < N; j++) {
      let s = 0;
      for (let k = 0; k < K; k++)
        s += (tA ? A[k * lda + i]! : A[i * lda + k]!) * (tB ? B[j * ldb + k]! : B[k * ldb + j]!);
      C[i * ldc + j] = alpha * s + beta * C[i * ldc + j]!;
    }
}

const SHAPES: [number, number, number][] = [
  [1, 1, 1],
  [1, 37, 19],
  [7, 33, 65],
  [13, 70, 300],
  [130, 17, 257],
  [3, 700, 600],
];

describe('sgemm kernels', () => {
  it('the pure-TS kernel matches a naive triple loop for all transposes and strides', () => {
    for (const tA of [false, true])
      for (const tB of [false, true])
        for (const [M, N, K] of SHAPES.slice(0, 5)) {
          const lda = (tA ? M : K) + 3;
          const ldb = (tB ? K : N) + 1;
          const ldc = N + 2;
          const A = randn((tA ? K : M) * lda, 1);
          const B = randn((tB ? N : K) * ldb, 2);
          const C1 = randn(M * ldc, 3);
          const C2 = C1.slice();
          naive(tA, tB, M!, N!, K!, 0.7, A, lda, B, ldb, 0.3, C1, ldc);
          sgemmJs(tA, tB, M!, N!, K!, 0.7, A, lda, B, ldb, 0.3, C2, ldc);
          for (let i = 0; i < C1.length; i++) expect(Math.abs(C1[i]! - C2[i]!)).toBeLessThan(1e-3);
        }
  });

  for (const variant of ['default', 'own'] as const) {
    const gate = nativeGate(variant);
    const name = variant === 'own' ? 'native built-in SIMD kernel' : 'native kernel (BLAS when linked)';
    it.runIf(gate.run)(
      `${name} equals the TS kernel for all transposes and odd sizes, on 1 and 2 threads [native addon]`,
      () => {
        const addon = gate.addon();
        // The test suite runs the engine on one thread (vitest.config.ts); the threaded path is checked here.
        const threadsBefore = addon.info().threads;
        for (const threads of [1, 2]) {
          addon.setThreads(threads);
          for (const tA of [false, true])
            for (const tB of [false, true])
              for (const [M, N, K] of SHAPES) {
                const lda = (tA ? M : K) + 1;
                const ldb = (tB ? K : N) + 2;
                const ldc = N + 3;
                const A = randn((tA ? K : M) * lda, 4);
                const B = randn((tB ? N : K) * ldb, 5);
                const C1 = randn(M * ldc, 6);
                const C2 = C1.slice();
                sgemmJs(tA, tB, M!, N!, K!, 1.3, A, lda, B, ldb, -0.5, C1, ldc);
                addon.sgemm(tA, tB, M!, N!, K!, 1.3, A, lda, B, ldb, -0.5, C2, ldc);
                for (let i = 0; i < C1.length; i++)
                  expect(Math.abs(C1[i]! - C2[i]!)).toBeLessThan(2e-3 * Math.sqrt(K!));
              }
        }
        addon.setThreads(threadsBefore);
        expect(() =>
          addon.sgemm(
            false,
            false,
            4,
            4,
            4,
            1,
            new Float32Array(3),
            4,
            new Float32Array(16),
            4,
            0,
            new Float32Array(16),
            4,
          ),
        ).toThrow(/too small/);
      },
    );
  }

  it('reports the kernel in use: native when the addon loads (unless COOKBOOK_KERNEL=js), else js', () => {
    const info = kernelInfo();
    const js = process.env.COOKBOOK_KERNEL === 'js' || 'error' in loadNativeAddon();
    expect(info.kernel).toBe(js ? 'js' : 'native');
    if (js) expect(info).toEqual({ kernel: 'js', blas: null, threads: 1 });
    expect(info.threads).toBeGreaterThanOrEqual(1);
  });
});
