// Full-parameter training of a base model: every layer and norm weight, and with `embedding` the token embedding
// and output head too, trained with AdamW. Tinker trains LoRA adapters only; this exists to pretrain the built-in
// stand-ins' layers once, offline, so that they start from weights that have learnt to read their context (see
// `local/qwen3-tiny`). Invariant: the model's trainable tensors are views of one flat buffer owned by this
// object, so the forward of any sampler built from the model afterwards sees the trained values.
import { renameSync } from 'node:fs';
import type { LossFnType } from '@cookbook/tinker-wire';
import { writeSafetensors } from '@cookbook/weights';
import { type AdamParams, adamwStep } from './adamw.js';
import { allocBaseGrads, type BaseGrads, trainableTensors } from './base-grads.js';
import type { EngineDatum } from './losses.js';
import type { BaseModel } from './model/base-model.js';
import { hfTensors } from './model/weights.js';
import { type ForwardBackwardResult, forwardBackwardData } from './pack.js';
import { TrainWorkspace } from './train-workspace.js';

/** Tensor names of the trained embedding rows in a layers file (ids as f32: exact below 2²⁴). */
export const EMBED_ROW_IDS = 'cookbook.embed_rows.ids';
export const EMBED_ROWS = 'cookbook.embed_rows.weight';

/** Trains the layers and norms of `base` in place (and its embedding / head with `embedding: true`). */
export class FullModel {
  /** Number of optimizer steps taken. */
  step = 0;
  /** @internal The trained tensors, flat (the model's weights are views of it). */
  readonly params: Float32Array;
  /** @internal Their accumulated gradients. */
  readonly grads: Float32Array;
  private readonly G: BaseGrads;
  private readonly adamM: Float32Array;
  private readonly adamV: Float32Array;
  private readonly ws: TrainWorkspace;

  /** @internal ∂L/∂embedding (a view of `grads`), or null when the embedding is not trained. */
  readonly embedGrad: Float32Array | null;

  constructor(
    readonly base: BaseModel,
    opts: { embedding?: boolean } = {},
  ) {
    const w = base.weights;
    const embedding = opts.embedding === true;
    const { grads, flat } = allocBaseGrads(base.config, w, embedding);
    this.embedGrad = grads.embed ?? null;
    this.G = grads;
    this.grads = flat;
    this.params = new Float32Array(flat.length);
    // Copy every trainable tensor into the flat buffer and point the model at its view there.
    let off = 0;
    const rebind = (t: Float32Array): Float32Array => {
      const v = this.params.subarray(off, off + t.length);
      v.set(t);
      off += t.length;
      return v;
    };
    for (const L of w.layers) {
      L.inputNorm = rebind(L.inputNorm);
      L.wQKV = rebind(L.wQKV);
      L.wO = rebind(L.wO);
      L.postNorm = rebind(L.postNorm);
      L.wGateUp = rebind(L.wGateUp);
      L.wDown = rebind(L.wDown);
      if (L.qNorm) L.qNorm = rebind(L.qNorm);
      if (L.kNorm) L.kNorm = rebind(L.kNorm);
    }
    w.finalNorm = rebind(w.finalNorm);
    if (embedding) {
      const tied = w.lmHead === w.embed;
      w.embed = rebind(w.embed);
      w.lmHead = tied ? w.embed : rebind(w.lmHead);
    }
    const order = trainableTensors(w);
    if (off !== this.params.length || order.length === 0) throw new Error('full model: layout mismatch');
    this.adamM = new Float32Array(this.params.length);
    this.adamV = new Float32Array(this.params.length);
    this.ws = new TrainWorkspace(base);
  }

  /** Number of trained parameters. */
  get numParams(): number {
    return this.params.length;
  }

  /** Logprobs and summed loss over `data`; unless `backward` is false, adds the gradients for {@link optimStep}. */
  forwardBackward(
    data: EngineDatum[],
    lossFn: LossFnType | string,
    lossFnConfig?: Record<string, number>,
    backward = true,
  ): ForwardBackwardResult {
    return forwardBackwardData(
      this.base,
      null,
      this.ws,
      data,
      lossFn,
      lossFnConfig,
      backward,
      backward ? this.G : null,
    );
  }

  /** One AdamW step on the accumulated gradients, which are then zeroed. `adam` comes resolved (see AdamParams). */
  optimStep(adam: AdamParams): { gradNorm: number } {
    this.step++;
    const { gradNorm } = adamwStep(this.params, this.grads, this.adamM, this.adamV, this.step, adam);
    return { gradNorm };
  }

  /**
   * Writes every tensor but the embedding (HF names, f32) to a safetensors file, atomically; with `embedRows`, also
   * those rows of the embedding (`cookbook.embed_rows.ids` as f32 and `cookbook.embed_rows.weight`).
   */
  saveLayers(file: string, metadata?: Record<string, string>, embedRows?: readonly number[]): void {
    const tensors = hfTensors(this.base.config, this.base.weights).filter(
      (t) => t.name !== 'model.embed_tokens.weight',
    );
    if (embedRows && embedRows.length > 0) {
      const C = this.base.config.hiddenSize;
      const rows = new Float32Array(embedRows.length * C);
      embedRows.forEach((id, i) => {
        rows.set(this.base.weights.embed.subarray(id * C, id * C + C), i * C);
      });
      tensors.push({ name: EMBED_ROW_IDS, shape: [embedRows.length], data: Float32Array.from(embedRows) });
      tensors.push({ name: EMBED_ROWS, shape: [embedRows.length, C], data: rows });
    }
    const tmp = `${file}.tmp-${process.pid}`;
    writeSafetensors(tmp, tensors, metadata);
    renameSync(tmp, file);
  }
}
