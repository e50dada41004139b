// Sampler: batched autoregressive generation with a KV cache over a base model plus an optional LoRA snapshot.
// A request's prompt is prefilled once and its KV prefix copied to every sample. Requests decode together
// (continuous batching: `join` adds one between tokens, a sequence leaves when it stops), each with its own seed,
// stops and logprobs, and with the same result as alone (`MAX_DECODE_ROWS`).
import { EngineCancelledError, EngineInputError } from './errors.js';
import type { WeightFormat } from './kernels/half.js';
import { rowIndependentRows } from './kernels/kernel.js';
import { attentionDecodeBatch, attentionForward } from './layers/attention.js';
import { loraForward } from './layers/linear.js';
import { rmsnormForward } from './layers/rmsnorm.js';
import { ropeForward } from './layers/rope.js';
import { swigluForward } from './layers/swiglu.js';
import { embedForward, logSumExpRows } from './layers/unembed.js';
import type { LoraWeights } from './lora.js';
import type { BaseModel } from './model/base-model.js';
import { projForward, type SamplerWeights, type SamplingWeights, samplingWeights } from './model/sampling-weights.js';
import { parseSampleRequest, type SampleRequest, type TextStream } from './sample-request.js';
import { TokenPicker } from './token-picker.js';

/** Options of one sample call (Tinker SamplingParams plus prompt-logprob flags). */
export interface SampleOptions {
  /** Number of independent completions. */
  numSamples: number;
  /** Most tokens to generate per completion (default: up to the context length). */
  maxTokens?: number;
  /** Softmax temperature; 0 = greedy (default 1). */
  temperature?: number;
  /** Keep only the k most likely tokens; −1 = off (default). */
  topK?: number;
  /** Nucleus sampling mass in (0, 1]; 1 = off (default). */
  topP?: number;
  /** Same seed and inputs ⇒ same tokens; omitted ⇒ random. */
  seed?: number | bigint;
  /**
   * null/undefined: stop at the model's EOS tokens. A string, list of strings or list of token ids replaces the
   * defaults; `[]` disables every stop, EOS included.
   */
  stop?: string | string[] | number[] | null;
  /** Also return the logprob of every prompt token given its prefix (first entry null). */
  includePromptLogprobs?: boolean;
  /** Also return the top-k (token, logprob) pairs for every prompt position (first entry null); 0 = off. */
  topkPromptLogprobs?: number;
  /**
   * Checked between prefill chunks and decode steps; once `aborted` is true the call throws EngineCancelledError.
   * An `AbortSignal` fits, and so does a view of a shared flag (a worker thread cannot see an AbortSignal change
   * while it runs synchronously).
   */
  signal?: { readonly aborted: boolean };
}

/** One generated completion. Tokens include the stop token (or the token that completed a stop string). */
export interface SampledSequence {
  tokens: number[];
  /** Model logprob (temperature 1, before top-k/top-p) of each generated token. */
  logprobs: number[];
  stopReason: 'stop' | 'length';
}

/** Result of {@link Sampler.sample}. */
export interface SampleResult {
  sequences: SampledSequence[];
  promptLogprobs?: (number | null)[];
  topkPromptLogprobs?: ([number, number][] | null)[];
}

/** Optional hooks: a decoder for string stop sequences when the model has no tokenizer.json. */
export interface SamplerOptions {
  decode?: (tokens: number[]) => string;
  /**
   * Storage of the projection weights the sampler multiplies by (default `auto`). A 16-bit copy halves the bytes a
   * decode step reads (decode is memory-bound); it is made once per base model and shared by its samplers, next to
   * the f32 weights training uses. `auto`: bf16 (or fp16) when every projection weight is exactly such a value (a
   * checkpoint stored in bf16), so sampling changes no weight; otherwise float32. Forcing `bfloat16` / `float16` on
   * weights that are not rounds them: logprobs then differ from the trainer's (see BENCHMARKS.md, decode).
   */
  weights?: SamplerWeights;
}

const PREFILL_ROWS = 256;
/**
 * Most decode rows per block. A block is never larger than the kernel's row-independent size (`rowIndependentRows`:
 * the result of a row does not depend on the other rows), so a sequence decodes identically in any batch.
 */
