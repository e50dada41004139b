/**
 * A seed in [0, 2³¹) derived from `base` and a path of indices (step, group, trajectory, turn): every path gives its
 * own well-mixed seed (a MurmurHash3-style mix), and the same path always the same one.
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
