// The projection weights a sampler multiplies by (q/k/v, o, gate/up, down, lm head), in f32 (the base model's own
// arrays, shared with training) or rounded once to bf16 / fp16 and shared by every sampler of the base model.
import { type HalfMatrix, hgemmNT, toHalfMatrix, type WeightFormat } from '../kernels/half.js';
import { linearForward } from '../layers/linear.js';
import type { BaseModel } from './base-model.js';

/** A projection W_OI: the f32 base weights or a half-width copy. */
export type ProjWeight = Float32Array | HalfMatrix;

/** Per layer projections and the head, in one format. */
export interface SamplingWeights {
  format: WeightFormat;
  layers: { wQKV: ProjWeight; wO: ProjWeight; wGateUp: ProjWeight; wDown: ProjWeight }[];
  lmHead: ProjWeight;
}

const cache = new WeakMap<BaseModel, Map<WeightFormat, SamplingWeights>>();

/**
 * The base model's projections in `format`: for float32 its own arrays; for bf16 / fp16 a copy rounded once and kept
 * for as long as the base model lives (every sampler of the base shares it; the base's weights are frozen).
 */
export function samplingWeights(base: BaseModel, format: WeightFormat): SamplingWeights {
  let byFormat = cache.get(base);
  const hit = byFormat?.get(format);
  if (hit) return hit;
  const c = base.config;
  const w = base.weights;
  const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KV, headDim: D } = c;
  const conv = (W: Float32Array, rows: number, cols: number): ProjWeight =>
    format === 'float32' ? W : toHalfMatrix(W, rows, cols, format);
  const made: SamplingWeights = {
    format,
    layers: w.layers.map((L) => ({
      wQKV: conv(L.wQKV, (H + 2 * KV) * D, C),
      wO: conv(L.wO, C, H * D),
      wGateUp: conv(L.wGateUp, 2 * I, C),
      wDown: conv(L.wDown, C, I),
    })),
    lmHead: conv(w.lmHead, c.vocabSize, C),
  };
  if (!byFormat) {
    byFormat = new Map();
    cache.set(base, byFormat);
  }
  byFormat.set(format, made);
  return made;
}

/** y_TO (ldy) = beta·y + x_TI (ldx)·W_OIᵀ for either storage of W. */
export function projForward(
  y: Float32Array,
  ldy: number,
  x: Float32Array,
  ldx: number,
  W: ProjWeight,
  T: number,
  I: number,
  O: number,
  beta: number,
): void {
  if (W instanceof Float32Array) linearForward(y, ldy, x, ldx, W, T, I, O, beta);
  else hgemmNT(T, O, I, 1, x, ldx, W, beta, y, ldy);
}