const MAX_DECODE_ROWS = 32;

/** A request in the batch. */
interface Member {
  key: number;
  req: SampleRequest;
  /** KV cache slot of each sample. */
  slots: number[];
  seqs: SampledSequence[];
  streams: ({ d: TextStream; text: string } | null)[];
  /** Samples still generating. */
  active: number[];
  /** Row of this.logits holding each active sample's pending logits. */
  rows: Int32Array;
  /** Tokens picked so far per sample. */
  t: number;
  /** Logits (and log-sum-exp) after the prompt, shared by all samples' first token. */
  first: Float32Array | null;
  firstLse: number;
  promptLogprobs: (number | null)[] | undefined;
  topkPrompt: ([number, number][] | null)[] | undefined;
}

/** Generates from a base model and an optional LoRA snapshot; synchronous, one call at a time per instance. */
export class Sampler {
  private kCache: Float32Array[] = [];
  private vCache: Float32Array[] = [];
  private cacheSlots = 0;
  private cacheLen = 0;
  private bufRows = 0;
  private x = new Float32Array(0);
  private xn = new Float32Array(0);
  private qkv = new Float32Array(0);
  private qr = new Float32Array(0);
  private kr = new Float32Array(0);
  private rstd = new Float32Array(0);
  private o = new Float32Array(0);
  private gu = new Float32Array(0);
  private act = new Float32Array(0);
  private h = new Float32Array(0);
  private att = new Float32Array(0);
  private logits = new Float32Array(0);
  private lse = new Float64Array(PREFILL_ROWS);
  private readonly picker = new TokenPicker();
  private members: Member[] = [];
  private joining: Member[] = [];
  private freeSlots: number[] = [];
  private slotsMade = 0;
  private nextKey = 0;
  private readonly proj: SamplingWeights;

  constructor(
    readonly base: BaseModel,
    readonly lora: LoraWeights | null = null,
    private readonly opts: SamplerOptions = {},
  ) {
    this.proj = samplingWeights(base, opts.weights ?? 'auto');
  }

  /** Storage format of the weights this sampler multiplies by (what `auto` resolved to). */
  get weightFormat(): WeightFormat {
    return this.proj.format;
  }

