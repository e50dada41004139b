// Training forward/backward of the decoder over a pack of datums (segments with their own positions; attention
// never crosses a segment). Activations for backward are kept per layer in a reusable workspace (train-workspace.ts),
// except those that are cheap to recompute from what is kept (the normalised inputs xn1 and xn2, the roped q and k,
// the SwiGLU output): the backward recomputes them per layer, with the same calls as the forward, into buffers shared
// by all layers.

import { type BaseGrads, linearWeightGrad, rmsnormWeightGrad } from './base-grads.js';
import { attentionBackward, attentionForward } from './layers/attention.js';
import { type LoraAdapter, linearBackward, linearForward, loraBackward, loraForward } from './layers/linear.js';
import { rmsnormBackward, rmsnormForward } from './layers/rmsnorm.js';
import { ropeBackward, ropeForward } from './layers/rope.js';
import { swigluBackward, swigluForward } from './layers/swiglu.js';
import {
  embedForward,
  softmaxGradRows,
  softmaxRowsUnnormalized,
  unembedBackward,
  unembedForward,
} from './layers/unembed.js';
import type { LoraWeights } from './lora.js';
import type { BaseModel } from './model/base-model.js';
import { headBlockHeight, type LayerActs, type TrainWorkspace } from './train-workspace.js';

/** Rows [start, start + length) of a pack belong to one datum. */
export interface PackSegment {
  start: number;
  length: number;
}

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

/** Where a layer's roped q and k are: views with their row strides. */
interface QKViews {
  q: Float32Array;
  ldq: number;
  k: Float32Array;
  ldk: number;
}

/**
 * The attention inputs of a layer from its fused qkv. With q/k norms (Qwen3), q and k are normalised per head
 * (their 1/rms go to rstdQ / rstdK) and roped into ws.qr / ws.kr; the forward calls it and the backward again, to
 * get the same values back instead of keeping them for every layer. Without (Llama), nothing else needs the
 * unroped values: the forward ropes them in place in qkv (`forward`), where the backward finds them.
 */
function ropedQK(
  ws: TrainWorkspace,
  A: LayerActs,
  W: BaseModel['weights']['layers'][number],
  rope: BaseModel['rope'],
  pos_T: Int32Array,
  T: number,
  H: number,
  KV: number,
  D: number,
  eps: number,
  forward: boolean,
): QKViews {
  const QD = H * D;
  const KD = KV * D;
  const QKV = QD + 2 * KD;
  if (!(W.qNorm && W.kNorm)) {
    if (forward) {
      ropeForward(A.qkv, QKV, pos_T, T, H, D, rope);
      ropeForward(A.qkv.subarray(QD), QKV, pos_T, T, KV, D, rope);
    }
    return { q: A.qkv, ldq: QKV, k: A.qkv.subarray(QD), ldk: QKV };
  }
  for (let t = 0; t < T; t++) {
    rmsnormForward(ws.qr.subarray(t * QD), D, A.rstdQ.subarray(t * H), A.qkv.subarray(t * QKV), D, W.qNorm, H, D, eps);
    rmsnormForward(
      ws.kr.subarray(t * KD),
      D,
      A.rstdK.subarray(t * KV),
      A.qkv.subarray(t * QKV + QD),
      D,
      W.kNorm,
      KV,
      D,
      eps,
    );
  }
  ropeForward(ws.qr, QD, pos_T, T, H, D, rope);
  ropeForward(ws.kr, KD, pos_T, T, KV, D, rope);
  return { q: ws.qr, ldq: QD, k: ws.kr, ldk: KD };
}

