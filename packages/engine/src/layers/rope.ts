// Rotary position embedding, HF "rotate half" convention: the pair (x[i], x[i + d/2]) is rotated by pos·invFreq[i].
// Native when the addon is available (same rounding: products and sums in double, one rounding to float).
import { nativeOps } from '../kernels/kernel.js';

/** cos/sin tables, row p holds angle p·invFreq[i] for i < half; grows on demand. */
export class RopeTable {
  cos = new Float32Array(0);
  sin = new Float32Array(0);
  private rows = 0;

  constructor(
    readonly invFreq: Float64Array,
    readonly half: number,
  ) {}

  /** Makes sure positions [0, n) are tabulated. */
  ensure(n: number): void {
    if (n <= this.rows) return;
    const rows = Math.max(n, this.rows * 2, 64);
    const cos = new Float32Array(rows * this.half);
    const sin = new Float32Array(rows * this.half);
    for (let p = 0; p < rows; p++) {
      for (let i = 0; i < this.half; i++) {
        const a = p * this.invFreq[i]!;
        cos[p * this.half + i] = Math.cos(a);
        sin[p * this.half + i] = Math.sin(a);
      }
    }
    this.cos = cos;
    this.sin = sin;
    this.rows = rows;
  }
}

/** Rotates x (T rows × H heads × D, row stride ld) in place; pos_T gives each row's position. */
export function ropeForward(
  x: Float32Array,
  ld: number,
  pos_T: Int32Array,
  T: number,
  H: number,
  D: number,
  table: RopeTable,
): void {
  ropeRows(x, ld, pos_T, T, H, D, table, false);
}

/** Backward of ropeForward in place: the transpose of a rotation is the rotation by the opposite angle. */
export function ropeBackward(
  dx: Float32Array,
  ld: number,
  pos_T: Int32Array,
  T: number,
  H: number,
  D: number,
  table: RopeTable,
): void {
  ropeRows(dx, ld, pos_T, T, H, D, table, true);
}

function ropeRows(
  x: Float32Array,
  ld: number,
  pos_T: Int32Array,
  T: number,
  H: number,
  D: number,
  table: RopeTable,
  inverse: boolean,
): void {
  const ops = nativeOps();
  if (ops) ops.ropeRows(x, ld, pos_T, T, H, D, table.cos, table.sin, inverse);
  else ropeRowsJs(x, ld, pos_T, T, H, D, table, inverse);
}

/**
 * Pure-TS rope in place: the pair (x[i], x[i + D/2]) of each head turns by +angle, or by −angle when `inverse`
 * (ropeBackward). Products and sums in double, one rounding to float per value.
 */
export function ropeRowsJs(
  x: Float32Array,
  ld: number,
  pos_T: Int32Array,
  T: number,
  H: number,
  D: number,
  table: RopeTable,
  inverse: boolean,
): void {
  const half = D / 2;
  const { cos, sin } = table;
  const sgn = inverse ? -1 : 1;
  for (let t = 0; t < T; t++) {
    const po = pos_T[t]! * half;
    for (let h = 0; h < H; h++) {
      const o = t * ld + h * D;
      for (let i = 0; i < half; i++) {
        const c = cos[po + i]!;
        const s = sgn * sin[po + i]!;
        const x1 = x[o + i]!;
        const x2 = x[o + i + half]!;
        x[o + i] = x1 * c - x2 * s;
        x[o + i + half] = x2 * c + x1 * s;
      }
    }
  }
}
