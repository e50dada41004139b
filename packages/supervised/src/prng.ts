/**
 * A small seeded PRNG (SplitMix32 over a 32-bit state) and a Fisher–Yates shuffle on top of it. Upstream shuffles
 * with NumPy's generator through `datasets`; orders here differ from upstream's but are stable across runs,
 * machines and Node versions, which is what resume needs.
 */

/** Returns a function yielding uniform floats in [0, 1), fully determined by `seed`. */
export function seededRandom(seed: number): () => number {
  // Fold any number (negative, fractional, > 2^32) into a 32-bit state.
  let state = (Math.floor(seed) ^ Math.floor(seed / 2 ** 32) ^ 0x9e3779b9) >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    z = (z ^ (z >>> 16)) >>> 0;
    return z / 2 ** 32;
  };
}

/** A permutation of 0..n-1 determined by `seed`. */
export function seededPermutation(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  shuffleInPlace(order, seededRandom(seed));
  return order;
}

/** Fisher–Yates shuffle of `xs` with `random`. */
export function shuffleInPlace<T>(xs: T[], random: () => number): T[] {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const tmp = xs[i]!;
    xs[i] = xs[j]!;
    xs[j] = tmp;
  }
  return xs;
}
