// SwiGLU activation: act = silu(gate)·up, with gate and up side by side in one fused (T × 2I) buffer.
// Native when the addon is available; the *Js functions are the reference.
import { nativeOps } from '../kernels/kernel.js';

/** act_TI = silu(gu[:, :I])·gu[:, I:]. */
export function swigluForward(act_TI: Float32Array, gu_T2I: Float32Array, T: number, I: number): void {
  const ops = nativeOps();
  if (ops) ops.swigluForward(act_TI, gu_T2I, T, I);
  else swigluForwardJs(act_TI, gu_T2I, T, I);
}

/** Pure-TS swigluForward. */
export function swigluForwardJs(act_TI: Float32Array, gu_T2I: Float32Array, T: number, I: number): void {
  for (let t = 0; t < T; t++) {
    const go = t * 2 * I;
    const ao = t * I;
    for (let i = 0; i < I; i++) {
      const g = gu_T2I[go + i]!;
      act_TI[ao + i] = (g / (1 + Math.exp(-g))) * gu_T2I[go + I + i]!;
    }
  }
}

/** dgu_T2I = ∂L/∂(gate, up) from dact_TI: dgate = dact·up·silu'(g), dup = dact·silu(g). */
export function swigluBackward(
  dgu_T2I: Float32Array,
  dact_TI: Float32Array,
  gu_T2I: Float32Array,
  T: number,
  I: number,
): void {
  const ops = nativeOps();
  if (ops) ops.swigluBackward(dgu_T2I, dact_TI, gu_T2I, T, I);
  else swigluBackwardJs(dgu_T2I, dact_TI, gu_T2I, T, I);
}

/** Pure-TS swigluBackward. */
export function swigluBackwardJs(
  dgu_T2I: Float32Array,
  dact_TI: Float32Array,
  gu_T2I: Float32Array,
  T: number,
  I: number,
): void {
  for (let t = 0; t < T; t++) {
    const go = t * 2 * I;
    const ao = t * I;
    for (let i = 0; i < I; i++) {
      const g = gu_T2I[go + i]!;
      const u = gu_T2I[go + I + i]!;
      const sig = 1 / (1 + Math.exp(-g));
      const d = dact_TI[ao + i]!;
      dgu_T2I[go + i] = d * u * sig * (1 + g * (1 - sig));
      dgu_T2I[go + I + i] = d * g * sig;
    }
  }
}
