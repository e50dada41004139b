// Linear layer y = x·Wᵀ (HF weight layout W_OI) with an optional LoRA branch y += s·(x·Aᵀ)·Bᵀ.
// The base weight is frozen: backward produces dx and the LoRA gradients only.
import { sgemm } from '../kernels/kernel.js';

/** One LoRA adapter on a linear map I → O: A_RI, B_OR, gradients of the same shapes, scale = alpha/rank. */
export interface LoraAdapter {
  A_RI: Float32Array;
  B_OR: Float32Array;
  gA_RI: Float32Array;
  gB_OR: Float32Array;
  rank: number;
  scale: number;
}

/** y_TO (ldy) = beta·y + x_TI (ldx) · W_OIᵀ. */
export function linearForward(
  y: Float32Array,
  ldy: number,
  x: Float32Array,
  ldx: number,
  W_OI: Float32Array,
  T: number,
  I: number,
  O: number,
  beta: number,
): void {
  sgemm(false, true, T, O, I, 1, x, ldx, W_OI, I, beta, y, ldy);
}

/** dx_TI (lddx) = beta·dx + dy_TO (lddy) · W_OI. */
export function linearBackward(
  dx: Float32Array,
  lddx: number,
  dy: Float32Array,
  lddy: number,
  W_OI: Float32Array,
  T: number,
  I: number,
  O: number,
  beta: number,
): void {
  sgemm(false, false, T, I, O, 1, dy, lddy, W_OI, I, beta, dx, lddx);
}

/** LoRA branch: h_TR = x·Aᵀ (kept for backward), y += scale·h·Bᵀ. */
export function loraForward(
  y: Float32Array,
  ldy: number,
  x: Float32Array,
  ldx: number,
  h_TR: Float32Array,
  a: LoraAdapter,
  T: number,
  I: number,
  O: number,
): void {
  const R = a.rank;
  sgemm(false, true, T, R, I, 1, x, ldx, a.A_RI, I, 0, h_TR, R);
  sgemm(false, true, T, O, R, a.scale, h_TR, R, a.B_OR, R, 1, y, ldy);
}

/**
 * LoRA backward: gB += scale·dyᵀ·h, dh = scale·dy·B, gA += dhᵀ·x, and (when dx is given) dx += dh·A.
 * `dh_TR` is scratch.
 */
export function loraBackward(
  dx: Float32Array | null,
  lddx: number,
  dy: Float32Array,
  lddy: number,
  x: Float32Array,
  ldx: number,
  h_TR: Float32Array,
  dh_TR: Float32Array,
  a: LoraAdapter,
  T: number,
  I: number,
  O: number,
): void {
  const R = a.rank;
  sgemm(true, false, O, R, T, a.scale, dy, lddy, h_TR, R, 1, a.gB_OR, R);
  sgemm(false, false, T, R, O, a.scale, dy, lddy, a.B_OR, R, 0, dh_TR, R);
  sgemm(true, false, R, I, T, 1, dh_TR, R, x, ldx, 1, a.gA_RI, I);
  if (dx) sgemm(false, false, T, I, R, 1, dh_TR, R, a.A_RI, I, 1, dx, lddx);
}
