/**
 * The two shuffles upstream's benchmarks cut a `max_examples` subset with, re-implemented so that a subset here is
 * the subset upstream evaluates (same rows, same order), and scores compare:
 *
 * - {@link pythonShuffle}: Python's `random.Random(seed).shuffle(rows)` (MMLU-Redux, C-Eval) — the Mersenne Twister
 *   seeded as CPython seeds it from an integer (`init_by_array` over its 32-bit words) and CPython's `shuffle`
 *   (Fisher–Yates from the end, each index drawn by `_randbelow`: `getrandbits(bit_length(n))`, redrawn while ≥ n).
 * - {@link numpyPermutation}: `numpy.random.default_rng(seed).permutation(n)`, which Hugging Face `datasets` uses for
 *   `Dataset.shuffle(seed=…)` (MMLU-Pro, SuperGPQA) — a `SeedSequence` (its hash mixing over a pool of four 32-bit
 *   words), PCG64 (128-bit LCG, XSL-RR output, 32-bit draws taken low half first) and numpy's Fisher–Yates whose index
 *   is drawn by masked rejection (`random_interval`).
 *
 * Both are checked against Python and numpy on fixed sizes (`__fixtures__/upstream-subsets.json`). The Mersenne
 * Twister is `@cookbook/core`'s {@link PythonRandom}.
 */
import { PythonRandom } from '@cookbook/core';

/** A copy of `items` in the order `random.Random(seed).shuffle` leaves it (CPython 3.x). */
export function pythonShuffle<T>(items: readonly T[], seed: number): T[] {
  if (items.length > 0xffff_ffff) throw new RangeError(`too many items to shuffle: ${items.length}`);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a non-negative integer: ${seed}`);
  const out = [...items];
  new PythonRandom(seed).shuffle(out);
  return out;
}

const U32 = 0xffff_ffffn;
const U64 = (1n << 64n) - 1n;
const U128 = (1n << 128n) - 1n;
const PCG_MULT = 0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645n;

/** numpy's `SeedSequence(seed).generate_state(4, uint64)` as two 128-bit numbers (state seed, increment seed). */
function seedSequenceState(seed: number): [bigint, bigint] {
  const INIT_A = 0x43b0d7e5;
  const MULT_A = 0x931e8875;
  const INIT_B = 0x8b51f9dd;
  const MULT_B = 0x58f38ded;
  const MIX_MULT_L = 0xca01f9dd;
  const MIX_MULT_R = 0x4973f715;
  const entropy: number[] = [];
  let rest = seed;
  do {
    entropy.push(rest % 0x1_0000_0000);
    rest = Math.floor(rest / 0x1_0000_0000);
  } while (rest > 0);
  let hashConst = INIT_A;
  const hashmix = (value: number): number => {
    let v = (value ^ hashConst) >>> 0;
    hashConst = Math.imul(hashConst, MULT_A) >>> 0;
    v = Math.imul(v, hashConst) >>> 0;
    return (v ^ (v >>> 16)) >>> 0;
  };
  const mix = (x: number, y: number): number => {
    const r = (Math.imul(MIX_MULT_L, x) - Math.imul(MIX_MULT_R, y)) >>> 0;
    return (r ^ (r >>> 16)) >>> 0;
  };
  const pool = [0, 0, 0, 0];
  for (let i = 0; i < pool.length; i++) pool[i] = hashmix(i < entropy.length ? entropy[i]! : 0);
  for (let src = 0; src < pool.length; src++) {
    for (let dst = 0; dst < pool.length; dst++) {
      if (src !== dst) pool[dst] = mix(pool[dst]!, hashmix(pool[src]!));
    }
  }
  for (let src = pool.length; src < entropy.length; src++) {
    for (let dst = 0; dst < pool.length; dst++) pool[dst] = mix(pool[dst]!, hashmix(entropy[src]!));
  }
  // generate_state: eight 32-bit words, read as four little-endian 64-bit words.
  let hb = INIT_B;
  const words: number[] = [];
  for (let i = 0; i < 8; i++) {
    let v = (pool[i % pool.length]! ^ hb) >>> 0;
    hb = Math.imul(hb, MULT_B) >>> 0;
    v = Math.imul(v, hb) >>> 0;
    words.push((v ^ (v >>> 16)) >>> 0);
  }
  const u64 = (i: number) => (BigInt(words[2 * i + 1]!) << 32n) | BigInt(words[2 * i]!);
  return [(u64(0) << 64n) | u64(1), (u64(2) << 64n) | u64(3)];
}

/** numpy's PCG64 bit generator with its buffered 32-bit draws. */
class NumpyPcg64 {
  private state = 0n;
  private readonly inc: bigint;
  private spare: number | undefined;

  constructor(seed: number) {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a non-negative integer: ${seed}`);
    const [initState, initSeq] = seedSequenceState(seed);
    this.inc = ((initSeq << 1n) | 1n) & U128;
    this.step();
    this.state = (this.state + initState) & U128;
    this.step();
  }

  private step(): void {
    this.state = (this.state * PCG_MULT + this.inc) & U128;
  }

  nextUint64(): bigint {
    this.step();
    const s = this.state;
    const x = ((s >> 64n) ^ s) & U64;
    const rot = s >> 122n;
    return ((x >> rot) | (x << ((64n - rot) & 63n))) & U64;
  }

  nextUint32(): number {
    if (this.spare !== undefined) {
      const v = this.spare;
      this.spare = undefined;
      return v;
    }
    const next = this.nextUint64();
    this.spare = Number(next >> 32n);
    return Number(next & U32);
  }

  /** numpy's `random_interval(max)`: uniform on 0..max by masked rejection (max < 2^32). */
  interval(max: number): number {
    if (max === 0) return 0;
    let mask = max;
    mask |= mask >>> 1;
    mask |= mask >>> 2;
    mask |= mask >>> 4;
    mask |= mask >>> 8;
    mask |= mask >>> 16;
    for (;;) {
      const v = (this.nextUint32() & mask) >>> 0;
      if (v <= max) return v;
    }
  }
}

/** `numpy.random.default_rng(seed).permutation(n)`: what `datasets`' `Dataset.shuffle(seed=seed)` reads rows by. */
export function numpyPermutation(n: number, seed: number): number[] {
  if (!Number.isSafeInteger(n) || n < 0 || n > 0xffff_ffff) throw new RangeError(`bad permutation size: ${n}`);
  const out = Array.from({ length: n }, (_, i) => i);
  const rng = new NumpyPcg64(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.interval(i);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
