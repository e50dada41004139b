import { DataError } from '../errors.js';

/** Mulberry32: uniform floats in [0, 1) from a 32-bit state, fully determined by `seed` (folded to 32 bits). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded generator over {@link mulberry32} with the draws generated datasets need (RL envs, fakes). */
export class Mulberry32Rng {
  private readonly draw: () => number;

  constructor(seed: number) {
    this.draw = mulberry32(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.draw();
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

  /** A shuffled copy (Fisher–Yates). */
  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}
