// Picking a token from a row of logits (temperature, top-k, top-p) and the top-k of a row, with reusable scratch.
import { nativeOps } from './kernels/kernel.js';
import type { Rng } from './prng.js';

/** Token picking over one row of logits at a time; keeps its scratch buffers between calls. */
export class TokenPicker {
  private probs = new Float32Array(0);
  private idx = new Int32Array(0);

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

  /** Picks a token from one row of logits under temperature / top-k / top-p. */
  pick(logits: Float32Array, V: number, temperature: number, topK: number, topP: number, rng: Rng): number {
    const ops = temperature > 0 && topK <= 0 && topP >= 1 ? nativeOps() : null;
    if (ops) return ops.sampleRow(logits, V, 1 / temperature, rng.next());
    let best = 0;
    for (let v = 1; v < V; v++) if (logits[v]! > logits[best]!) best = v;
    if (temperature === 0) return best;
    if (this.probs.length < V) {
      this.probs = new Float32Array(V);
      this.idx = new Int32Array(V);
    }
    const probs = this.probs;
    const mx = logits[best]!;
    const invT = 1 / temperature;
    let total = 0;
    for (let v = 0; v < V; v++) {
      const p = Math.exp((logits[v]! - mx) * invT);
      probs[v] = p;
      total += p;
    }
    if (topK <= 0 && topP >= 1) {
      let u = rng.next() * total;
      for (let v = 0; v < V; v++) {
        u -= probs[v]!;
        if (u < 0) return v;
      }
      return best;
    }
    // Candidates sorted by probability; try the likely ones first, fall back to the whole vocabulary.
    const candidates = (minP: number): number => {
      let n = 0;
      for (let v = 0; v < V; v++) if (probs[v]! >= minP) this.idx[n++] = v;
      const view = this.idx.subarray(0, n);
      view.sort((a, b) => probs[b]! - probs[a]! || a - b);
      return n;
    };
    let n = candidates(1e-4);
    let limit = topK > 0 ? Math.min(topK, V) : V;
    let mass = 0;
    let cut = 0;
    const target = topP * total;
    for (; cut < n && cut < limit; cut++) {
      mass += probs[this.idx[cut]!]!;
      if (mass >= target) {
        cut++;
        break;
      }
    }
    if (mass < target && cut < limit && n < V) {
      n = candidates(0);
      limit = topK > 0 ? Math.min(topK, V) : V;
      mass = 0;
      cut = 0;
      for (; cut < n && cut < limit; cut++) {
        mass += probs[this.idx[cut]!]!;
        if (mass >= target) {
          cut++;
          break;
        }
      }
    }
    let u = rng.next() * mass;
    for (let i = 0; i < cut; i++) {
      const v = this.idx[i]!;
      u -= probs[v]!;
      if (u < 0) return v;
    }
    return this.idx[Math.max(0, cut - 1)]!;
  }
}
