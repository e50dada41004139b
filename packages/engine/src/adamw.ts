// AdamW with torch semantics (bias correction, decoupled weight decay) plus global-norm gradient clipping.

/**
 * Tinker's AdamParams, resolved: every field given. Their defaults and bounds have one owner, the wire schema
 * (`AdamParamsSchema`, `@cookbook/tinker-wire`), checked where a request arrives; the engine takes the values as they
 * come and checks nothing again.
 */
export interface AdamParams {
  /** Step size. */
  learningRate: number;
  /** First-moment decay, in [0, 1). */
  beta1: number;
  /** Second-moment decay, in [0, 1). */
  beta2: number;
  /** Denominator epsilon, > 0. */
  eps: number;
  /** Decoupled weight decay: p −= lr·wd·p. */
  weightDecay: number;
  /** Clip the global gradient norm to this value; 0 = off. */
  gradClipNorm: number;
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
