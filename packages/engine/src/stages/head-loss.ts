// The top of the decoder over a pack: the final norm (xf_TC = rmsnorm(xL_TC)) and the head with its loss (logits in
// row blocks, target logprobs, the segment's loss and ∂L/∂xf). Forward and backward side by side: the head's
// forward and backward run together, block by block, so a block's logits are never kept past it.
import { linearWeightGrad, rmsnormWeightGrad } from '../base-grads.js';
import { rmsnormBackward, rmsnormForward } from '../layers/rmsnorm.js';
import { softmaxGradRows, softmaxRowsUnnormalized, unembedBackward, unembedForward } from '../layers/unembed.js';
import { headBlockHeight, type TrainWorkspace } from '../train-workspace.js';
import type { PackPass } from './pack-pass.js';

/** Per-segment targets and loss: `rows` turns target logprobs into loss and ∂L/∂lp for a block of rows. */
export interface SegmentLoss {
  /** Targets per row (1, or K for top-K cross entropy). */
  K: number;
  /** Target ids, length·K. */
  targets: Int32Array;
  /** Receives every target logprob (length·K). */
  logprobs: Float32Array;
  /** Loss of rows [r0, r0 + n) given their lp (n·K); writes dlp (n·K); returns the summed loss. */
  rows(r0: number, n: number, lp: Float64Array, dlp: Float64Array): number;
}

/** xf_TC = rmsnorm(xL_TC)·w_final (1/rms per row in ws.rstdF). */
export function finalNormForward(p: PackPass): void {
  const { ws, T, C } = p;
  rmsnormForward(ws.xf, C, ws.rstdF, ws.xL, C, p.model.weights.finalNorm, T, C, p.eps);
}

/** ∂L/∂xL into ws.dres given ∂L/∂xf in ws.dtmp (and, with `G`, the final norm's weight gradient). */
export function finalNormBackward(p: PackPass): void {
  const { ws, T, C, G } = p;
  if (G) rmsnormWeightGrad(G.finalNorm, ws.dtmp, C, ws.xL, C, ws.rstdF, T, C);
  rmsnormBackward(ws.dres, C, ws.dtmp, C, ws.xL, C, ws.rstdF, p.model.weights.finalNorm, T, C, false);
}

/**
 * Moves the head block's rows that carry a gradient (any of their K logprob gradients non-zero) to its front, in
 * order: their exps (logits), invSum, targets, gradients, LoRA head activations (R wide) and xf rows; records their
 * original indices in ws.gradRows and returns how many there are. Rows that are all zero are dropped: their
 * ∂L/∂logits row is exactly zero, so the backward products would only add zeros.
 */
function compactGradRows(ws: TrainWorkspace, xf: Float32Array, n: number, K: number, V: number, C: number, R: number) {
  let m = 0;
  for (let i = 0; i < n; i++) {
    let any = false;
    for (let k = 0; k < K; k++) if (ws.dlp[i * K + k] !== 0) any = true;
    if (!any) continue;
    if (m !== i) {
      ws.logits.copyWithin(m * V, i * V, i * V + V);
      ws.invSum[m] = ws.invSum[i]!;
      for (let k = 0; k < K; k++) {
        ws.tgt[m * K + k] = ws.tgt[i * K + k]!;
        ws.dlp[m * K + k] = ws.dlp[i * K + k]!;
      }
      if (R > 0) ws.hHead.copyWithin(m * R, i * R, i * R + R);
      xf.copyWithin(m * C, i * C, i * C + C);
    }
    ws.gradRows[m++] = i;
  }
  return m;
}

/**
 * The head over xf_TC, segment by segment in blocks of rows: logits, every target logprob (into the segment's
 * `logprobs`) and the summed loss, returned. With `backward`, also ∂L/∂xf into ws.dtmp and the head's LoRA (and,
 * with `G`, lm_head) gradients.
 */
export function headLossForwardBackward(p: PackPass, losses: SegmentLoss[], backward: boolean): number {
  const { ws, T, C, V, G } = p;
  const lmHead = p.model.weights.lmHead;
  const head = p.lora?.head ?? null;
  let loss = 0;
  if (backward) ws.dtmp.fill(0, 0, T * C);
  p.segments.forEach((s, si) => {
    const L = losses[si]!;
    const K = L.K;
    const B = headBlockHeight(V, s.length);
    for (let r0 = 0; r0 < s.length; r0 += B) {
      const n = Math.min(B, s.length - r0);
      const row = s.start + r0;
      const xf = ws.xf.subarray(row * C);
      unembedForward(ws.logits, xf, lmHead, head, ws.hHead, n, C, V);
      // target logits first: the softmax pass below replaces the logits by their exps (reused by the gradient)
      for (let i = 0; i < n; i++) {
        for (let k = 0; k < K; k++) {
          const t = L.targets[(r0 + i) * K + k]!;
          ws.lp[i * K + k] = ws.logits[i * V + t]!;
          ws.tgt[i * K + k] = t;
        }
      }
      softmaxRowsUnnormalized(ws.lse, ws.invSum, ws.logits, n, V);
      for (let i = 0; i < n; i++) {
        for (let k = 0; k < K; k++) {
          const v = ws.lp[i * K + k]! - ws.lse[i]!;
          ws.lp[i * K + k] = v;
          L.logprobs[(r0 + i) * K + k] = v;
        }
      }
      loss += L.rows(r0, n, ws.lp, ws.dlp);
      if (!backward) continue;
      // Rows whose logprob gradients are all zero (the prompt / observation tokens of most data) add nothing to
      // ∂L/∂xf or to the head's LoRA gradients: the head's backward, most of a small model's cost, runs on the rest.
      const m = compactGradRows(ws, xf, n, K, V, C, head?.rank ?? 0);
      if (m === 0) continue;
      softmaxGradRows(ws.logits, ws.invSum, ws.tgt, ws.dlp, m, V, K);
      if (G?.lmHead) linearWeightGrad(G.lmHead, ws.logits, V, xf, C, m, C, V);
      if (m === n) {
        unembedBackward(ws.dtmp.subarray(row * C), ws.logits, xf, lmHead, head, ws.hHead, ws.dh, n, C, V, 1);
        continue;
      }
      unembedBackward(ws.dxHead, ws.logits, xf, lmHead, head, ws.hHead, ws.dh, m, C, V, 0);
      for (let j = 0; j < m; j++) {
        const dst = (row + ws.gradRows[j]!) * C;
        for (let c2 = 0; c2 < C; c2++) ws.dtmp[dst + c2]! += ws.dxHead[j * C + c2]!;
      }
    }
  });
  return loss;
}
