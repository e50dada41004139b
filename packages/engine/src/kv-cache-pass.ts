// The sampler's forward pass over its KV cache: the cache itself (per layer, a region of `cacheLen` positions per
// slot), the activation buffers, one pass of n new tokens for a set of slots (a prompt chunk for one slot, or one
// decode token for each of many), and the logits of rows of the pass's output. The sampler (sampler.ts) decides what
// runs when; this file holds the arithmetic, unchanged from when both were one class.
import { EngineInputError } from './errors.js';
import { attentionDecodeBatch, attentionForward } from './layers/attention.js';
import { loraForward } from './layers/linear.js';
import { rmsnormForward } from './layers/rmsnorm.js';
import { ropeForward } from './layers/rope.js';
import { swigluForward } from './layers/swiglu.js';
import { embedForward, logSumExpRows } from './layers/unembed.js';
import type { LoraWeights } from './lora.js';
import type { BaseModel } from './model/base-model.js';
import { projForward, type SamplingWeights } from './model/sampling-weights.js';

/** Prompt rows per prefill pass (and the log-sum-exp buffer's starting size). */
export const PREFILL_ROWS = 256;

/** A base model plus an optional LoRA snapshot, run forward over a growing KV cache. */
export class KvCachePass {
  /** Keys per layer: slot s, position p at `(s·cacheLen + p)·numKvHeads·headDim`. */
  readonly kCache: Float32Array[] = [];
  /** Values per layer, laid out like {@link kCache}. */
  readonly vCache: Float32Array[] = [];
  /** Sequences the cache holds. */
  cacheSlots = 0;
  /** Positions per sequence the cache holds. */
  cacheLen = 0;
  private bufRows = 0;
  private x = new Float32Array(0);
  /** The last pass's final normed hidden states, a row per token (what {@link logitsRows} reads). */
  xn = new Float32Array(0);
  private qkv = new Float32Array(0);
  private qr = new Float32Array(0);
  private kr = new Float32Array(0);
  private rstd = new Float32Array(0);
  private o = new Float32Array(0);
  private gu = new Float32Array(0);
  private act = new Float32Array(0);
  private h = new Float32Array(0);
  private att = new Float32Array(0);
  /** Logits rows written by {@link logitsRows}. */
  logits = new Float32Array(0);
  /** Their log-sum-exp, a value per row. */
  lse = new Float64Array(PREFILL_ROWS);

  constructor(
    readonly base: BaseModel,
    readonly lora: LoraWeights | null,
    private readonly proj: SamplingWeights,
  ) {}

