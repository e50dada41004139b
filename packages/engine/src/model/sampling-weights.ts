// The projection weights a sampler multiplies by (q/k/v, o, gate/up, down, lm head), in f32 (the base model's own
// arrays, shared with training) or in a bf16 / fp16 copy made once and shared by every sampler of the base model.
// `auto` picks the narrowest format that holds every projection weight exactly (a checkpoint stored in bf16, as
// most Hub checkpoints are, loads into f32 values that are all bf16 values): the copy then changes no weight, so
// the sampler computes what the f32 trainer computes, reading half the bytes per decode step.
import { fp16ToFloat, type HalfMatrix, hgemmNT, toFp16, toHalfMatrix, type WeightFormat } from '../kernels/half.js';
import { nativeHgemm } from '../kernels/kernel.js';
import { linearForward } from '../layers/linear.js';
import type { BaseModel } from './base-model.js';

/** A projection W_OI: the f32 base weights or a half-width copy. */
export type ProjWeight = Float32Array | HalfMatrix;

/** Sampler weight storage: a format, or `auto` (the narrowest that is exact for the model, see above). */
export type SamplerWeights = WeightFormat | 'auto';

/** Per layer projections and the head, in one format. */
export interface SamplingWeights {
  format: WeightFormat;
  layers: { wQKV: ProjWeight; wO: ProjWeight; wGateUp: ProjWeight; wDown: ProjWeight }[];
  lmHead: ProjWeight;
}

const cache = new WeakMap<BaseModel, Map<SamplerWeights, SamplingWeights>>();

/** The projection matrices of a base model (views of its weights). */
function projections(base: BaseModel): Float32Array[] {
  const w = base.weights;
  return [...w.layers.flatMap((L) => [L.wQKV, L.wO, L.wGateUp, L.wDown]), w.lmHead];
}

/** True when every value of `arrays` is a bf16 (resp. fp16) value, so a copy in that format is exact. */
export function exactIn(format: 'bfloat16' | 'float16', arrays: Float32Array[]): boolean {
  for (const a of arrays) {
    if (format === 'bfloat16') {
      const u = new Uint32Array(a.buffer, a.byteOffset, a.length);
      for (let i = 0; i < u.length; i++) if ((u[i]! & 0xffff) !== 0) return false;
    } else {
      for (let i = 0; i < a.length; i++) if (fp16ToFloat(toFp16(a[i]!)) !== a[i]) return false;
    }
  }
  return true;
}

/**
 * The format `auto` resolves to for `base`: bfloat16 or float16 when exact for all projections and the native kernel
 * (which widens as it loads) is in use, else float32 (the pure-TS kernel would only pay for widening, and a copy).
 */
export function autoWeightFormat(base: BaseModel): WeightFormat {
  if (!nativeHgemm()) return 'float32';
  const p = projections(base);
  if (exactIn('bfloat16', p)) return 'bfloat16';
  if (exactIn('float16', p)) return 'float16';
  return 'float32';
}

/**
 * The base model's projections in `format`: for float32 its own arrays; for bf16 / fp16 a copy rounded once and kept
 * for as long as the base model lives (every sampler of the base shares it; the base's weights are frozen). `auto`
 * resolves with {@link autoWeightFormat}.
 */
export function samplingWeights(base: BaseModel, requested: SamplerWeights): SamplingWeights {
  let byFormat = cache.get(base);
  const hit = byFormat?.get(requested);
  if (hit) return hit;
  if (requested === 'auto') {
    const made = samplingWeights(base, autoWeightFormat(base));
    cache.get(base)!.set('auto', made);
    return made;
  }
  const format = requested;
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
