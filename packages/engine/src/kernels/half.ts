// 16-bit float weights (bf16 or fp16) for sampling: rounding from f32, widening back, and x·Wᵀ with W stored
// half-width and widened inside the kernel (native `hgemmNT` when the addon has it, else blocks widened here and
// multiplied by the float kernel). Halving the bytes a decode step reads is what makes decode faster: it is
// memory-bound.
import { KernelError } from '../errors.js';
import { nativeHgemm } from './kernel.js';
import { sgemmJs } from './sgemm-js.js';

/** Storage format of a sampler's projection weights. */
export type WeightFormat = 'float32' | 'bfloat16' | 'float16';

/** A matrix W (rows × cols, row-major) stored as bf16 or fp16 bit patterns. */
export interface HalfMatrix {
  format: 'bfloat16' | 'float16';
  data: Uint16Array;
  rows: number;
  cols: number;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The bf16 nearest to x (ties to even); NaN stays NaN. */
export function toBf16(x: number): number {
  f32[0] = x;
  const u = u32[0]!;
  if ((u & 0x7fffffff) > 0x7f800000) return ((u >>> 16) | 0x40) & 0xffff;
  return ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}

/** The fp16 nearest to x (ties to even; beyond the largest finite fp16 → ±inf); NaN stays NaN. */
export function toFp16(x: number): number {
  f32[0] = x;
  const u = u32[0]!;
  const sign = (u >>> 16) & 0x8000;
  const a = u & 0x7fffffff;
  if (a > 0x7f800000) return sign | 0x7e00;
  if (a >= 0x477ff000) return sign | 0x7c00; // rounds to ≥ 65520: inf
  if (a < 0x38800000) {
    // subnormal fp16 (or zero): value = m·2⁻²⁴, m = round(|x|·2²⁴) ties to even
    const v = Math.abs(f32[0]!) * 16777216;
    let m = Math.floor(v);
    const r = v - m;
    if (r > 0.5 || (r === 0.5 && (m & 1) === 1)) m++;
    return sign | m;
  }
  // normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even
  const t = a - 0x38000000;
  return sign | ((t + 0xfff + ((t >>> 13) & 1)) >>> 13);
}

/** The float value of a bf16 bit pattern. */
export function bf16ToFloat(h: number): number {
  u32[0] = h << 16;
  return f32[0]!;
}

/** The float value of an fp16 bit pattern. */
export function fp16ToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >>> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m === 0 ? sign * Number.POSITIVE_INFINITY : Number.NaN;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

/** W (rows × cols f32) rounded to `format`. */
export function toHalfMatrix(W: Float32Array, rows: number, cols: number, format: 'bfloat16' | 'float16'): HalfMatrix {
  if (W.length < rows * cols) throw new KernelError(`toHalfMatrix: ${W.length} values for ${rows}×${cols}`);
  const data = new Uint16Array(rows * cols);
  const round = format === 'bfloat16' ? toBf16 : toFp16;
  for (let i = 0; i < data.length; i++) data[i] = round(W[i]!);
  return { format, data, rows, cols };
}

/** dst[i] = the value of src[from + i], i < n. */
export function widenHalf(dst: Float32Array, src: Uint16Array, from: number, n: number, format: HalfMatrix['format']) {
  if (format === 'bfloat16') {
    const d = new Uint32Array(dst.buffer, dst.byteOffset, n);
    for (let i = 0; i < n; i++) d[i] = src[from + i]! << 16;
  } else {
    for (let i = 0; i < n; i++) dst[i] = fp16ToFloat(src[from + i]!);
  }
}

function checkShapes(
  T: number,
  O: number,
  I: number,
  x: Float32Array,
  ldx: number,
  W: HalfMatrix,
  y: Float32Array,
  ldy: number,
): void {
  if (W.rows !== O || W.cols !== I) throw new KernelError(`hgemmNT: W is ${W.rows}×${W.cols}, expected ${O}×${I}`);
  if (T === 0) return;
  if (ldx < I || x.length < (T - 1) * ldx + I) throw new KernelError(`hgemmNT: x too small for ${T}×${I} (ld ${ldx})`);
  if (ldy < O || y.length < (T - 1) * ldy + O) throw new KernelError(`hgemmNT: y too small for ${T}×${O} (ld ${ldy})`);
}

/** Rows of W widened per block when the native kernel is not used (bounded scratch). */
const JS_BLOCK_FLOATS = 1 << 18;
let block = new Float32Array(0);

/**
 * y_TO (ldy) = beta·y + alpha·x_TI (ldx)·Wᵀ with W (O × I) half-width. Up to `rowIndependentRows()` rows each row
 * gets the result it gets alone, as with `sgemm`.
 */
export function hgemmNT(
  T: number,
  O: number,
  I: number,
  alpha: number,
  x: Float32Array,
  ldx: number,
  W: HalfMatrix,
  beta: number,
  y: Float32Array,
  ldy: number,
): void {
  checkShapes(T, O, I, x, ldx, W, y, ldy);
  const native = nativeHgemm();
  if (native) native(W.format === 'bfloat16' ? 0 : 1, T, O, I, alpha, x, ldx, W.data, I, beta, y, ldy);
  else hgemmNTJs(T, O, I, alpha, x, ldx, W, beta, y, ldy);
}

/** {@link hgemmNT} without the native kernel: blocks of W widened here and multiplied by the pure-TS kernel. */
export function hgemmNTJs(
  T: number,
  O: number,
  I: number,
  alpha: number,
  x: Float32Array,
  ldx: number,
  W: HalfMatrix,
  beta: number,
  y: Float32Array,
  ldy: number,
): void {
  checkShapes(T, O, I, x, ldx, W, y, ldy);
  const rows = Math.max(1, Math.floor(JS_BLOCK_FLOATS / Math.max(I, 1)));
  if (block.length < rows * I) block = new Float32Array(rows * I);
  for (let j = 0; j < O; j += rows) {
    const n = Math.min(rows, O - j);
    widenHalf(block, W.data, j * I, n * I, W.format);
    sgemmJs(false, true, T, n, I, alpha, x, ldx, block, I, beta, y.subarray(j), ldy);
  }
}
