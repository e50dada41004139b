import { seededRandom } from './splitmix32.js';

/** Fisher–Yates shuffle of `xs` in place with `random` (floats in [0, 1)); returns `xs`. */
export function shuffleInPlace<T>(xs: T[], random: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const tmp = xs[i]!;
    xs[i] = xs[j]!;
    xs[j] = tmp;
  }
  return xs;
}

/** A permutation of 0..n-1 determined by `seed` ({@link seededRandom} through {@link shuffleInPlace}). */
export function seededPermutation(n: number, seed: number): number[] {
  return shuffleInPlace(
    Array.from({ length: n }, (_, i) => i),
    seededRandom(seed),
  );
}
