// AdamW with torch semantics (bias correction, decoupled weight decay) plus global-norm gradient clipping.
import { EngineInputError } from './errors.js';

/** Tinker AdamParams. */
export interface AdamParams {
  /** Step size (Tinker default 1e-4). */
  learningRate: number;
  /** First-moment decay (default 0.9). */
  beta1: number;
  /** Second-moment decay (default 0.95). */
  beta2: number;
  /** Denominator epsilon (default 1e-12). */
  eps: number;
  /** Decoupled weight decay: p −= lr·wd·p (default 0). */
  weightDecay: number;
  /** Clip the global gradient norm to this value; 0 = off (default). */
  gradClipNorm: number;
}

/** Fills Tinker's defaults for missing fields. */
export function resolveAdamParams(p: Partial<AdamParams>): AdamParams {
  const r: AdamParams = {
    learningRate: p.learningRate ?? 1e-4,
    beta1: p.beta1 ?? 0.9,
    beta2: p.beta2 ?? 0.95,
    eps: p.eps ?? 1e-12,
    weightDecay: p.weightDecay ?? 0,
    gradClipNorm: p.gradClipNorm ?? 0,
  };
  for (const [k, v] of Object.entries(r)) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new EngineInputError(`adam_params.${k} must be a finite number >= 0, got ${String(v)}`);
    }
  }
  if (r.beta1 >= 1 || r.beta2 >= 1) throw new EngineInputError('adam_params.beta1 and beta2 must be < 1');
  return r;
}

/**
 * One AdamW update of `params` from `grads` (clipped first when gradClipNorm > 0), with moments m and v and
 * 1-based step `t`. Zeroes `grads`. Returns the gradient norm before clipping.
 */
export function adamwStep(
  params: Float32Array,
  grads: Float32Array,
  m: Float32Array,
  v: Float32Array,
  t: number,
  p: AdamParams,
): { gradNorm: number; clipScale: number } {
  let ss = 0;
  for (let i = 0; i < grads.length; i++) ss += grads[i]! * grads[i]!;
  const gradNorm = Math.sqrt(ss);
  let clip = 1;
  if (p.gradClipNorm > 0 && gradNorm > p.gradClipNorm) clip = p.gradClipNorm / (gradNorm + 1e-6);
  const { learningRate: lr, beta1: b1, beta2: b2, eps, weightDecay: wd } = p;
  const bc1 = 1 - b1 ** t;
  const bc2s = Math.sqrt(1 - b2 ** t);
  const stepSize = lr / bc1;
  const decay = 1 - lr * wd;
  for (let i = 0; i < params.length; i++) {
    const g = grads[i]! * clip;
    const mi = b1 * m[i]! + (1 - b1) * g;
    const vi = b2 * v[i]! + (1 - b2) * g * g;
    m[i] = mi;
    v[i] = vi;
    params[i] = params[i]! * decay - (stepSize * mi) / (Math.sqrt(vi) / bc2s + eps);
  }
  grads.fill(0);
  return { gradNorm, clipScale: clip };
}
