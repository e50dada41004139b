// The training pass's reusable workspace: per-layer activations kept for the backward, shared scratch, and the head's
// row blocks (their height per vocabulary and segment).
import type { BaseModel } from './model/base-model.js';

/**
 * Bytes of logits one head block may hold: a block has as many rows as fit, at least 64 (the height every block had
 * before, which larger vocabularies keep: their blocks, and so their results, are unchanged) and at most 256. Taller
 * blocks run the head's products, the largest of a small model's step, closer to the GEMM's peak: on the 135M shape
 * (V = 49,152; 170 rows a block) blocks of 64 rows ran them at ≈ 160–200 GFLOP/s, of 128 at ≈ 220–240, of 256 at
 * ≈ 255–285. 32 MiB keeps the step's peak memory under 1.2 GB.
 */
const HEAD_BLOCK_BYTES = 32 * 1024 * 1024;

/** Most rows of a head block for a vocabulary of V (what the workspace holds). */
export function headBlockRows(V: number): number {
  return Math.max(64, Math.min(256, Math.floor(HEAD_BLOCK_BYTES / (4 * V))));
}

/**
 * Height of the head blocks of an L-row segment: blocks taller than 64 rows are evened out (170 + 170 + 170 + 2 would
 * run a 2-row block through another path of the kernel); 64-row blocks stay as they are, and with them the results
 * of large vocabularies.
 */
export function headBlockHeight(V: number, L: number): number {
  const top = headBlockRows(V);
  return top > 64 ? Math.ceil(L / Math.ceil(L / top)) : top;
}

type LoraRole = 'q' | 'k' | 'v' | 'o' | 'gate' | 'up' | 'down';
const ROLES: LoraRole[] = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'];

/** What one layer keeps from the forward for the backward. */
export interface LayerActs {
  x: Float32Array;
  rstd1: Float32Array;
  qkv: Float32Array;
  rstdQ: Float32Array;
  rstdK: Float32Array;
  o: Float32Array;
  xmid: Float32Array;
  rstd2: Float32Array;
  gu: Float32Array;
  h: Record<LoraRole, Float32Array>;
}

/** Preallocated activations and scratch for packs of up to `capT` rows and segments up to `capS` rows. */
export class TrainWorkspace {
  capT = 0;
  capS = 0;
  private rank = 0;
  layers: LayerActs[] = [];
  /** Shared by every layer: its normalised input (xn1, then xn2), roped q and k (with q/k norms), SwiGLU output. */
  xn = new Float32Array(0);
  qr = new Float32Array(0);
  kr = new Float32Array(0);
  act = new Float32Array(0);
  xL = new Float32Array(0);
  rstdF = new Float32Array(0);
  xf = new Float32Array(0);
  dres = new Float32Array(0);
  dtmp = new Float32Array(0);
  dqkv = new Float32Array(0);
  dq = new Float32Array(0);
  dk = new Float32Array(0);
  dO = new Float32Array(0);
  dgu = new Float32Array(0);
  dact = new Float32Array(0);
  dh = new Float32Array(0);
  att = new Float32Array(0);
  datt = new Float32Array(0);
  logits = new Float32Array(0);
  hHead = new Float32Array(0);
  lse = new Float64Array(0);
  invSum = new Float64Array(0);
  lp = new Float64Array(0);
  dlp = new Float64Array(0);
  tgt = new Int32Array(0);
  /** The head block's rows with a non-zero gradient (see compactGradRows) and their ∂L/∂xf. */
  gradRows = new Int32Array(0);
  dxHead = new Float32Array(0);

  constructor(private readonly model: BaseModel) {}

  /** Bytes the buffers hold now. */
  get bytes(): number {
    let n = 0;
    for (const v of Object.values(this)) if (ArrayBuffer.isView(v)) n += v.byteLength;
    for (const l of this.layers) {
      for (const v of Object.values(l)) if (ArrayBuffer.isView(v)) n += v.byteLength;
      for (const v of Object.values(l.h)) n += v.byteLength;
    }
    return n;
  }

  /** Grows the buffers (never shrinks) to hold a pack of T rows with segments up to S rows, K targets. */
  ensure(T: number, S: number, rank: number, K: number): void {
    const c = this.model.config;
    const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KV, headDim: D, vocabSize: V } = c;
    if (T > this.capT || rank > this.rank) {
      const cap = Math.max(T, this.capT);
      const R = Math.max(rank, this.rank, 1);
      const QKV = (H + 2 * KV) * D;
      this.layers = [];
      for (let l = 0; l < c.numLayers; l++) {
        const h = {} as Record<LoraRole, Float32Array>;
        for (const r of ROLES) h[r] = new Float32Array(cap * R);
        this.layers.push({
          x: new Float32Array(cap * C),
          rstd1: new Float32Array(cap),
          qkv: new Float32Array(cap * QKV),
          rstdQ: new Float32Array(cap * H),
          rstdK: new Float32Array(cap * KV),
          o: new Float32Array(cap * H * D),
          xmid: new Float32Array(cap * C),
          rstd2: new Float32Array(cap),
          gu: new Float32Array(cap * 2 * I),
          h,
        });
      }
      this.xn = new Float32Array(cap * C);
      // roped q / k and their gradients get buffers of their own only with q/k norms (Llama ropes inside qkv)
      const qkRows = this.model.weights.layers[0]?.qNorm ? cap : 0;
      this.qr = new Float32Array(qkRows * H * D);
      this.kr = new Float32Array(qkRows * KV * D);
      this.act = new Float32Array(cap * I);
      this.xL = new Float32Array(cap * C);
      this.rstdF = new Float32Array(cap);
      this.xf = new Float32Array(cap * C);
      this.dres = new Float32Array(cap * C);
      this.dtmp = new Float32Array(cap * Math.max(C, H * D));
      this.dqkv = new Float32Array(cap * QKV);
      this.dq = new Float32Array(qkRows * H * D);
      this.dk = new Float32Array(qkRows * KV * D);
      this.dO = new Float32Array(cap * H * D);
      this.dgu = new Float32Array(cap * 2 * I);
      this.dact = new Float32Array(cap * I);
      this.dh = new Float32Array(cap * R);
      this.capT = cap;
      this.rank = R;
    }
    if (S > this.capS) {
      this.att = new Float32Array(S * S);
      this.datt = new Float32Array(S * S);
      this.capS = S;
    }
    const B = headBlockRows(V);
    if (this.logits.length < B * V) {
      this.logits = new Float32Array(B * V);
      this.lse = new Float64Array(B);
      this.invSum = new Float64Array(B);
      this.gradRows = new Int32Array(B);
    }
    if (this.dxHead.length < B * C) this.dxHead = new Float32Array(B * C);
    if (this.hHead.length < B * Math.max(rank, 1)) this.hHead = new Float32Array(B * Math.max(rank, 1));
    if (this.lp.length < B * K) {
      this.lp = new Float64Array(B * K);
      this.dlp = new Float64Array(B * K);
      this.tgt = new Int32Array(B * K);
    }
  }
}
