/**
 * Python's `random.Random` (CPython's Mersenne Twister MT19937 and its integer seeding) for the few calls the ported
 * recipes make: `randint`, `randbelow`, `choice` and `shuffle`. Seeded runs then draw exactly the numbers the upstream recipe
 * draws (the rubric data generator's operands, the true-thinking score's perturbation offsets), so a data file or a
 * perturbed step can be compared with upstream's byte for byte.
 */
import { ConfigError } from '../errors.js';

const N = 624;
const M = 397;
const UPPER = 0x80000000;
const LOWER = 0x7fffffff;
const MATRIX_A = 0x9908b0df;

/** `random.Random(seed)` for a non-negative or negative integer seed (Python seeds with `abs(seed)`). */
export class PythonRandom {
  private readonly mt = new Uint32Array(N);
  private index = N + 1;

  constructor(seed: number | bigint) {
    if (typeof seed === 'number' && !Number.isSafeInteger(seed)) {
      throw new ConfigError(`PythonRandom: seed ${seed} is not a safe integer`);
    }
    let n = BigInt(seed);
    if (n < 0n) n = -n;
    const key: number[] = [];
    while (n > 0n) {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    }
    if (key.length === 0) key.push(0);
    this.initByArray(key);
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = N;
  }

  private initByArray(key: readonly number[]): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(N, key.length); k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = N - 1; k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
    this.index = N;
  }

  /** The next 32-bit output of the generator (CPython's `genrand_uint32`). */
  nextUint32(): number {
    const mt = this.mt;
    if (this.index >= N) {
      for (let kk = 0; kk < N; kk++) {
        const y = (mt[kk]! & UPPER) | (mt[(kk + 1) % N]! & LOWER);
        mt[kk] = (mt[(kk + M) % N]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0)) >>> 0;
      }
      this.index = 0;
    }
    let y = mt[this.index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `getrandbits(k)` for 1 ≤ k ≤ 32. */
  getrandbits(k: number): number {
    if (!Number.isInteger(k) || k < 1 || k > 32) throw new ConfigError(`getrandbits: k must be in [1, 32], got ${k}`);
    return this.nextUint32() >>> (32 - k);
  }

  /** `_randbelow(n)`: a uniform integer in [0, n) by rejection on `n.bit_length()` bits (0 < n < 2^32). */
  randbelow(n: number): number {
    if (!Number.isInteger(n) || n <= 0 || n >= 2 ** 32)
      throw new ConfigError(`randbelow: n must be in [1, 2^32), got ${n}`);
    const bits = n.toString(2).length;
    let r = this.getrandbits(bits);
    while (r >= n) r = this.getrandbits(bits);
    return r;
  }

  /** `randint(a, b)`: a uniform integer in [a, b] (both ends included). */
  randint(a: number, b: number): number {
    if (!Number.isSafeInteger(a) || !Number.isSafeInteger(b) || b < a) {
      throw new ConfigError(`randint: need integers a ≤ b, got ${a}, ${b}`);
    }
    return a + this.randbelow(b - a + 1);
  }

  /** `shuffle(x)`: shuffles `x` in place (Fisher–Yates from the end, as Python does). */
  shuffle<T>(x: T[]): void {
    for (let i = x.length - 1; i >= 1; i--) {
      const j = this.randbelow(i + 1);
      const t = x[i]!;
      x[i] = x[j]!;
      x[j] = t;
    }
  }

  /** `choice(seq)`: one element, uniformly. */
  choice<T>(seq: readonly T[]): T {
    if (seq.length === 0) throw new ConfigError('choice: the sequence is empty');
    return seq[this.randbelow(seq.length)]!;
  }
}
