// Training forward/backward of the decoder over a pack of datums (segments with their own positions; attention
// never crosses a segment), stage by stage: the embedding (stages/embedding.ts), per layer the attention half
// (stages/attention-block.ts) and the MLP half (stages/mlp-block.ts), the final norm and the head with its loss
// (stages/head-loss.ts); each stage's forward and backward sit side by side. Activations for backward are kept per
// layer in a reusable workspace (train-workspace.ts), except those that are cheap to recompute from what is kept
// (the normalised inputs xn1 and xn2, the roped q and k, the SwiGLU output): the backward recomputes them per layer,
// with the same calls as the forward, into buffers shared by all layers.

import type { BaseGrads } from './base-grads.js';
import type { LoraWeights } from './lora.js';
import type { BaseModel } from './model/base-model.js';
import { attentionBlockBackward, attentionBlockForward } from './stages/attention-block.js';
import { embeddingBackward, embeddingForward } from './stages/embedding.js';
import { finalNormBackward, finalNormForward, headLossForwardBackward, type SegmentLoss } from './stages/head-loss.js';
import { mlpBlockBackward, mlpBlockForward } from './stages/mlp-block.js';
import { type PackSegment, packPass } from './stages/pack-pass.js';
import type { TrainWorkspace } from './train-workspace.js';

export type { SegmentLoss } from './stages/head-loss.js';
export type { PackSegment } from './stages/pack-pass.js';

/**
 * Runs the model over a pack; computes every target logprob and the loss; with `backward`, accumulates the
 * LoRA gradients of the summed loss into `lora.grads` and, when `G` is given, the gradients of the base model's
 * layer and norm weights into `G` (full-parameter training; the embedding stays frozen). Returns the summed loss.
 */
export function forwardBackwardPack(
  model: BaseModel,
  lora: LoraWeights | null,
  ws: TrainWorkspace,
  tokens_T: Int32Array,
  pos_T: Int32Array,
  segments: PackSegment[],
  losses: SegmentLoss[],
  backward: boolean,
  G: BaseGrads | null = null,
): number {
  const T = tokens_T.length;
  const maxS = segments.reduce((m, s) => Math.max(m, s.length), 0);
  const maxK = losses.reduce((m, s) => Math.max(m, s.K), 1);
  const rank = lora?.spec.rank ?? 1;
  ws.ensure(T, maxS, rank, maxK);
  model.rope.ensure(pos_T.reduce((m, p) => Math.max(m, p), 0) + 1);
  const p = packPass(model, lora, ws, T, pos_T, segments, G);
  const layers = model.config.numLayers;

  embeddingForward(p, tokens_T);
  for (let l = 0; l < layers; l++) {
    attentionBlockForward(p, l);
    mlpBlockForward(p, l);
  }
  finalNormForward(p);
  const loss = headLossForwardBackward(p, losses, backward);
  if (!backward) return loss;

  // ws.dres holds ∂L/∂(residual stream) from here down
  finalNormBackward(p);
  for (let l = layers - 1; l >= 0; l--) {
    mlpBlockBackward(p, l);
    attentionBlockBackward(p, l);
  }
  embeddingBackward(p, tokens_T);
  return loss;
}
