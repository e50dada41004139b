import { ConfigError } from '../errors.js';
import { splitMix32 } from './splitmix32.js';

/**
 * A small seeded PRNG (sfc32 seeded through SplitMix32) so every GEM env owns its random stream.
 *
 * Invariant: the same seed yields the same sequence on every platform; no global state is read or written.
 * GEM uses Python's global Mersenne Twister; this port matches GEM's distributions, not its exact streams.
 */
export class Sfc32Rng {
  private a = 0;
  private b = 0;
  private c = 0;
  private d = 0;

  constructor(seed: number = Date.now()) {
    this.seed(seed);
  }

  /** Re-seeds the stream. Any finite number works; fractional parts are folded in. */
  seed(seed: number): void {
    const next = splitMix32(Math.floor(seed) ^ Math.floor((seed % 1) * 0x100000000));
    this.a = next();
    this.b = next();
    this.c = next();
    this.d = next();
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  /** A uniform 32-bit unsigned integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t;
  }

  /** A uniform float in [0, 1). */
  random(): number {
    return this.nextUint32() / 0x100000000;
  }

  /** A uniform integer in [lo, hi] (both inclusive), without modulo bias. */
  int(lo: number, hi: number): number {
    if (!Number.isInteger(lo) || !Number.isInteger(hi) || hi < lo) {
      throw new ConfigError(`Sfc32Rng.int: need integers lo <= hi, got ${lo}, ${hi}`);
    }
    const span = hi - lo + 1;
    if (span > 0x100000000) return lo + Math.floor(this.random() * span);
    const limit = 0x100000000 - (0x100000000 % span);
    let x = this.nextUint32();
    while (x >= limit) x = this.nextUint32();
    return lo + (x % span);
  }

  /** One element, uniformly. Throws on an empty array. */
  choice<T>(items: readonly T[]): T {
    if (items.length === 0) throw new ConfigError('Sfc32Rng.choice: empty array');
    return items[this.int(0, items.length - 1)] as T;
  }

  /** Shuffles in place (Fisher–Yates) and returns the array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(0, i);
      const tmp = items[i] as T;
      items[i] = items[j] as T;
      items[j] = tmp;
    }
    return items;
  }

  /** `k` distinct elements in random order (Python's `random.sample`). */
  sample<T>(items: readonly T[], k: number): T[] {
    if (k > items.length) throw new ConfigError(`Sfc32Rng.sample: k=${k} > ${items.length} items`);
    return this.shuffle([...items]).slice(0, k);
  }
}