  private ensureRows(rows: number): void {
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

  /** Grows the KV cache to hold `slots` sequences of `len` positions, keeping what the slots hold. */
  private ensureCache(slots: number, len: number): void {
    if (slots <= this.cacheSlots && len <= this.cacheLen) return;
    const c = this.base.config;
    const KD = c.numKvHeads * c.headDim;
    const oldSlots = this.cacheSlots;
    const oldLen = this.cacheLen;
    this.cacheSlots = Math.max(slots, this.cacheSlots);
    this.cacheLen = Math.max(len, this.cacheLen);
    const keep = this.members.length > 0;
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
   * position p0[b], appending their keys/values to the cache; leaves the final normed hidden states in `this.xn`.
   */
  private step(tokens: Int32Array, slots: Int32Array, n: number, p0: Int32Array): void {
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
   * Logits (and their log-sum-exp) of `n` rows of `this.xn` starting at `row`, into this.logits / this.lse from row
   * `dst` on (the buffers must hold them).
   */
  private logitsRows(row: number, n: number, dst: number): void {
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

  /** Generates `numSamples` completions of `prompt`. Synchronous (run it in a worker to keep a server responsive). */
  sample(prompt: number[] | Int32Array, opts: SampleOptions): SampleResult {
    if (this.batchSize > 0) throw new EngineInputError('this sampler is decoding a batch: join it instead');
    const key = this.join(prompt, opts);
    try {
      for (;;) {
        for (const f of this.decodeStep()) {
          if (f.key !== key) continue;
          if (f.error) throw f.error;
          return f.result!;
        }
      }
    } finally {
      this.reset();
    }
  }

  /** Requests joined or decoding. */
  get batchSize(): number {
    return this.members.length + this.joining.length;
  }

  /** Sequences decoding (or about to), over all requests. */
  get batchSequences(): number {
    let n = 0;
    for (const m of this.members) n += m.active.length;
    for (const m of this.joining) n += m.req.numSamples;
    return n;
  }

  /**
   * Adds a request to the batch (continuous batching): it is prefilled at the next {@link decodeStep} and decodes
   * with the others from then on, keeping its own seed, stops and logprobs, so its result is the one `sample` gives
   * alone. Throws EngineInputError for a bad request (nothing is allocated). Returns the key its result comes with.
   */
  join(prompt: number[] | Int32Array, opts: SampleOptions): number {
    const req = parseSampleRequest(this.base, prompt, opts, this.opts);
    const key = ++this.nextKey;
    const seqs: SampledSequence[] = [];
    const streams: ({ d: TextStream; text: string } | null)[] = [];
    for (let s = 0; s < req.numSamples; s++) {
      seqs.push({ tokens: [], logprobs: [], stopReason: 'length' });
      streams.push(req.makeStream ? { d: req.makeStream(), text: '' } : null);
    }
    this.joining.push({
      key,
      req,
      slots: [],
      seqs,
      streams,
      active: [],
      rows: new Int32Array(req.numSamples),
      t: 0,
      first: null,
      firstLse: 0,
      promptLogprobs: undefined,
      topkPrompt: undefined,
    });
    return key;
  }

  /**
   * One token for every sequence of the batch: each picks its next token (those that stop or reach max_tokens
   * leave, and a request whose sequences all left is returned), requests that joined are prefilled, and the
   * sequences still going run one decode step together (in row blocks whose results do not depend on the block, so
   * batching never changes a sequence's tokens or logprobs). A cancelled request is returned with its error.
   */
  decodeStep(): { key: number; result?: SampleResult; error?: Error }[] {
    const V = this.base.vocabSize;
    const out: { key: number; result?: SampleResult; error?: Error }[] = [];
    const finish = (m: Member, error?: Error) => {
      this.members.splice(this.members.indexOf(m), 1);
      for (const slot of m.slots) this.freeSlots.push(slot);
      if (error) {
        out.push({ key: m.key, error });
        return;
      }
      const result: SampleResult = { sequences: m.seqs };
      if (m.promptLogprobs) result.promptLogprobs = m.promptLogprobs;
      if (m.topkPrompt) result.topkPromptLogprobs = m.topkPrompt;
      out.push({ key: m.key, result });
    };
    // ---- pick: every sequence's next token from its pending logits
    const going: { m: Member; s: number; tok: number }[] = [];
    for (const m of [...this.members]) {
      const r = m.req;
      if (r.signal?.aborted) {
        finish(m, new EngineCancelledError('sampling was cancelled'));
        continue;
      }
      const keep: number[] = [];
      const picked: number[] = [];
      for (const s of m.active) {
        const row = m.t === 0 ? m.first! : this.logits.subarray(m.rows[s]! * V, (m.rows[s]! + 1) * V);
        const lse = m.t === 0 ? m.firstLse : this.lse[m.rows[s]!]!;
        const tok = this.picker.pick(row, V, r.temperature, r.topK, r.topP, r.rng);
        const seq = m.seqs[s]!;
        seq.tokens.push(tok);
        seq.logprobs.push(row[tok]! - lse);
        let done = r.stopTokens.has(tok);
        const st = m.streams[s];
        if (!done && st) {
          const from = Math.max(0, st.text.length - r.maxStop + 1);
          st.text += st.d.push(tok);
          done = r.stopStrings.some((x) => st.text.indexOf(x, from) >= 0);
        }
        if (done) seq.stopReason = 'stop';
        else {
          keep.push(s);
          picked.push(tok);
        }
      }
      m.t++;
      m.first = null;
      m.active = keep;
      if (keep.length === 0 || m.t >= r.maxTokens) finish(m);
      else for (const [i, s] of keep.entries()) going.push({ m, s, tok: picked[i]! });
    }
    // ---- join: prefill the new requests (their first tokens are picked at the next step)
    for (const m of this.joining.splice(0)) {
      this.members.push(m);
      try {
        this.prefill(m);
      } catch (err) {
        if (!(err instanceof EngineCancelledError)) throw err;
        finish(m, err);
        continue;
      }
      if (m.req.maxTokens === 0) finish(m);
    }
    // ---- decode one step for the sequences still going, DECODE_ROWS at a time
    const n = going.length;
    const DECODE_ROWS = Math.min(MAX_DECODE_ROWS, rowIndependentRows());
    if (n > 0) {
      if (this.logits.length < n * V) this.logits = new Float32Array(n * V);
      if (this.lse.length < n) this.lse = new Float64Array(Math.max(n, PREFILL_ROWS));
      this.ensureRows(DECODE_ROWS);
      for (let r0 = 0; r0 < n; r0 += DECODE_ROWS) {
        const k = Math.min(DECODE_ROWS, n - r0);
        const tokens = new Int32Array(k);
        const slots = new Int32Array(k);
        const pos = new Int32Array(k);
        for (let i = 0; i < k; i++) {
          const g = going[r0 + i]!;
          tokens[i] = g.tok;
          slots[i] = g.m.slots[g.s]!;
          pos[i] = g.m.req.tokens.length + g.m.t - 1;
          g.m.rows[g.s] = r0 + i;
        }
        this.step(tokens, slots, 1, pos);
        this.logitsRows(0, k, r0);
      }
    }
    return out;
  }

  /** Forget every request (after a failure: the caller fails them all). */
  reset(): void {
    this.freeSlots = [];
    this.slotsMade = 0;
    this.members = [];
    this.joining = [];
  }

  /** Prefills `m`'s prompt into its first slot (prompt logprobs on the way), copies it to its other slots. */
  private prefill(m: Member): void {
    const base = this.base;
    const r = m.req;
    const V = base.vocabSize;
    const P = r.tokens.length;
    const S = r.numSamples;
    for (let s = 0; s < S; s++) {
      m.slots.push(this.freeSlots.length > 0 ? this.freeSlots.pop()! : this.slotsMade++);
      m.active.push(s);
    }
    let need = this.cacheLen;
    for (const x of this.members) need = Math.max(need, x.req.tokens.length + x.req.maxTokens + 1);
    this.ensureCache(this.slotsMade, need);
    this.ensureRows(Math.max(Math.min(P, PREFILL_ROWS), MAX_DECODE_ROWS));
    if (this.logits.length < 64 * V) this.logits = new Float32Array(64 * V);
    const k = r.topkPromptLogprobs;
    const wantPrompt = r.includePromptLogprobs || k > 0;
    if (r.includePromptLogprobs) m.promptLogprobs = [null];
    if (k > 0) m.topkPrompt = [null];
    const slot0 = new Int32Array([m.slots[0]!]);
    const C = base.config.hiddenSize;
    const lastRow = new Float32Array(C);
    for (let p0 = 0; p0 < P; p0 += PREFILL_ROWS) {
      if (r.signal?.aborted) throw new EngineCancelledError('sampling was cancelled');
      const n = Math.min(PREFILL_ROWS, P - p0);
      this.step(r.tokens.subarray(p0, p0 + n), slot0, n, new Int32Array([p0]));
      lastRow.set(this.xn.subarray((n - 1) * C, n * C));
      if (!wantPrompt) continue;
      for (let r0 = 0; r0 < n; r0 += 64) {
        const rows = Math.min(64, n - r0);
        this.logitsRows(r0, rows, 0);
        for (let i = 0; i < rows; i++) {
          const next = p0 + r0 + i + 1;
          if (next >= P) break;
          const lse = this.lse[i]!;
          m.promptLogprobs?.push(this.logits[i * V + r.tokens[next]!]! - lse);
          if (m.topkPrompt) m.topkPrompt.push(this.picker.topk(this.logits, i * V, V, k, lse));
        }
      }
    }
    const KD = base.config.numKvHeads * base.config.headDim;
    const L = this.cacheLen;
    for (let l = 0; l < base.config.numLayers; l++) {
      const from = m.slots[0]! * L * KD;
      for (const s of m.slots.slice(1)) {
        this.kCache[l]!.copyWithin(s * L * KD, from, from + P * KD);
        this.vCache[l]!.copyWithin(s * L * KD, from, from + P * KD);
      }
    }
    this.xn.set(lastRow);
    this.logitsRows(0, 1, 0);
    m.first = this.logits.slice(0, V);
    m.firstLse = this.lse[0]!;
  }
}
