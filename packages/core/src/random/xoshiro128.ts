import { splitMix32 } from './splitmix32.js';

// Seeded pseudo-random numbers (SplitMix32 seeding a xoshiro128** generator): deterministic across runs and
// platforms, cheap enough to initialise millions of weights. The engine's generator (weight init, sampling).

/** Deterministic random generator (xoshiro128**): same seed, same stream; 64-bit seeds are folded in. */
export class Xoshiro128Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;
  private spare: number | null = null;

  constructor(seed: number | bigint) {
    const big = BigInt.asUintN(64, BigInt(seed));
    const lo = Number(big & 0xffffffffn);
    const hi = Number(big >> 32n);
    const sm = splitMix32((lo ^ Math.imul(hi, 0x27d4eb2d)) >>> 0);
    this.a = sm();
    this.b = sm() ^ hi;
    this.c = sm();
    this.d = sm() | 1;
  }

  /** Next 32 random bits as an unsigned integer. */
  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.b, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.b << 9) >>> 0;
    this.c ^= this.a;
    this.d ^= this.b;
    this.b ^= this.c;
    this.a ^= this.d;
    this.c ^= t;
    this.d = rotl(this.d, 11);
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    return result;
  }

  /** Uniform float in [0, 1) with 53 random bits. */
  next(): number {
    const hi = this.nextU32() >>> 5;
    const lo = this.nextU32() >>> 6;
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** Standard normal sample (Box–Muller, caching the second value). */
  normal(): number {
    if (this.spare !== null) {
      const s = this.spare;
      this.spare = null;
      return s;
    }
    let u = this.next();
    while (u <= 1e-300) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  }

  /** Fills `out` with N(0, std²) samples. */
  fillNormal(out: Float32Array, std: number): Float32Array {
    for (let i = 0; i < out.length; i++) out[i] = this.normal() * std;
    return out;
  }

  /** Fills `out` with U(-bound, bound) samples. */
  fillUniform(out: Float32Array, bound: number): Float32Array {
    for (let i = 0; i < out.length; i++) out[i] = (this.next() * 2 - 1) * bound;
    return out;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}

/** A random 53-bit seed for calls without a seed. */
export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 53);
}