function loraFwd(
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
  const c = model.config;
  const w = model.weights;
  const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KV, headDim: D, vocabSize: V } = c;
  const eps = c.rmsNormEps;
  const QD = H * D;
  const KD = KV * D;
  const QKV = QD + 2 * KD;
  const T = tokens_T.length;
  const maxS = segments.reduce((m, s) => Math.max(m, s.length), 0);
  const maxK = losses.reduce((m, s) => Math.max(m, s.K), 1);
  const rank = lora?.spec.rank ?? 1;
  ws.ensure(T, maxS, rank, maxK);
  const rope = model.rope;
  rope.ensure(pos_T.reduce((m, p) => Math.max(m, p), 0) + 1);

  // ---- forward through the blocks
  embedForward(ws.layers[0]!.x, w.embed, tokens_T, T, C);
  for (let l = 0; l < c.numLayers; l++) {
    const A = ws.layers[l]!;
    const W = w.layers[l]!;
    const ll = lora?.layers[l];
    const xn = ws.xn;
    rmsnormForward(xn, C, A.rstd1, A.x, C, W.inputNorm, T, C, eps);
    linearForward(A.qkv, QKV, xn, C, W.wQKV, T, C, QKV, 0);
    if (ll) {
      loraFwd(ll.q, A.qkv, QKV, xn, C, A.h.q, T, C, QD);
      loraFwd(ll.k, A.qkv.subarray(QD), QKV, xn, C, A.h.k, T, C, KD);
      loraFwd(ll.v, A.qkv.subarray(QD + KD), QKV, xn, C, A.h.v, T, C, KD);
    }
    const fq = ropedQK(ws, A, W, rope, pos_T, T, H, KV, D, eps, true);
    for (const s of segments) {
      attentionForward(
        A.o.subarray(s.start * QD),
        QD,
        fq.q.subarray(s.start * fq.ldq),
        fq.ldq,
        fq.k.subarray(s.start * fq.ldk),
        fq.ldk,
        A.qkv.subarray(s.start * QKV + QD + KD),
        QKV,
        ws.att,
        { T: s.length, S: s.length, H, KV, D },
      );
    }
    A.xmid.set(A.x.subarray(0, T * C));
    linearForward(A.xmid, C, A.o, QD, W.wO, T, QD, C, 1);
    if (ll) loraFwd(ll.o, A.xmid, C, A.o, QD, A.h.o, T, QD, C);
    rmsnormForward(xn, C, A.rstd2, A.xmid, C, W.postNorm, T, C, eps);
    linearForward(A.gu, 2 * I, xn, C, W.wGateUp, T, C, 2 * I, 0);
    if (ll) {
      loraFwd(ll.gate, A.gu, 2 * I, xn, C, A.h.gate, T, C, I);
      loraFwd(ll.up, A.gu.subarray(I), 2 * I, xn, C, A.h.up, T, C, I);
    }
    swigluForward(ws.act, A.gu, T, I);
    const next = l + 1 < c.numLayers ? ws.layers[l + 1]!.x : ws.xL;
    next.set(A.xmid.subarray(0, T * C));
    linearForward(next, C, ws.act, I, W.wDown, T, I, C, 1);
    if (ll) loraFwd(ll.down, next, C, ws.act, I, A.h.down, T, I, C);
  }
  rmsnormForward(ws.xf, C, ws.rstdF, ws.xL, C, w.finalNorm, T, C, eps);

  // ---- head: logits in row blocks, loss, and ∂L/∂xf
  const head = lora?.head ?? null;
  let loss = 0;
  if (backward) ws.dtmp.fill(0, 0, T * C);
  segments.forEach((s, si) => {
    const L = losses[si]!;
    const K = L.K;
    const B = headBlockHeight(V, s.length);
    for (let r0 = 0; r0 < s.length; r0 += B) {
      const n = Math.min(B, s.length - r0);
      const row = s.start + r0;
      const xf = ws.xf.subarray(row * C);
      unembedForward(ws.logits, xf, w.lmHead, head, ws.hHead, n, C, V);
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
        unembedBackward(ws.dtmp.subarray(row * C), ws.logits, xf, w.lmHead, head, ws.hHead, ws.dh, n, C, V, 1);
        continue;
      }
      unembedBackward(ws.dxHead, ws.logits, xf, w.lmHead, head, ws.hHead, ws.dh, m, C, V, 0);
      for (let j = 0; j < m; j++) {
        const dst = (row + ws.gradRows[j]!) * C;
        for (let c2 = 0; c2 < C; c2++) ws.dtmp[dst + c2]! += ws.dxHead[j * C + c2]!;
      }
    }
  });
  if (!backward) return loss;

  // ---- backward through the blocks; ws.dres holds ∂L/∂(residual stream)
  if (G) rmsnormWeightGrad(G.finalNorm, ws.dtmp, C, ws.xL, C, ws.rstdF, T, C);
  rmsnormBackward(ws.dres, C, ws.dtmp, C, ws.xL, C, ws.rstdF, w.finalNorm, T, C, false);
  for (let l = c.numLayers - 1; l >= 0; l--) {
    const A = ws.layers[l]!;
    const W = w.layers[l]!;
    const ll = lora?.layers[l];
    const g = G?.layers[l];
    // MLP: residual grad flows straight through; dact = dres·W_down. The LoRA gradients need the layer's SwiGLU
    // output and normalised input, recomputed from gu and xmid (the same calls as the forward: the same values).
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
    // attention output projection
    linearBackward(ws.dO, QD, ws.dres, C, W.wO, T, QD, C, 0);
    if (g) linearWeightGrad(g.wO, ws.dres, C, A.o, QD, T, QD, C);
    if (ll?.o) loraBackward(ws.dO, QD, ws.dres, C, A.o, QD, A.h.o, ws.dh, ll.o, T, QD, C);
    // ∂L/∂q and ∂L/∂k (roped): with q/k norms into ws.dq / ws.dk, else straight into dqkv's columns. dk and dv
    // accumulate over the segment's keys, so they start at zero.
    const qkNorm = W.qNorm !== null && W.kNorm !== null;
    const dv = ws.dqkv.subarray(QD + KD);
    if (qkNorm) {
      ws.dk.fill(0, 0, T * KD);
      for (let t = 0; t < T; t++) dv.fill(0, t * QKV, t * QKV + KD);
    } else ws.dqkv.fill(0, 0, T * QKV);
    const dq = qkNorm
      ? { q: ws.dq, ldq: QD, k: ws.dk, ldk: KD }
      : { q: ws.dqkv, ldq: QKV, k: ws.dqkv.subarray(QD), ldk: QKV };
    const bq = ropedQK(ws, A, W, rope, pos_T, T, H, KV, D, eps, false);
    for (const s of segments) {
      attentionBackward(
        dq.q.subarray(s.start * dq.ldq),
        dq.ldq,
        dq.k.subarray(s.start * dq.ldk),
        dq.ldk,
        dv.subarray(s.start * QKV),
        QKV,
        ws.dO.subarray(s.start * QD),
        QD,
        bq.q.subarray(s.start * bq.ldq),
        bq.ldq,
        bq.k.subarray(s.start * bq.ldk),
        bq.ldk,
        A.qkv.subarray(s.start * QKV + QD + KD),
        QKV,
        ws.att,
        ws.datt,
        { T: s.length, S: s.length, H, KV, D },
      );
    }
    ropeBackward(dq.q, dq.ldq, pos_T, T, H, D, rope);
    ropeBackward(dq.k, dq.ldk, pos_T, T, KV, D, rope);
    if (W.qNorm && W.kNorm) {
      for (let t = 0; t < T; t++) {
        const qo = t * QKV;
        if (g?.qNorm && g.kNorm) {
          rmsnormWeightGrad(g.qNorm, ws.dq.subarray(t * QD), D, A.qkv.subarray(qo), D, A.rstdQ.subarray(t * H), H, D);
          rmsnormWeightGrad(
            g.kNorm,
            ws.dk.subarray(t * KD),
            D,
            A.qkv.subarray(qo + QD),
            D,
            A.rstdK.subarray(t * KV),
            KV,
            D,
          );
        }
        rmsnormBackward(
          ws.dqkv.subarray(qo),
          D,
          ws.dq.subarray(t * QD),
          D,
          A.qkv.subarray(qo),
          D,
          A.rstdQ.subarray(t * H),
          W.qNorm,
          H,
          D,
          false,
        );
        rmsnormBackward(
          ws.dqkv.subarray(qo + QD),
          D,
          ws.dk.subarray(t * KD),
          D,
          A.qkv.subarray(qo + QD),
          D,
          A.rstdK.subarray(t * KV),
          W.kNorm,
          KV,
          D,
          false,
        );
      }
    }
    linearBackward(ws.dtmp, C, ws.dqkv, QKV, W.wQKV, T, C, QKV, 0);
    if (ll?.q || ll?.k || ll?.v || g) rmsnormForward(ws.xn, C, A.rstd1, A.x, C, W.inputNorm, T, C, eps);
    if (g) linearWeightGrad(g.wQKV, ws.dqkv, QKV, ws.xn, C, T, C, QKV);
    if (ll?.q) loraBackward(ws.dtmp, C, ws.dqkv, QKV, ws.xn, C, A.h.q, ws.dh, ll.q, T, C, QD);
    if (ll?.k) loraBackward(ws.dtmp, C, ws.dqkv.subarray(QD), QKV, ws.xn, C, A.h.k, ws.dh, ll.k, T, C, KD);
    if (ll?.v) loraBackward(ws.dtmp, C, ws.dqkv.subarray(QD + KD), QKV, ws.xn, C, A.h.v, ws.dh, ll.v, T, C, KD);
    if (g) rmsnormWeightGrad(g.inputNorm, ws.dtmp, C, A.x, C, A.rstd1, T, C);
    if (l > 0 || G?.embed) rmsnormBackward(ws.dres, C, ws.dtmp, C, A.x, C, A.rstd1, W.inputNorm, T, C, true);
  }
  // the embedding: each row's gradient is the sum of ∂L/∂x over the positions holding its token
  const gE = G?.embed;
  if (gE) {
    for (let t = 0; t < T; t++) {
      const e = tokens_T[t]! * C;
      for (let c2 = 0; c2 < C; c2++) gE[e + c2]! += ws.dres[t * C + c2]!;
    }
  }
  return loss;
}
