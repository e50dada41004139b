// Gradients of a base model's own weights (every tensor but the token embedding), for full-parameter training of
// the built-in stand-ins' layers (see full-model.ts). The forward/backward of transformer.ts adds into them when
// given; the LoRA path never allocates them. Shapes and fusion mirror LayerWeights (q/k/v and gate/up fused).
import { sgemm } from './kernels/kernel.js';
import type { ModelConfig } from './model/config.js';
import type { LayerWeights, ModelWeights } from './model/weights.js';

/**
 * ∂L/∂(layer weights and final norm), shaped like the weights they belong to; with `embed`, also ∂L/∂(input
 * embedding) and ∂L/∂(output head) (`lmHead === embed` when the two are tied).
 */
export interface BaseGrads {
  layers: LayerWeights[];
  finalNorm: Float32Array;
  embed?: Float32Array;
  lmHead?: Float32Array;
}

/** The trainable (non-embedding) tensors of `w` in a stable order: norms and matrices of every layer, final norm. */
export function trainableTensors(w: Pick<ModelWeights, 'layers' | 'finalNorm'>): Float32Array[] {
  const out: Float32Array[] = [];
  for (const L of w.layers) {
    out.push(L.inputNorm, L.wQKV, L.wO, L.postNorm, L.wGateUp, L.wDown);
    if (L.qNorm) out.push(L.qNorm);
    if (L.kNorm) out.push(L.kNorm);
  }
  out.push(w.finalNorm);
  return out;
}

/**
 * Gradient buffers for the trainable tensors of a model of config `c` (with `embedding`, the embedding and an untied
 * head too, after the rest), as views of one flat zeroed buffer in the order of {@link trainableTensors}.
 */
export function allocBaseGrads(
  c: ModelConfig,
  w: ModelWeights,
  embedding = false,
): { grads: BaseGrads; flat: Float32Array } {
  const sizes = trainableTensors(w).map((t) => t.length);
  const untied = w.lmHead !== w.embed;
  const embedSize = embedding ? w.embed.length + (untied ? w.lmHead.length : 0) : 0;
  const flat = new Float32Array(sizes.reduce((a, b) => a + b, 0) + embedSize);
  let off = 0;
  const take = (n: number) => {
    const v = flat.subarray(off, off + n);
    off += n;
    return v;
  };
  const layers = w.layers.map((L) => {
    const g: LayerWeights = {
      inputNorm: take(L.inputNorm.length),
      wQKV: take(L.wQKV.length),
      wO: take(L.wO.length),
      postNorm: take(L.postNorm.length),
      wGateUp: take(L.wGateUp.length),
      wDown: take(L.wDown.length),
      qNorm: null,
      kNorm: null,
    };
    if (L.qNorm) g.qNorm = take(L.qNorm.length);
    if (L.kNorm) g.kNorm = take(L.kNorm.length);
    return g;
  });
  const grads: BaseGrads = { layers, finalNorm: take(w.finalNorm.length) };
  if (embedding) {
    grads.embed = take(w.embed.length);
    grads.lmHead = untied ? take(w.lmHead.length) : grads.embed;
  }
  if (off !== flat.length || c.numLayers !== layers.length) throw new Error('base grads: layout mismatch');
  return { grads, flat };
}

/** gW_OI += dy_TOᵀ·x_TI: the gradient of a linear map's weight. */
export function linearWeightGrad(
  gW_OI: Float32Array,
  dy: Float32Array,
  lddy: number,
  x: Float32Array,
  ldx: number,
  T: number,
  I: number,
  O: number,
): void {
  sgemm(true, false, O, I, T, 1, dy, lddy, x, ldx, 1, gW_OI, I);
}

/**
 * gw_C += Σ_r dy[r]·x[r]·rstd[r]: the gradient of an RMSNorm's weight given ∂L/∂y, the forward input and 1/rms per
 * row (R rows of C values, strided by ldy / ldx).
 */
export function rmsnormWeightGrad(
  gw_C: Float32Array,
  dy: Float32Array,
  lddy: number,
  x: Float32Array,
  ldx: number,
  rstd_R: Float32Array,
  R: number,
  C: number,
): void {
  for (let r = 0; r < R; r++) {
    const s = rstd_R[r]!;
    const yo = r * lddy;
    const xo = r * ldx;
    for (let c = 0; c < C; c++) gw_C[c]! += dy[yo + c]! * x[xo + c]! * s;
  }
}
