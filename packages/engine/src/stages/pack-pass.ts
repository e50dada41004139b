// What every stage of a pack's training forward/backward (../transformer.ts) reads: the model, its LoRA, the
// workspace, the pack's positions and segments, the base-model gradients of full-parameter training, and the sizes.
import type { BaseGrads } from '../base-grads.js';
import { type LoraAdapter, loraForward } from '../layers/linear.js';
import type { LoraWeights } from '../lora.js';
import type { BaseModel } from '../model/base-model.js';
import type { TrainWorkspace } from '../train-workspace.js';

/** Rows [start, start + length) of a pack belong to one datum. */
export interface PackSegment {
  start: number;
  length: number;
}

/** One forward/backward over a pack of T rows. */
export interface PackPass {
  model: BaseModel;
  lora: LoraWeights | null;
  ws: TrainWorkspace;
  /** Position of each row within its segment. */
  pos_T: Int32Array;
  segments: PackSegment[];
  /** Gradients of the base weights (full-parameter training), or null. */
  G: BaseGrads | null;
  /** Rows of the pack. */
  T: number;
  /** Hidden size, intermediate size, query heads, kv heads, head dim, vocab. */
  C: number;
  I: number;
  H: number;
  KV: number;
  D: number;
  V: number;
  /** Width of the queries (H·D), of the keys and of the values (KV·D), and of the fused qkv (QD + 2·KD). */
  QD: number;
  KD: number;
  QKV: number;
  eps: number;
}

/** The pass over `tokens_T`'s rows (sizes read from the model's config). */
export function packPass(
  model: BaseModel,
  lora: LoraWeights | null,
  ws: TrainWorkspace,
  T: number,
  pos_T: Int32Array,
  segments: PackSegment[],
  G: BaseGrads | null,
): PackPass {
  const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KV, headDim: D, vocabSize: V } = model.config;
  const QD = H * D;
  const KD = KV * D;
  return {
    model,
    lora,
    ws,
    pos_T,
    segments,
    G,
    T,
    C,
    I,
    H,
    KV,
    D,
    V,
    QD,
    KD,
    QKV: QD + 2 * KD,
    eps: model.config.rmsNormEps,
  };
}

/** y (+)= LoRA(x) when the adapter exists. */
export function loraFwd(
  a: LoraAdapter | null,
  y: Float32Array,
  ldy: number,
  x: Float32Array,
  ldx: number,
  h: Float32Array,
  T: number,
  I: number,
  O: number,
): void {
  if (a) loraForward(y, ldy, x, ldx, h, a, T, I, O);
}
