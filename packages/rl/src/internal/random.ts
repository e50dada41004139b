import { DataError } from '@cookbook/core';

/** A small seeded PRNG (mulberry32), so generated datasets are reproducible. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  /** A uniformly chosen element. */
  choice<T>(items: readonly T[]): T {
    if (items.length === 0) throw new DataError('choice from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A shuffled copy. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}

/**
 * A seed in [0, 2³¹) derived from `base` and a path of indices (step, group, trajectory, turn): every path gives its
 * own well-mixed seed, and the same path always the same one.
 */
export function deriveSeed(base: number, ...path: number[]): number {
  let h = Math.imul((base | 0) ^ 0x9e3779b9, 0x85ebca6b);
  for (const p of [...path, path.length]) {
    h = Math.imul(h ^ (p | 0), 0xcc9e2d51);
    h = (h << 15) | (h >>> 17);
    h = Math.imul(h, 0x1b873593) ^ 0xe6546b64;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) & 0x7fffffff;
}
