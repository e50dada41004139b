// The attention half of a decoder block over a pack: xmid_TC = x_TC + attention(rmsnorm(x_TC))·W_O, with the fused
// qkv projection (and its LoRA), q/k norms (Qwen3), rope, and attention within each segment (never across).
// Forward and backward side by side. The backward recomputes the normalised input xn_TC and the roped q and k
// (the same calls as the forward: the same values) instead of keeping them for every layer.
import { linearWeightGrad, rmsnormWeightGrad } from '../base-grads.js';
import { attentionBackward, attentionForward } from '../layers/attention.js';
import { linearBackward, linearForward, loraBackward } from '../layers/linear.js';
import { rmsnormBackward, rmsnormForward } from '../layers/rmsnorm.js';
import { ropeBackward, ropeForward } from '../layers/rope.js';
import type { LayerActs } from '../train-workspace.js';
import { loraFwd, type PackPass } from './pack-pass.js';

/** Where a layer's roped q and k are: views with their row strides. */
interface QKViews {
  q: Float32Array;
  ldq: number;
  k: Float32Array;
  ldk: number;
}

/**
 * The attention inputs of layer `l` from its fused qkv. With q/k norms (Qwen3), q and k are normalised per head
 * (their 1/rms go to rstdQ / rstdK) and roped into ws.qr / ws.kr; the forward calls it and the backward again, to
 * get the same values back instead of keeping them for every layer. Without (Llama), nothing else needs the
 * unroped values: the forward ropes them in place in qkv (`forward`), where the backward finds them.
 */
function ropedQK(p: PackPass, l: number, A: LayerActs, forward: boolean): QKViews {
  const { ws, pos_T, T, H, KV, D, QD, KD, QKV, eps } = p;
  const W = p.model.weights.layers[l]!;
  const rope = p.model.rope;
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

/** Layer `l`: xmid_TC = x_TC + attention(rmsnorm(x_TC))·W_O (+ LoRA), keeping what the backward needs in its acts. */
export function attentionBlockForward(p: PackPass, l: number): void {
  const { ws, T, C, H, KV, D, QD, KD, QKV, eps } = p;
  const A = ws.layers[l]!;
  const W = p.model.weights.layers[l]!;
  const ll = p.lora?.layers[l];
  const xn_TC = ws.xn;
  rmsnormForward(xn_TC, C, A.rstd1, A.x, C, W.inputNorm, T, C, eps);
  linearForward(A.qkv, QKV, xn_TC, C, W.wQKV, T, C, QKV, 0);
  if (ll) {
    loraFwd(ll.q, A.qkv, QKV, xn_TC, C, A.h.q, T, C, QD);
    loraFwd(ll.k, A.qkv.subarray(QD), QKV, xn_TC, C, A.h.k, T, C, KD);
    loraFwd(ll.v, A.qkv.subarray(QD + KD), QKV, xn_TC, C, A.h.v, T, C, KD);
  }
  const fq = ropedQK(p, l, A, true);
  for (const s of p.segments) {
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
}

/**
 * Layer `l`, given ∂L/∂xmid in ws.dres: accumulates the LoRA (and, with `G`, the base) gradients of the attention
 * half and leaves ∂L/∂x in ws.dres (skipped for the first layer unless the embedding is trained).
 */
export function attentionBlockBackward(p: PackPass, l: number): void {
  const { ws, T, C, H, KV, D, QD, KD, QKV, eps, G } = p;
  const A = ws.layers[l]!;
  const W = p.model.weights.layers[l]!;
  const ll = p.lora?.layers[l];
  const g = G?.layers[l];
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
  const bq = ropedQK(p, l, A, false);
  for (const s of p.segments) {
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
  const rope = p.model.rope;
  ropeBackward(dq.q, dq.ldq, p.pos_T, T, H, D, rope);
  ropeBackward(dq.k, dq.ldk, p.pos_T, T, KV, D, rope);
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
  // the qkv projection and the input norm; xn_TC recomputed from x (the forward's call: the same values)
  const xn_TC = ws.xn;
  linearBackward(ws.dtmp, C, ws.dqkv, QKV, W.wQKV, T, C, QKV, 0);
  if (ll?.q || ll?.k || ll?.v || g) rmsnormForward(xn_TC, C, A.rstd1, A.x, C, W.inputNorm, T, C, eps);
  if (g) linearWeightGrad(g.wQKV, ws.dqkv, QKV, xn_TC, C, T, C, QKV);
  if (ll?.q) loraBackward(ws.dtmp, C, ws.dqkv, QKV, xn_TC, C, A.h.q, ws.dh, ll.q, T, C, QD);
  if (ll?.k) loraBackward(ws.dtmp, C, ws.dqkv.subarray(QD), QKV, xn_TC, C, A.h.k, ws.dh, ll.k, T, C, KD);
  if (ll?.v) loraBackward(ws.dtmp, C, ws.dqkv.subarray(QD + KD), QKV, xn_TC, C, A.h.v, ws.dh, ll.v, T, C, KD);
  if (g) rmsnormWeightGrad(g.inputNorm, ws.dtmp, C, A.x, C, A.rstd1, T, C);
  if (l > 0 || G?.embed) rmsnormBackward(ws.dres, C, ws.dtmp, C, A.x, C, A.rstd1, W.inputNorm, T, C, true);
}
