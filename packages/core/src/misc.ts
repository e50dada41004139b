/** Small utilities (upstream `utils/misc_utils.py`). */

import { ConfigError, DataError } from './errors.js';

/** Zip arrays of equal length; throws on a length mismatch instead of truncating. */
export function safeZip<A, B>(a: readonly A[], b: readonly B[]): [A, B][];
export function safeZip<A, B, C>(a: readonly A[], b: readonly B[], c: readonly C[]): [A, B, C][];
export function safeZip(...arrays: (readonly unknown[])[]): unknown[][];
export function safeZip(...arrays: (readonly unknown[])[]): unknown[][] {
  const n = arrays[0]?.length ?? 0;
  arrays.forEach((arr, i) => {
    if (arr.length !== n) {
      throw new DataError(`safeZip: argument ${i} has length ${arr.length}, argument 0 has length ${n}`);
    }
  });
  const out: unknown[][] = [];
  for (let i = 0; i < n; i++) out.push(arrays.map((arr) => arr[i]));
  return out;
}

/** Split `items` into `n` contiguous chunks whose sizes differ by at most one. */
export function splitList<T>(items: readonly T[], n: number): T[][] {
  if (!Number.isInteger(n) || n <= 0) throw new ConfigError(`splitList: n must be a positive integer, got ${n}`);
  const out: T[][] = [];
  const base = Math.floor(items.length / n);
  const extra = items.length % n;
  let start = 0;
  for (let i = 0; i < n; i++) {
    const size = base + (i < extra ? 1 : 0);
    out.push(items.slice(start, start + size));
    start += size;
  }
  return out;
}

/** Mean of each key over the dicts that have it. */
export function dictMean(dicts: readonly Record<string, number>[]): Record<string, number> {
  const sums: Record<string, number> = {};
  const counts: Record<string, number> = {};
  for (const d of dicts) {
    for (const [k, v] of Object.entries(d)) {
      sums[k] = (sums[k] ?? 0) + v;
      counts[k] = (counts[k] ?? 0) + 1;
    }
  }
  const out: Record<string, number> = {};
  for (const k of Object.keys(sums)) out[k] = sums[k]! / counts[k]!;
  return out;
}

/** True when every element equals the first (by ===). */
export function allSame<T>(items: readonly T[]): boolean {
  return items.every((x) => x === items[0]);
}

/** `iteration_000042` style folder name for a step. */
export function iterationDir(step: number): string {
  return `iteration_${String(step).padStart(6, '0')}`;
}
