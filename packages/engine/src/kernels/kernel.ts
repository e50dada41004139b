// Kernel selection: the native addon when built (cblas or its own SIMD kernel), else the pure-TS reference.
import { availableParallelism } from 'node:os';
import { KernelError } from '../errors.js';
import { addonOps, loadNativeAddon, type NativeAddon, type NativeOps } from './native-addon.js';
import { sgemmJs } from './sgemm-js.js';

/** Signature shared by both GEMM implementations (row-major BLAS sgemm). */
export type SgemmFn = typeof sgemmJs;

/** Which kernel is in use, which BLAS backs it (null = the addon's own kernel or pure TS), and thread count. */
export interface KernelInfo {
  kernel: 'native' | 'js';
  blas: string | null;
  threads: number;
}

interface KernelState {
  sgemm: SgemmFn;
  info: KernelInfo;
  native: NativeAddon | null;
  ops: NativeOps | null;
  hgemm: NonNullable<NativeAddon['hgemmNT']> | null;
}

let state: KernelState | null = null;

function defaultThreads(): number {
  const env = process.env.COOKBOOK_THREADS;
  if (env !== undefined && env !== '') {
    const n = Number(env);
    if (!Number.isInteger(n) || n < 1)
      throw new KernelError(`COOKBOOK_THREADS must be a positive integer, got "${env}"`);
    return n;
  }
  return availableParallelism();
}

function init(): KernelState {
  const want = process.env.COOKBOOK_KERNEL ?? '';
  if (want !== '' && want !== 'js' && want !== 'native') {
    throw new KernelError(`COOKBOOK_KERNEL must be "js" or "native", got "${want}"`);
  }
  if (want === 'js')
    return { sgemm: sgemmJs, info: { kernel: 'js', blas: null, threads: 1 }, native: null, ops: null, hgemm: null };
  const loaded = loadNativeAddon();
  if ('error' in loaded) {
    if (want === 'native') {
      throw new KernelError(
        `COOKBOOK_KERNEL=native but the native addon is not available (${loaded.error}); build it with "pnpm --filter @cookbook/engine build:native"`,
      );
    }
    console.warn('@cookbook/engine: native kernel not built, using the pure-TS kernel (slow)');
    return { sgemm: sgemmJs, info: { kernel: 'js', blas: null, threads: 1 }, native: null, ops: null, hgemm: null };
  }
  const addon = loaded.addon;
  addon.setThreads(defaultThreads());
  const i = addon.info();
  return {
    sgemm: addon.sgemm,
    info: { kernel: 'native', blas: i.blas, threads: i.threads },
    native: addon,
    ops: addonOps(addon),
    hgemm: addon.hgemmNT ? addon.hgemmNT.bind(addon) : null,
  };
}

function current(): KernelState {
  state ??= init();
  return state;
}

/**
 * The native row-wise ops when the native kernel is in use (null with COOKBOOK_KERNEL=js, without the addon, or
 * with an addon built before the ops existed); callers fall back to their pure-TS loops.
 */
export function nativeOps(): NativeOps | null {
  return current().ops;
}

/**
 * The native half-width x·Wᵀ (`hgemmNT`) when the native kernel is in use and its addon has it, else null (callers
 * widen blocks of W and use {@link sgemm}).
 */
export function nativeHgemm(): NonNullable<NativeAddon['hgemmNT']> | null {
  return current().hgemm;
}

/**
 * Up to how many rows an `sgemm(false, true, …)` product (x·Wᵀ) gives each row exactly the result it gets alone —
 * so rows can be batched without changing any of them. The pure-TS kernel computes every row on its own.
 */
export function rowIndependentRows(): number {
  const native = current().native;
  if (!native) return 64;
  return native.info().rowIndependentRows ?? 8;
}

/** Reports the GEMM kernel the engine uses (selected once per thread at first use). */
export function kernelInfo(): KernelInfo {
  return { ...current().info };
}

/** The native addon if it loaded (for tests and benchmarks), else null; `own` = the build without BLAS. */
export function nativeAddon(variant: 'default' | 'own' = 'default'): NativeAddon | null {
  const loaded = loadNativeAddon(variant);
  return 'addon' in loaded ? loaded.addon : null;
}

function checkExtent(name: string, arr: Float32Array, rows: number, cols: number, ld: number): void {
  if (rows === 0 || cols === 0) return;
  if (ld < cols)
    throw new KernelError(`sgemm: leading dimension of ${name} (${ld}) is smaller than its row length ${cols}`);
  const need = (rows - 1) * ld + cols;
  if (arr.length < need) throw new KernelError(`sgemm: ${name} has ${arr.length} elements, needs at least ${need}`);
}

/**
 * C = alpha·op(A)·op(B) + beta·C (row-major). Bounds are checked here so a bad call never reaches native memory.
 */
export function sgemm(
  transA: boolean,
  transB: boolean,
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
): void {
  checkExtent('A', A, transA ? K : M, transA ? M : K, lda);
  checkExtent('B', B, transB ? N : K, transB ? K : N, ldb);
  checkExtent('C', C, M, N, ldc);
  current().sgemm(transA, transB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
