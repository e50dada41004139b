import { describe, expect, it } from 'vitest';
import { DataError } from './errors.js';
import { ModelInput } from './model-input.js';
import {
  maybeSparse,
  tensorFromFloat32,
  tensorFromInt64,
  tensorShape,
  tensorToBigInt64Array,
  tensorToFloat32Array,
  tensorToNumbers,
  toCsr,
  toDense,
} from './tensor-data.js';

describe('TensorData', () => {
  it('round-trips typed arrays with dtype and shape', () => {
    const f = tensorFromFloat32(new Float32Array([0.5, 1.5, -2, 3]), [2, 2]);
    expect(f).toEqual({ data: [0.5, 1.5, -2, 3], dtype: 'float32', shape: [2, 2] });
    expect(Array.from(tensorToFloat32Array(f))).toEqual([0.5, 1.5, -2, 3]);
    const i = tensorFromInt64(new BigInt64Array([1n, 2n, 3n]));
    expect(i).toEqual({ data: [1, 2, 3], dtype: 'int64' });
    expect(tensorToBigInt64Array(i)).toEqual(new BigInt64Array([1n, 2n, 3n]));
    expect(tensorShape(i)).toEqual([3]);
  });

  it('rounds float32 values to float32 precision', () => {
    expect(tensorFromFloat32([0.1]).data[0]).toBe(Math.fround(0.1));
  });

  it('rejects shapes that do not match and non-integer int64 values', () => {
    expect(() => tensorFromFloat32([1, 2, 3], [2, 2])).toThrow(/holds 4 elements/);
    expect(() => tensorFromFloat32([1, 2, 3], [2, 2])).toThrow(DataError);
    expect(() => tensorFromInt64([1.5])).toThrow(/non-integer/);
  });

  it('CSR round trip preserves every value', () => {
    const dense = tensorFromInt64([0, 0, 7, 0, 5, 0, 0, 0, 0, 0, 0, 9], [3, 4]);
    const csr = toCsr(dense);
    expect(csr.sparse_crow_indices).toEqual([0, 1, 2, 3]);
    expect(csr.sparse_col_indices).toEqual([2, 0, 3]);
    expect(csr.data).toEqual([7, 5, 9]);
    expect(tensorToNumbers(csr)).toEqual(dense.data);
    expect(toDense(csr)).toEqual(dense);
  });

  it('maybeSparse picks CSR only when it is smaller', () => {
    const sparse = tensorFromFloat32([...new Array(99).fill(0), 1], [10, 10]);
    expect(maybeSparse(sparse).sparse_crow_indices).toBeDefined();
    const full = tensorFromFloat32(new Array(100).fill(1), [10, 10]);
    expect(maybeSparse(full)).toBe(full);
  });

  it('rejects malformed CSR', () => {
    expect(() =>
      tensorToNumbers({
        data: [1],
        dtype: 'float32',
        shape: [2, 2],
        sparse_crow_indices: [0, 1],
        sparse_col_indices: [0],
      }),
    ).toThrow(/rows \+ 1/);
    expect(() =>
      tensorToNumbers({
        data: [1],
        dtype: 'float32',
        shape: [1, 2],
        sparse_crow_indices: [0, 1],
        sparse_col_indices: [5],
      }),
    ).toThrow(/out of range/);
  });
});

describe('ModelInput', () => {
  it('appends, concatenates and measures', () => {
    const a = ModelInput.fromInts([1, 2]).appendInt(3);
    expect(a.chunks).toHaveLength(1);
    expect(a.toInts()).toEqual([1, 2, 3]);
    const b = a.appendChunk({ type: 'image', data: 'x', format: 'png', expected_tokens: 4 }).appendInts([9]);
    expect(b.length).toBe(8);
    expect(() => b.toInts()).toThrow(/text-only/);
    expect(() => b.toInts()).toThrow(DataError);
    expect(ModelInput.fromJSON(JSON.parse(JSON.stringify(b)))).toEqual(b);
    expect(a.concat(ModelInput.fromInts([4])).toInts()).toEqual([1, 2, 3, 4]);
    expect(a.toInts()).toEqual([1, 2, 3]);
  });
});
