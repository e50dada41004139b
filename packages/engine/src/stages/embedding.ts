// The embedding stage of a pack: x_TC = embed[tokens_T]. Forward and backward side by side; the backward runs only
// when the embedding is trained (full-parameter training with `G.embed`).
import { embedForward } from '../layers/unembed.js';
import type { PackPass } from './pack-pass.js';

/** The first block's input x_TC: each row is its token's embedding. */
export function embeddingForward(p: PackPass, tokens_T: Int32Array): void {
  embedForward(p.ws.layers[0]!.x, p.model.weights.embed, tokens_T, p.T, p.C);
}

/** gE (+)= ∂L/∂embed given dx_TC (in ws.dres): each row's gradient is the sum of dx over the rows holding its token. */
export function embeddingBackward(p: PackPass, tokens_T: Int32Array): void {
  const gE = p.G?.embed;
  if (!gE) return;
  const { C, T } = p;
  const dx_TC = p.ws.dres;
  for (let t = 0; t < T; t++) {
    const e = tokens_T[t]! * C;
    for (let c2 = 0; c2 < C; c2++) gE[e + c2]! += dx_TC[t * C + c2]!;
  }
}
