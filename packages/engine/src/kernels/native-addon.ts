// Loader for the optional N-API addon built from native/ by scripts/build-native.mjs.
import { createRequire } from 'node:module';

/** The functions the compiled addon exports. */
export interface NativeAddon {
  sgemm(
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
  ): void;
  /**
   * C = alpha·A·Wᵀ + beta·C with W (N × K) bf16 (format 0) or fp16 (format 1) bit patterns, widened inside the
   * kernel; row-independent up to `rowIndependentRows` rows like sgemm's x·Wᵀ (absent in addons built before it).
   */
  hgemmNT?(
    format: number,
    M: number,
    N: number,
    K: number,
    alpha: number,
    A: Float32Array,
    lda: number,
    W: Uint16Array,
    ldw: number,
    beta: number,
    C: Float32Array,
    ldc: number,
  ): void;
  setThreads(n: number): void;
  /**
   * `rowIndependentRows`: up to this many rows, an x·Wᵀ product gives each row the result it gets alone (absent in
   * addons built before it was reported: 8 then).
   */
  info(): { blas: string | null; simd: string; threads: number; rowIndependentRows?: number };
}

/** Row-wise kernels of the addon (native/ops.h); the pure-TS versions in src/layers are the references. */
export interface NativeOps {
  /** Causal softmax in place: T rows of stride ld, row i keeps columns [0, off + i], zeroes the rest of width. */
  softmaxCausal(att: Float32Array, ld: number, T: number, width: number, off: number): void;
  /** datt ← P ⊙ (dP − rowsum(P ⊙ dP)) on the causal pattern of softmaxCausal. */
  softmaxCausalBackward(att: Float32Array, datt: Float32Array, ld: number, T: number, width: number, off: number): void;
  logSumExpRows(lse: Float64Array, x: Float32Array, T: number, V: number): void;
  softmaxRowsUnnormalized(lse: Float64Array, invSum: Float64Array, x: Float32Array, T: number, V: number): void;
  softmaxGradRows(
    e: Float32Array,
    invSum: Float64Array,
    targets: Int32Array,
    g: Float64Array,
    T: number,
    V: number,
    K: number,
  ): void;
  swigluForward(act: Float32Array, gu: Float32Array, T: number, I: number): void;
  swigluBackward(dgu: Float32Array, dact: Float32Array, gu: Float32Array, T: number, I: number): void;
  rmsnormForward(
    y: Float32Array,
    ldy: number,
    rstd: Float32Array,
    x: Float32Array,
    ldx: number,
    w: Float32Array,
    R: number,
    C: number,
    eps: number,
  ): void;
  rmsnormBackward(
    dx: Float32Array,
    lddx: number,
    dy: Float32Array,
    lddy: number,
    x: Float32Array,
    ldx: number,
    rstd: Float32Array,
    w: Float32Array,
    R: number,
    C: number,
    accumulate: boolean,
  ): void;
  /**
   * A token drawn from softmax(x / T) (invT = 1/T) with u in [0, 1): the first whose cumulative probability exceeds
   * u; the probabilities are never stored (block sums, then one block recomputed).
   */
  sampleRow(x: Float32Array, V: number, invT: number, u: number): number;
  /** One query row of GQA attention over S cached keys/values (row strides ldk, ldv): o (H·D) for q (H·D). */
  attentionDecode(
    o: Float32Array,
    q: Float32Array,
    k: Float32Array,
    ldk: number,
    v: Float32Array,
    ldv: number,
    S: number,
    H: number,
    KV: number,
    D: number,
  ): void;
  /**
   * attentionDecode for B sequences of one cache: sequence b's query / output is row b of q / o (H·D each), its
   * lens[b] keys / values are rows first[b]… of k / v (row stride ld). Split across the kernel's threads; each
   * sequence gets exactly attentionDecode's result.
   */
  /**
   * Rotary position embedding in place: in each of the H heads (D wide) of the T rows of x (stride ld), the pair
   * (x[i], x[i + D/2]) turns by row pos[t] of the cos / sin tables (D/2 wide); `inverse` turns back (the backward).
   * Rounded as ropeForward / ropeBackward round.
   */
  ropeRows(
    x: Float32Array,
    ld: number,
    pos: Int32Array,
    T: number,
    H: number,
    D: number,
    cos: Float32Array,
    sin: Float32Array,
    inverse: boolean,
  ): void;
  attentionDecodeBatch(
    o: Float32Array,
    q: Float32Array,
    k: Float32Array,
    v: Float32Array,
    ld: number,
    first: Int32Array,
    lens: Int32Array,
    B: number,
    H: number,
    KV: number,
    D: number,
  ): void;
}

const OPS: (keyof NativeOps)[] = [
  'softmaxCausal',
  'softmaxCausalBackward',
  'logSumExpRows',
  'softmaxRowsUnnormalized',
  'softmaxGradRows',
  'swigluForward',
  'swigluBackward',
  'rmsnormForward',
  'rmsnormBackward',
  'sampleRow',
  'attentionDecode',
  'attentionDecodeBatch',
  'ropeRows',
];

/** The addon's row-wise ops when it exports all of them. */
export function addonOps(addon: NativeAddon): NativeOps | null {
  const o = addon as unknown as Record<string, unknown>;
  return OPS.every((k) => typeof o[k] === 'function') ? (addon as unknown as NativeOps) : null;
}

function isAddon(v: unknown): v is NativeAddon {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.sgemm === 'function' && typeof o.setThreads === 'function' && typeof o.info === 'function';
}

/**
 * Loads build/Release/cookbook_engine.node (or, with `variant: 'own'`, the build that never links a BLAS);
 * returns the error instead of throwing when it is missing.
 */
export function loadNativeAddon(variant: 'default' | 'own' = 'default'): { addon: NativeAddon } | { error: string } {
  const require = createRequire(import.meta.url);
  const file = variant === 'own' ? 'cookbook_engine_own.node' : 'cookbook_engine.node';
  // src/kernels and dist/kernels are both two levels below the package root.
  const path = new URL(`../../build/Release/${file}`, import.meta.url).pathname;
  try {
    const mod: unknown = require(path);
    if (!isAddon(mod)) return { error: `${path} does not export sgemm/setThreads/info` };
    return { addon: mod };
  } catch (e) {
    return { error: e instanceof Error ? e.message.split('\n')[0]! : String(e) };
  }
}
