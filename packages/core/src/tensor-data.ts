/**
 * TensorData: a numeric array as it travels on the wire (upstream `tinker.TensorData`), dense or CSR.
 * Only int64 and float32 are public dtypes; int64 values are carried as JS numbers (safe up to 2^53).
 */

import { DataError } from './errors.js';

/** Public wire dtypes. */
export type TensorDType = 'int64' | 'float32';

/** The JSON form of a tensor. `data` is flattened row-major; with CSR, `data` holds only the non-zero values. */
export interface TensorData {
  data: number[];
  dtype: TensorDType;
  /** Absent means 1-D of length `data.length` (dense only). */
  shape?: number[];
  sparse_crow_indices?: number[];
  sparse_col_indices?: number[];
}

/** Anything array-like holding numbers. */
export type NumericArray = ArrayLike<number> | BigInt64Array;

function toNumbers(values: NumericArray): number[] {
  if (values instanceof BigInt64Array) return Array.from(values, (v) => Number(v));
  return Array.from(values as ArrayLike<number>);
}

function checkShape(n: number, shape: readonly number[] | undefined): void {
  if (shape === undefined) return;
  const size = shape.reduce((a, b) => a * b, 1);
  if (size !== n) throw new DataError(`shape [${shape.join(', ')}] holds ${size} elements but data has ${n}`);
}

/** A float32 tensor from values (1-D unless `shape` is given). */
export function tensorFromFloat32(values: NumericArray, shape?: readonly number[]): TensorData {
  const data = toNumbers(values);
  checkShape(data.length, shape);
  const t: TensorData = { data: Array.from(Float32Array.from(data)), dtype: 'float32' };
  if (shape !== undefined) t.shape = [...shape];
  return t;
}

/** An int64 tensor from integer values (1-D unless `shape` is given). */
export function tensorFromInt64(values: NumericArray, shape?: readonly number[]): TensorData {
  const data = toNumbers(values);
  for (const v of data) {
    if (!Number.isInteger(v)) throw new DataError(`int64 tensor got a non-integer value ${v}`);
  }
  checkShape(data.length, shape);
  const t: TensorData = { data, dtype: 'int64' };
  if (shape !== undefined) t.shape = [...shape];
  return t;
}

/** True when the tensor is in CSR form. */
export function isSparse(t: TensorData): boolean {
  return t.sparse_crow_indices !== undefined || t.sparse_col_indices !== undefined;
}

/** The tensor's shape (1-D tensors without `shape` get `[data.length]`). */
export function tensorShape(t: TensorData): number[] {
  if (t.shape !== undefined) return [...t.shape];
  if (isSparse(t)) throw new DataError('a CSR tensor needs a shape');
  return [t.data.length];
}

/** Number of elements of the dense tensor. */
export function tensorNumel(t: TensorData): number {
  return tensorShape(t).reduce((a, b) => a * b, 1);
}

/** The dense values, row-major, as plain numbers (CSR expanded). */
export function tensorToNumbers(t: TensorData): number[] {
  if (!isSparse(t)) {
    checkShape(t.data.length, t.shape);
    return [...t.data];
  }
  const shape = tensorShape(t);
  if (shape.length !== 2) throw new DataError(`a CSR tensor must be 2-D, got shape [${shape.join(', ')}]`);
  const [rows, cols] = shape as [number, number];
  const crow = t.sparse_crow_indices ?? [];
  const col = t.sparse_col_indices ?? [];
  if (crow.length !== rows + 1) {
    throw new DataError(`sparse_crow_indices has length ${crow.length}, expected rows + 1 = ${rows + 1}`);
  }
  if (col.length !== t.data.length) {
    throw new DataError(`sparse_col_indices has length ${col.length} but data has ${t.data.length} values`);
  }
  const out = new Array<number>(rows * cols).fill(0);
  for (let r = 0; r < rows; r++) {
    const start = crow[r]!;
    const end = crow[r + 1]!;
    if (start > end || end > col.length) throw new DataError(`sparse_crow_indices is not monotone at row ${r}`);
    for (let i = start; i < end; i++) {
      const c = col[i]!;
      if (c < 0 || c >= cols) throw new DataError(`sparse column index ${c} out of range [0, ${cols})`);
      out[r * cols + c] = t.data[i]!;
    }
  }
  return out;
}

/** Dense values as a Float32Array. */
export function tensorToFloat32Array(t: TensorData): Float32Array {
  return Float32Array.from(tensorToNumbers(t));
}

/** Dense values as a BigInt64Array (int64 tensors). */
export function tensorToBigInt64Array(t: TensorData): BigInt64Array {
  return BigInt64Array.from(tensorToNumbers(t), (v) => BigInt(Math.trunc(v)));
}

/** The same tensor in dense form. */
export function toDense(t: TensorData): TensorData {
  const out: TensorData = { data: tensorToNumbers(t), dtype: t.dtype };
  if (t.shape !== undefined) out.shape = [...t.shape];
  return out;
}

/** The same 2-D tensor in CSR form. */
export function toCsr(t: TensorData): TensorData {
  const shape = tensorShape(t);
  if (shape.length !== 2) throw new DataError(`CSR needs a 2-D tensor, got shape [${shape.join(', ')}]`);
  const [rows, cols] = shape as [number, number];
  const dense = tensorToNumbers(t);
  const data: number[] = [];
  const crow: number[] = [0];
  const col: number[] = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const v = dense[r * cols + c]!;
      if (v !== 0) {
        data.push(v);
        col.push(c);
      }
    }
    crow.push(data.length);
  }
  return { data, dtype: t.dtype, shape: [rows, cols], sparse_crow_indices: crow, sparse_col_indices: col };
}

/** CSR when that is smaller than dense (2-D only), as the SDK does for target_tokens / weights. */
export function maybeSparse(t: TensorData): TensorData {
  const shape = tensorShape(t);
  if (shape.length !== 2 || isSparse(t)) return t;
  const csr = toCsr(t);
  const csrSize = csr.data.length + (csr.sparse_col_indices?.length ?? 0) + (csr.sparse_crow_indices?.length ?? 0);
  return csrSize < t.data.length ? csr : t;
}
