/**
 * SplitMix32: a 32-bit counter (stepped by the golden-ratio constant) through a 32-bit finaliser. Cheap, seedable
 * from any 32-bit value, and the seeder of the larger generators here.
 */

/** A stream of unsigned 32-bit integers fully determined by `seed` (folded to 32 bits). */
export function splitMix32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/**
 * Uniform floats in [0, 1) from SplitMix32, for any number `seed` (negative, fractional and > 2³² seeds are folded
 * into the 32-bit state). The generator of the supervised datasets' shuffles: orders differ from upstream's NumPy
 * ones but are stable across runs, machines and Node versions, which is what resume needs.
 */
export function seededRandom(seed: number): () => number {
  const next = splitMix32(Math.floor(seed) ^ Math.floor(seed / 2 ** 32) ^ 0x9e3779b9);
  return () => next() / 2 ** 32;
}