  /** Grows the activation buffers to hold `rows` rows. */
  ensureRows(rows: number): void {
    if (rows <= this.bufRows) return;
    const c = this.base.config;
    const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KV, headDim: D } = c;
    const R = this.lora?.spec.rank ?? 1;
    this.x = new Float32Array(rows * C);
    this.xn = new Float32Array(rows * C);
    this.qkv = new Float32Array(rows * (H + 2 * KV) * D);
    this.qr = new Float32Array(rows * H * D);
    this.kr = new Float32Array(rows * KV * D);
    this.rstd = new Float32Array(rows * Math.max(H, 1));
    this.o = new Float32Array(rows * H * D);
    this.gu = new Float32Array(rows * 2 * I);
    this.act = new Float32Array(rows * I);
    this.h = new Float32Array(rows * R);
    this.bufRows = rows;
  }

  /**
   * Grows the KV cache to hold `slots` sequences of `len` positions; with `keep`, the slots keep what they hold
   * (otherwise the new cache starts empty).
   */
  ensureCache(slots: number, len: number, keep: boolean): void {
    if (slots <= this.cacheSlots && len <= this.cacheLen) return;
    const c = this.base.config;
    const KD = c.numKvHeads * c.headDim;
    const oldSlots = this.cacheSlots;
    const oldLen = this.cacheLen;
    this.cacheSlots = Math.max(slots, this.cacheSlots);
    this.cacheLen = Math.max(len, this.cacheLen);
    for (let l = 0; l < c.numLayers; l++) {
      const k = new Float32Array(this.cacheSlots * this.cacheLen * KD);
      const v = new Float32Array(this.cacheSlots * this.cacheLen * KD);
      if (keep) {
        for (let s = 0; s < oldSlots; s++) {
          k.set(this.kCache[l]!.subarray(s * oldLen * KD, (s + 1) * oldLen * KD), s * this.cacheLen * KD);
          v.set(this.vCache[l]!.subarray(s * oldLen * KD, (s + 1) * oldLen * KD), s * this.cacheLen * KD);
        }
      }
      this.kCache[l] = k;
      this.vCache[l] = v;
    }
  }

  /**
   * Runs `n` new tokens for each of the sequences in `slots` (rows ordered slot-major), sequence b starting at
   * position p0[b], appending their keys/values to the cache; leaves the final normed hidden states in {@link xn}.
   */
  step(tokens: Int32Array, slots: Int32Array, n: number, p0: Int32Array): void {
    const c = this.base.config;
    const w = this.base.weights;
    const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KV, headDim: D } = c;
    const QD = H * D;
    const KD = KV * D;
    const QKV = QD + 2 * KD;
    const eps = c.rmsNormEps;
    const rows = slots.length * n;
    const L = this.cacheLen;
    const pos = new Int32Array(rows);
    let end = 0;
    for (let r = 0; r < rows; r++) pos[r] = p0[Math.floor(r / n)]! + (r % n);
    for (const p of p0) end = Math.max(end, p + n);
    this.base.rope.ensure(end);
    if (this.att.length < n * end) this.att = new Float32Array(n * end);
    // a decode step (one row per slot): each slot's cache rows and how many of them its query sees
    const decode =
      n === 1 ? { first: Int32Array.from(slots, (sl) => sl * L), lens: Int32Array.from(p0, (p) => p + 1) } : null;
    embedForward(this.x, w.embed, tokens, rows, C);
    for (let l = 0; l < c.numLayers; l++) {
      const W = w.layers[l]!;
      const P = this.proj.layers[l]!;
      const ll = this.lora?.layers[l];
      rmsnormForward(this.xn, C, this.rstd, this.x, C, W.inputNorm, rows, C, eps, true);
      projForward(this.qkv, QKV, this.xn, C, P.wQKV, rows, C, QKV, 0);
      if (ll?.q) loraForward(this.qkv, QKV, this.xn, C, this.h, ll.q, rows, C, QD);
      if (ll?.k) loraForward(this.qkv.subarray(QD), QKV, this.xn, C, this.h, ll.k, rows, C, KD);
      if (ll?.v) loraForward(this.qkv.subarray(QD + KD), QKV, this.xn, C, this.h, ll.v, rows, C, KD);
      for (let r = 0; r < rows; r++) {
        if (W.qNorm && W.kNorm) {
          rmsnormForward(this.qr.subarray(r * QD), D, this.rstd, this.qkv.subarray(r * QKV), D, W.qNorm, H, D, eps);
          rmsnormForward(
            this.kr.subarray(r * KD),
            D,
            this.rstd,
            this.qkv.subarray(r * QKV + QD),
            D,
            W.kNorm,
            KV,
            D,
            eps,
          );
        } else {
          this.qr.set(this.qkv.subarray(r * QKV, r * QKV + QD), r * QD);
          this.kr.set(this.qkv.subarray(r * QKV + QD, r * QKV + QD + KD), r * KD);
        }
      }
      ropeForward(this.qr, QD, pos, rows, H, D, this.base.rope);
      ropeForward(this.kr, KD, pos, rows, KV, D, this.base.rope);
      const kc = this.kCache[l]!;
      const vc = this.vCache[l]!;
      for (let b = 0; b < slots.length; b++) {
        const base = slots[b]! * L * KD;
        const at = p0[b]!;
        for (let i = 0; i < n; i++) {
          const r = b * n + i;
          kc.set(this.kr.subarray(r * KD, r * KD + KD), base + (at + i) * KD);
          vc.set(this.qkv.subarray(r * QKV + QD + KD, r * QKV + QKV), base + (at + i) * KD);
        }
        if (n === 1) continue; // decode rows: attention for all of them below
        attentionForward(
          this.o.subarray(b * n * QD),
          QD,
          this.qr.subarray(b * n * QD),
          QD,
          kc.subarray(base),
          KD,
          vc.subarray(base),
          KD,
          this.att,
          { T: n, S: at + n, H, KV, D },
        );
      }
      if (decode) attentionDecodeBatch(this.o, this.qr, kc, vc, KD, decode.first, decode.lens, H, KV, D, this.att);
      projForward(this.x, C, this.o, QD, P.wO, rows, QD, C, 1);
      if (ll?.o) loraForward(this.x, C, this.o, QD, this.h, ll.o, rows, QD, C);
      rmsnormForward(this.xn, C, this.rstd, this.x, C, W.postNorm, rows, C, eps, true);
      projForward(this.gu, 2 * I, this.xn, C, P.wGateUp, rows, C, 2 * I, 0);
      if (ll?.gate) loraForward(this.gu, 2 * I, this.xn, C, this.h, ll.gate, rows, C, I);
      if (ll?.up) loraForward(this.gu.subarray(I), 2 * I, this.xn, C, this.h, ll.up, rows, C, I);
      swigluForward(this.act, this.gu, rows, I);
      projForward(this.x, C, this.act, I, P.wDown, rows, I, C, 1);
      if (ll?.down) loraForward(this.x, C, this.act, I, this.h, ll.down, rows, I, C);
    }
    rmsnormForward(this.xn, C, this.rstd, this.x, C, w.finalNorm, rows, C, eps, true);
  }

  /**
   * Logits (and their log-sum-exp) of `n` rows of `this.xn` starting at `row`, into {@link logits} / {@link lse} from
   * row `dst` on (the logits buffer must hold them; see {@link reserveLogits}).
   */
  logitsRows(row: number, n: number, dst: number): void {
    const c = this.base.config;
    const V = c.vocabSize;
    const C = c.hiddenSize;
    if (this.logits.length < (dst + n) * V) throw new EngineInputError('internal: logits buffer too small');
    const head = this.lora?.head ?? null;
    const out = this.logits.subarray(dst * V);
    const x = this.xn.subarray(row * C);
    projForward(out, V, x, C, this.proj.lmHead, n, C, V, 0);
    if (head) loraForward(out, V, x, C, this.h, head, n, C, V);
    if (this.lse.length < dst + n) {
      const grown = new Float64Array(dst + n);
      grown.set(this.lse);
      this.lse = grown;
    }
    logSumExpRows(this.lse.subarray(dst), out, n, V);
  }

  /** Makes the logits buffer hold `rows` rows, and the log-sum-exp buffer too (at least {@link PREFILL_ROWS}). */
  reserveLogits(rows: number): void {
    const V = this.base.vocabSize;
    if (this.logits.length < rows * V) this.logits = new Float32Array(rows * V);
    if (this.lse.length < rows) this.lse = new Float64Array(Math.max(rows, PREFILL_ROWS));
  }

  /** Copies the first `P` positions of slot `from` to each of `to`, in every layer. */
  copyPrefix(from: number, to: readonly number[], P: number): void {
    const c = this.base.config;
    const KD = c.numKvHeads * c.headDim;
    const L = this.cacheLen;
    for (let l = 0; l < c.numLayers; l++) {
      const at = from * L * KD;
      for (const s of to) {
        this.kCache[l]!.copyWithin(s * L * KD, at, at + P * KD);
        this.vCache[l]!.copyWithin(s * L * KD, at, at + P * KD);
      }
    }
  }
}
