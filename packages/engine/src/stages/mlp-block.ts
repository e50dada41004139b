// The MLP half of a decoder block over a pack: out_TC = xmid_TC + swiglu(rmsnorm(xmid_TC)·W_gateup)·W_down, with
// LoRA on the three projections. Forward and backward side by side. The backward recomputes the normalised input
// and the SwiGLU output from xmid and gu (the same calls as the forward: the same values).
import { linearWeightGrad, rmsnormWeightGrad } from '../base-grads.js';
import { linearBackward, linearForward, loraBackward } from '../layers/linear.js';
import { rmsnormBackward, rmsnormForward } from '../layers/rmsnorm.js';
import { swigluBackward, swigluForward } from '../layers/swiglu.js';
import { loraFwd, type PackPass } from './pack-pass.js';

/** Layer `l`: the next layer's input (ws.xL after the last layer) from this layer's xmid. */
export function mlpBlockForward(p: PackPass, l: number): void {
  const { ws, T, C, I, eps } = p;
  const A = ws.layers[l]!;
  const W = p.model.weights.layers[l]!;
  const ll = p.lora?.layers[l];
  const xn_TC = ws.xn;
  rmsnormForward(xn_TC, C, A.rstd2, A.xmid, C, W.postNorm, T, C, eps);
  linearForward(A.gu, 2 * I, xn_TC, C, W.wGateUp, T, C, 2 * I, 0);
  if (ll) {
    loraFwd(ll.gate, A.gu, 2 * I, xn_TC, C, A.h.gate, T, C, I);
    loraFwd(ll.up, A.gu.subarray(I), 2 * I, xn_TC, C, A.h.up, T, C, I);
  }
  swigluForward(ws.act, A.gu, T, I);
  const next_TC = l + 1 < p.model.config.numLayers ? ws.layers[l + 1]!.x : ws.xL;
  next_TC.set(A.xmid.subarray(0, T * C));
  linearForward(next_TC, C, ws.act, I, W.wDown, T, I, C, 1);
  if (ll) loraFwd(ll.down, next_TC, C, ws.act, I, A.h.down, T, I, C);
}

/**
 * Layer `l`, given ∂L/∂out in ws.dres: accumulates the LoRA (and, with `G`, the base) gradients of the MLP half and
 * adds the path through the post-attention norm, leaving ∂L/∂xmid in ws.dres.
 */
export function mlpBlockBackward(p: PackPass, l: number): void {
  const { ws, T, C, I, eps } = p;
  const A = ws.layers[l]!;
  const W = p.model.weights.layers[l]!;
  const ll = p.lora?.layers[l];
  const g = p.G?.layers[l];
  // Residual grad flows straight through; dact = dres·W_down. The LoRA gradients need the layer's SwiGLU output and
  // normalised input, recomputed from gu and xmid (the same calls as the forward: the same values).
  linearBackward(ws.dact, I, ws.dres, C, W.wDown, T, I, C, 0);
  if (ll?.down || g) swigluForward(ws.act, A.gu, T, I);
  if (ll?.down) loraBackward(ws.dact, I, ws.dres, C, ws.act, I, A.h.down, ws.dh, ll.down, T, I, C);
  if (g) linearWeightGrad(g.wDown, ws.dres, C, ws.act, I, T, I, C);
  swigluBackward(ws.dgu, ws.dact, A.gu, T, I);
  linearBackward(ws.dtmp, C, ws.dgu, 2 * I, W.wGateUp, T, C, 2 * I, 0);
  if (ll?.gate || ll?.up || g) rmsnormForward(ws.xn, C, A.rstd2, A.xmid, C, W.postNorm, T, C, eps);
  if (ll?.gate) loraBackward(ws.dtmp, C, ws.dgu, 2 * I, ws.xn, C, A.h.gate, ws.dh, ll.gate, T, C, I);
  if (ll?.up) loraBackward(ws.dtmp, C, ws.dgu.subarray(I), 2 * I, ws.xn, C, A.h.up, ws.dh, ll.up, T, C, I);
  if (g) {
    linearWeightGrad(g.wGateUp, ws.dgu, 2 * I, ws.xn, C, T, C, 2 * I);
    rmsnormWeightGrad(g.postNorm, ws.dtmp, C, A.xmid, C, A.rstd2, T, C);
  }
  rmsnormBackward(ws.dres, C, ws.dtmp, C, A.xmid, C, A.rstd2, W.postNorm, T, C, true);
}
