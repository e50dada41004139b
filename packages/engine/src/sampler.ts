// Sampler: batched autoregressive generation with a KV cache over a base model plus an optional LoRA snapshot.
// A request's prompt is prefilled once and its KV prefix copied to every sample. Requests decode together
// (continuous batching: `join` adds one between tokens, a sequence leaves when it stops), each with its own seed,
// stops and logprobs, and with the same result as alone (`MAX_DECODE_ROWS`). This file schedules; the forward pass
// over the KV cache is kv-cache-pass.ts, a request's checks and options are sample-request.ts.
import { EngineCancelledError, EngineInputError } from './errors.js';
import type { WeightFormat } from './kernels/half.js';
import { rowIndependentRows } from './kernels/kernel.js';
import { KvCachePass, PREFILL_ROWS } from './kv-cache-pass.js';
import type { LoraWeights } from './lora.js';
import type { BaseModel } from './model/base-model.js';
import { type SamplingWeights, samplingWeights } from './model/sampling-weights.js';
import {
  parseSampleRequest,
  type SampledSequence,
  type SampleOptions,
  type SampleRequest,
  type SampleResult,
  type SamplerOptions,
  type TextStream,
} from './sample-request.js';
import { TokenPicker } from './token-picker.js';

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
  /** Row of the pass's logits holding each active sample's pending logits. */
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
  private readonly picker = new TokenPicker();
  private members: Member[] = [];
  private joining: Member[] = [];
  private freeSlots: number[] = [];
  private slotsMade = 0;
  private nextKey = 0;
  private readonly proj: SamplingWeights;
  /** The forward pass and its KV cache. */
  private readonly pass: KvCachePass;

  constructor(
    readonly base: BaseModel,
    readonly lora: LoraWeights | null = null,
    private readonly opts: SamplerOptions = {},
  ) {
    this.proj = samplingWeights(base, opts.weights ?? 'auto');
    this.pass = new KvCachePass(base, lora, this.proj);
  }

  /** Storage format of the weights this sampler multiplies by (what `auto` resolved to). */
  get weightFormat(): WeightFormat {
    return this.proj.format;
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

  /**
   * The sequences of request `key` as they stand (tokens and logprobs picked so far; live arrays the next
   * {@link decodeStep} extends): what a caller streams before the request is done. Undefined once it left the batch.
   */
  progress(key: number): readonly SampledSequence[] | undefined {
    return (this.members.find((m) => m.key === key) ?? this.joining.find((m) => m.key === key))?.seqs;
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
    const pass = this.pass;
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
        const row = m.t === 0 ? m.first! : pass.logits.subarray(m.rows[s]! * V, (m.rows[s]! + 1) * V);
        const lse = m.t === 0 ? m.firstLse : pass.lse[m.rows[s]!]!;
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
      pass.reserveLogits(n);
      pass.ensureRows(DECODE_ROWS);
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
        pass.step(tokens, slots, 1, pos);
        pass.logitsRows(0, k, r0);
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
    const pass = this.pass;
    const r = m.req;
    const V = base.vocabSize;
    const P = r.tokens.length;
    const S = r.numSamples;
    for (let s = 0; s < S; s++) {
      m.slots.push(this.freeSlots.length > 0 ? this.freeSlots.pop()! : this.slotsMade++);
      m.active.push(s);
    }
    let need = pass.cacheLen;
    for (const x of this.members) need = Math.max(need, x.req.tokens.length + x.req.maxTokens + 1);
    pass.ensureCache(this.slotsMade, need, this.members.length > 0);
    pass.ensureRows(Math.max(Math.min(P, PREFILL_ROWS), MAX_DECODE_ROWS));
    pass.reserveLogits(64);
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
      pass.step(r.tokens.subarray(p0, p0 + n), slot0, n, new Int32Array([p0]));
      lastRow.set(pass.xn.subarray((n - 1) * C, n * C));
      if (!wantPrompt) continue;
      for (let r0 = 0; r0 < n; r0 += 64) {
        const rows = Math.min(64, n - r0);
        pass.logitsRows(r0, rows, 0);
        for (let i = 0; i < rows; i++) {
          const next = p0 + r0 + i + 1;
          if (next >= P) break;
          const lse = pass.lse[i]!;
          m.promptLogprobs?.push(pass.logits[i * V + r.tokens[next]!]! - lse);
          if (m.topkPrompt) m.topkPrompt.push(this.picker.topk(pass.logits, i * V, V, k, lse));
        }
      }
    }
    pass.copyPrefix(m.slots[0]!, m.slots.slice(1), P);
    pass.xn.set(lastRow);
    pass.logitsRows(0, 1, 0);
    m.first = pass.logits.slice(0, V);
    m.firstLse = pass.lse[0]!;
  }
}
