// Picking a token from a row of logits (temperature, top-k, top-p) and the top-k of a row, with reusable scratch.

import type { Xoshiro128Rng } from '@cookbook/core';
import { nativeOps } from './kernels/kernel.js';

/** Up to this top-k, the k most likely tokens are found by one pass with a sorted insertion instead of a sort. */
const SMALL_TOP_K = 256;

/** Token ids below this are packed with their weight into one sortable number (2^21: the weight's 32 bits fit above). */
const ID_SPAN = 2 ** 21;

/** Token picking over one row of logits at a time; keeps its scratch buffers between calls. */
export class TokenPicker {
  private probs = new Float32Array(0);
  private idx = new Int32Array(0);
  private keys = new Float64Array(0);
  private bits = new Uint32Array(0);

  /** Top-k (token, logprob) of the row of `V` logits at `off`, most likely first. */
  topk(logits: Float32Array, off: number, V: number, k: number, lse: number): [number, number][] {
    const kk = Math.min(k, V);
    const ids: number[] = [];
    const vals: number[] = [];
    for (let v = 0; v < V; v++) {
      const x = logits[off + v]!;
      if (ids.length === kk && x <= vals[kk - 1]!) continue;
      let j = ids.length < kk ? ids.length : kk - 1;
      if (ids.length < kk) {
        ids.push(v);
        vals.push(x);
      }
      while (j > 0 && vals[j - 1]! < x) {
        ids[j] = ids[j - 1]!;
        vals[j] = vals[j - 1]!;
        j--;
      }
      ids[j] = v;
      vals[j] = x;
    }
    return ids.map((id, i) => [id, vals[i]! - lse]);
  }

  /**
   * Picks a token from one row of logits under temperature / top-k / top-p: from {@link distribution}'s probabilities
   * (the native kernel draws the unfiltered tempered softmax itself, from the same `u`).
   */
  pick(logits: Float32Array, V: number, temperature: number, topK: number, topP: number, rng: Xoshiro128Rng): number {
    const ops = temperature > 0 && topK <= 0 && topP >= 1 ? nativeOps() : null;
    if (ops) return ops.sampleRow(logits, V, 1 / temperature, rng.next());
    const best = argmax(logits, V);
    if (temperature === 0) return best;
    if (topK <= 0 && topP >= 1) {
      const total = this.weigh(logits, V, best, temperature);
      let u = rng.next() * total;
      for (let v = 0; v < V; v++) {
        u -= this.probs[v]!;
        if (u < 0) return v;
      }
      return best;
    }
    const { cut, mass } = this.filtered(logits, V, best, temperature, topK, topP);
    let u = rng.next() * mass;
    for (let i = 0; i < cut; i++) {
      const v = this.idx[i]!;
      u -= this.probs[v]!;
      if (u < 0) return v;
    }
    return this.idx[Math.max(0, cut - 1)]!;
  }

  /**
   * The probabilities {@link pick} draws from, as transformers' logits processors define them (temperature, then
   * top-k, then top-p over what top-k kept, then softmax): the logits divided by the temperature; the `topK` most
   * likely tokens kept (ties broken by the lower token id; transformers keeps every token tied with the k-th); of
   * those, the most likely ones whose mass, renormalised over what top-k kept, first reaches `topP`; renormalised.
   * Temperature 0 is the argmax. A fresh array of `V` probabilities.
   */
  distribution(logits: Float32Array, V: number, temperature: number, topK: number, topP: number): Float64Array {
    const out = new Float64Array(V);
    const best = argmax(logits, V);
    if (temperature === 0) {
      out[best] = 1;
      return out;
    }
    if (topK <= 0 && topP >= 1) {
      const total = this.weigh(logits, V, best, temperature);
      for (let v = 0; v < V; v++) out[v] = this.probs[v]! / total;
      return out;
    }
    const { cut, mass } = this.filtered(logits, V, best, temperature, topK, topP);
    for (let i = 0; i < cut; i++) out[this.idx[i]!] = this.probs[this.idx[i]!]! / mass;
    return out;
  }

  /** Fills `probs` with exp((logit − max) / temperature) and returns their sum. */
  private weigh(logits: Float32Array, V: number, best: number, temperature: number): number {
    this.reserve(V);
    const probs = this.probs;
    const mx = logits[best]!;
    const invT = 1 / temperature;
    let total = 0;
    for (let v = 0; v < V; v++) {
      const p = Math.exp((logits[v]! - mx) * invT);
      probs[v] = p;
      total += p;
    }
    return total;
  }

  private reserve(V: number): void {
    if (this.probs.length < V) {
      this.probs = new Float32Array(V);
      this.idx = new Int32Array(V);
      this.keys = new Float64Array(V);
      this.bits = new Uint32Array(this.probs.buffer);
    }
  }

