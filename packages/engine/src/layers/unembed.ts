// Token embedding lookup (frozen) and the output head: logits = x·Wᵀ (+ LoRA), log-softmax and its backward
// expressed from per-target logprob gradients g = ∂L/∂lp. The training path uses the fused pair
// softmaxRowsUnnormalized + softmaxGradRows (one exp pass over the vocabulary per row, native when available).
import { nativeOps } from '../kernels/kernel.js';
import { type LoraAdapter, linearBackward, linearForward, loraBackward, loraForward } from './linear.js';

/** x_TC = E_VC[tokens_T]. */
export function embedForward(x_TC: Float32Array, E_VC: Float32Array, tokens_T: Int32Array, T: number, C: number): void {
  for (let t = 0; t < T; t++) {
    const id = tokens_T[t]!;
    x_TC.set(E_VC.subarray(id * C, id * C + C), t * C);
  }
}

/** logits_TV = x_TC·W_VCᵀ (+ LoRA, h_TR saved). */
export function unembedForward(
  logits_TV: Float32Array,
  x_TC: Float32Array,
  W_VC: Float32Array,
  lora: LoraAdapter | null,
  h_TR: Float32Array | null,
  T: number,
  C: number,
  V: number,
): void {
  linearForward(logits_TV, V, x_TC, C, W_VC, T, C, V, 0);
  if (lora && h_TR) loraForward(logits_TV, V, x_TC, C, h_TR, lora, T, C, V);
}

/** lse_T[t] = log Σ_v exp(logits[t, v]). */
export function logSumExpRows(lse_T: Float64Array, logits_TV: Float32Array, T: number, V: number): void {
  const ops = nativeOps();
  if (ops) ops.logSumExpRows(lse_T, logits_TV, T, V);
  else logSumExpRowsJs(lse_T, logits_TV, T, V);
}

/** Pure-TS logSumExpRows. */
export function logSumExpRowsJs(lse_T: Float64Array, logits_TV: Float32Array, T: number, V: number): void {
  for (let t = 0; t < T; t++) {
    const o = t * V;
    let m = Number.NEGATIVE_INFINITY;
    for (let v = 0; v < V; v++) if (logits_TV[o + v]! > m) m = logits_TV[o + v]!;
    let s = 0;
    for (let v = 0; v < V; v++) s += Math.exp(logits_TV[o + v]! - m);
    lse_T[t] = m + Math.log(s);
  }
}

/**
 * Turns logits into ∂L/∂logits in place, given g_TK = ∂L/∂lp for the K targets of each row:
 * dlogits[v] = Σ_k g_k·[v = target_k] − (Σ_k g_k)·softmax[v].
 */
export function logprobGradToLogits(
  logits_TV: Float32Array,
  lse_T: Float64Array,
  targets_TK: Int32Array,
  g_TK: Float64Array,
  T: number,
  V: number,
  K: number,
): void {
  for (let t = 0; t < T; t++) {
    const o = t * V;
    let G = 0;
    for (let k = 0; k < K; k++) G += g_TK[t * K + k]!;
    const lse = lse_T[t]!;
    if (G === 0) logits_TV.fill(0, o, o + V);
    else for (let v = 0; v < V; v++) logits_TV[o + v] = -G * Math.exp(logits_TV[o + v]! - lse);
    for (let k = 0; k < K; k++) logits_TV[o + targets_TK[t * K + k]!]! += g_TK[t * K + k]!;
  }
}

/**
 * Log-sum-exp of each row that keeps its exps: logits[t, v] ← exp(logits[t, v] − max_t), lse_T[t] and
 * invSum_T[t] = 1 / Σ_v exp(logits[t, v] − max_t). Read any logit you need (targets) before calling.
 */
export function softmaxRowsUnnormalized(
  lse_T: Float64Array,
  invSum_T: Float64Array,
  logits_TV: Float32Array,
  T: number,
  V: number,
): void {
  const ops = nativeOps();
  if (ops) ops.softmaxRowsUnnormalized(lse_T, invSum_T, logits_TV, T, V);
  else softmaxRowsUnnormalizedJs(lse_T, invSum_T, logits_TV, T, V);
}

/** Pure-TS softmaxRowsUnnormalized. */
export function softmaxRowsUnnormalizedJs(
  lse_T: Float64Array,
  invSum_T: Float64Array,
  logits_TV: Float32Array,
  T: number,
  V: number,
): void {
  for (let t = 0; t < T; t++) {
    const o = t * V;
    let m = Number.NEGATIVE_INFINITY;
    for (let v = 0; v < V; v++) if (logits_TV[o + v]! > m) m = logits_TV[o + v]!;
    let s = 0;
    for (let v = 0; v < V; v++) {
      const e = Math.exp(logits_TV[o + v]! - m);
      logits_TV[o + v] = e;
      s += e;
    }
    lse_T[t] = m + Math.log(s);
    invSum_T[t] = 1 / s;
  }
}

/**
 * Turns the exps left by softmaxRowsUnnormalized into ∂L/∂logits in place (same result as logprobGradToLogits):
 * dlogits[v] = Σ_k g_k·[v = target_k] − (Σ_k g_k)·e[v]·invSum.
 */
export function softmaxGradRows(
  e_TV: Float32Array,
  invSum_T: Float64Array,
  targets_TK: Int32Array,
  g_TK: Float64Array,
  T: number,
  V: number,
  K: number,
): void {
  const ops = nativeOps();
  if (ops) ops.softmaxGradRows(e_TV, invSum_T, targets_TK, g_TK, T, V, K);
  else softmaxGradRowsJs(e_TV, invSum_T, targets_TK, g_TK, T, V, K);
}

/** Pure-TS softmaxGradRows. */
export function softmaxGradRowsJs(
  e_TV: Float32Array,
  invSum_T: Float64Array,
  targets_TK: Int32Array,
  g_TK: Float64Array,
  T: number,
  V: number,
  K: number,
): void {
  for (let t = 0; t < T; t++) {
    const o = t * V;
    let G = 0;
    for (let k = 0; k < K; k++) G += g_TK[t * K + k]!;
    if (G === 0) e_TV.fill(0, o, o + V);
    else {
      const c = -G * invSum_T[t]!;
      for (let v = 0; v < V; v++) e_TV[o + v]! *= c;
    }
    for (let k = 0; k < K; k++) e_TV[o + targets_TK[t * K + k]!]! += g_TK[t * K + k]!;
  }
}

/** dx_TC (+)= dlogits·W (+ LoRA backward, accumulating the head's LoRA gradients). */
export function unembedBackward(
  dx_TC: Float32Array,
  dlogits_TV: Float32Array,
  x_TC: Float32Array,
  W_VC: Float32Array,
  lora: LoraAdapter | null,
  h_TR: Float32Array | null,
  dh_TR: Float32Array,
  T: number,
  C: number,
  V: number,
  beta: number,
): void {
  linearBackward(dx_TC, C, dlogits_TV, V, W_VC, T, C, V, beta);
  if (lora && h_TR) loraBackward(dx_TC, C, dlogits_TV, V, x_TC, C, h_TR, dh_TR, lora, T, C, V);
}
