// RMSNorm (as in Llama/Qwen): y = x / sqrt(mean(x²) + eps) · w. Forward and backward side by side.
// Rows may be strided (`ld`) so per-head q/k norms can run on a fused qkv buffer. The native addon's version runs
// when available (and the call is big enough to beat the call overhead); the *Js functions are the reference.
import { nativeOps } from '../kernels/kernel.js';

/** Below this many values a native call costs more than the loop. */
const NATIVE_MIN = 256;

/** y_RC = rmsnorm(x_RC)·w_C over R rows of C values; stores 1/rms per row in rstd_R. */
export function rmsnormForward(
  y: Float32Array,
  ldy: number,
  rstd_R: Float32Array,
  x: Float32Array,
  ldx: number,
  w_C: Float32Array,
  R: number,
  C: number,
  eps: number,
  rowwise = false,
): void {
  // `rowwise`: pick the implementation by the row length alone, so a row's result never depends on how many rows
  // are normalised with it (the sampler's batched decode relies on it).
  const ops = (rowwise ? C : R * C) >= NATIVE_MIN ? nativeOps() : null;
  if (ops) ops.rmsnormForward(y, ldy, rstd_R, x, ldx, w_C, R, C, eps);
  else rmsnormForwardJs(y, ldy, rstd_R, x, ldx, w_C, R, C, eps);
}

/** Pure-TS rmsnormForward. */
export function rmsnormForwardJs(
  y: Float32Array,
  ldy: number,
  rstd_R: Float32Array,
  x: Float32Array,
  ldx: number,
  w_C: Float32Array,
  R: number,
  C: number,
  eps: number,
): void {
  for (let r = 0; r < R; r++) {
    const xo = r * ldx;
    const yo = r * ldy;
    let ss = 0;
    for (let c = 0; c < C; c++) {
      const v = x[xo + c]!;
      ss += v * v;
    }
    const s = 1 / Math.sqrt(ss / C + eps);
    rstd_R[r] = s;
    for (let c = 0; c < C; c++) y[yo + c] = x[xo + c]! * s * w_C[c]!;
  }
}

/**
 * dx (+)= ∂L/∂x given dy, the forward input x and rstd (w frozen, so no dw).
 * dx_c = s·(dy_c·w_c − x_c·s²·mean_k(dy_k·w_k·x_k)). With `accumulate` the result is added to dx.
 */
export function rmsnormBackward(
  dx: Float32Array,
  lddx: number,
  dy: Float32Array,
  lddy: number,
  x: Float32Array,
  ldx: number,
  rstd_R: Float32Array,
  w_C: Float32Array,
  R: number,
  C: number,
  accumulate: boolean,
): void {
  const ops = R * C >= NATIVE_MIN ? nativeOps() : null;
  if (ops) ops.rmsnormBackward(dx, lddx, dy, lddy, x, ldx, rstd_R, w_C, R, C, accumulate);
  else rmsnormBackwardJs(dx, lddx, dy, lddy, x, ldx, rstd_R, w_C, R, C, accumulate);
}

/** Pure-TS rmsnormBackward. */
export function rmsnormBackwardJs(
  dx: Float32Array,
  lddx: number,
  dy: Float32Array,
  lddy: number,
  x: Float32Array,
  ldx: number,
  rstd_R: Float32Array,
  w_C: Float32Array,
  R: number,
  C: number,
  accumulate: boolean,
): void {
  for (let r = 0; r < R; r++) {
    const xo = r * ldx;
    const yo = r * lddy;
    const dxo = r * lddx;
    const s = rstd_R[r]!;
    let dot = 0;
    for (let c = 0; c < C; c++) dot += dy[yo + c]! * w_C[c]! * x[xo + c]!;
    const k = (s * s * s * dot) / C;
    if (accumulate) for (let c = 0; c < C; c++) dx[dxo + c]! += s * dy[yo + c]! * w_C[c]! - k * x[xo + c]!;
    else for (let c = 0; c < C; c++) dx[dxo + c] = s * dy[yo + c]! * w_C[c]! - k * x[xo + c]!;
  }
}