  /**
   * The tokens top-k and top-p keep, `idx[0, cut)`, their weights in `probs` and the weights' sum. A small top-k is
   * found on the logits (the temperature keeps their order) and only its tokens are weighed.
   */
  private filtered(
    logits: Float32Array,
    V: number,
    best: number,
    temperature: number,
    topK: number,
    topP: number,
  ): { cut: number; mass: number } {
    const k = Math.min(topK, V);
    if (topK <= 0 || k > SMALL_TOP_K) return this.select(V, topK, topP, this.weigh(logits, V, best, temperature));
    this.reserve(V);
    const kept = this.topKIndices(logits, V, k);
    const mx = logits[best]!;
    const invT = 1 / temperature;
    for (let i = 0; i < kept; i++) {
      const v = this.idx[i]!;
      this.probs[v] = Math.exp((logits[v]! - mx) * invT);
    }
    return this.cutTopP(kept, topP);
  }

  /** Puts the tokens with weight ≥ `minP` (of the most likely token's 1) in `idx`, most likely first; their count. */
  private candidates(V: number, minP: number): number {
    const probs = this.probs;
    if (V > ID_SPAN) {
      let n = 0;
      for (let v = 0; v < V; v++) if (probs[v]! >= minP) this.idx[n++] = v;
      this.idx.subarray(0, n).sort((a, b) => probs[b]! - probs[a]! || a - b);
      return n;
    }
    // One number per token, ordered as (weight descending, id ascending) when sorted ascending: the float32 weight's
    // bits (ordered like the weights, which are ≥ 0) above the id. A typed array sorts numbers natively, ≈10× faster
    // than with a comparator (a flat row at temperature 1.5 has ~10^5 candidates per token).
    const bits = this.bits;
    let n = 0;
    for (let v = 0; v < V; v++) if (probs[v]! >= minP) this.keys[n++] = (0xffffffff - bits[v]!) * ID_SPAN + v;
    const keys = this.keys.subarray(0, n).sort();
    for (let i = 0; i < n; i++) this.idx[i] = keys[i]! % ID_SPAN;
    return n;
  }

  /**
   * The tokens top-k and top-p keep: `idx[0, cut)` and their weight. The likely tokens are tried first (weight ≥
   * 1e-4 of the most likely one's); the whole vocabulary only when top-k or top-p reaches past them.
   */
  private select(V: number, topK: number, topP: number, total: number): { cut: number; mass: number } {
    const k = topK > 0 ? Math.min(topK, V) : V;
    const take = (minP: number): { cut: number; mass: number } | undefined => {
      const n = this.candidates(V, minP);
      if (topK > 0 && n < k && n < V) return undefined;
      const kept = Math.min(k, n);
      const kMass = topK > 0 ? this.massOf(kept) : total;
      // Top-p over what top-k kept, renormalised (as transformers and vLLM apply them).
      const picked = this.cutTopP(kept, topP, kMass);
      if (picked.mass < topP * kMass && n < V) return undefined;
      return picked;
    };
    // With every token a candidate, `take` always answers.
    return take(1e-4) ?? (take(0) as { cut: number; mass: number });
  }

  /**
   * The `k` tokens of the largest logits into `idx[0, k)`, largest first (ties: the lower id), in one pass with a sorted
   * insertion (sorting every token above a threshold cost a sort of ~10^5 entries per token on a flat row).
   */
  private topKIndices(logits: Float32Array, V: number, k: number): number {
    const probs = logits;
    const idx = this.idx;
    let n = 0;
    for (let v = 0; v < V; v++) {
      const p = probs[v]!;
      if (n === k && p <= probs[idx[k - 1]!]!) continue;
      let j = n < k ? n++ : k - 1;
      while (j > 0 && probs[idx[j - 1]!]! < p) {
        idx[j] = idx[j - 1]!;
        j--;
      }
      idx[j] = v;
    }
    return n;
  }

  /**
   * Of the `kept` tokens in `idx` (most likely first), the most likely ones whose share of `kMass` (default: the mass of
   * the `kept` tokens) first reaches `topP`.
   */
  private cutTopP(kept: number, topP: number, kMass = this.massOf(kept)): { cut: number; mass: number } {
    const probs = this.probs;
    const target = topP * kMass;
    let mass = 0;
    let cut = 0;
    while (cut < kept) {
      mass += probs[this.idx[cut++]!]!;
      if (mass >= target) break;
    }
    return { cut, mass };
  }

  /** The probability mass of the first `kept` tokens in `idx`. */
  private massOf(kept: number): number {
    let mass = 0;
    for (let i = 0; i < kept; i++) mass += this.probs[this.idx[i]!]!;
    return mass;
  }
}

function argmax(logits: Float32Array, V: number): number {
  let best = 0;
  for (let v = 1; v < V; v++) if (logits[v]! > logits[best]!) best = v;
  return best;
}
