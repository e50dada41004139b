// Causal grouped-query self-attention over one segment, per head through the GEMM kernel.
// Shapes: q_TQ (T × H·D), k/v (T × KV·D, any row stride), o_TQ like q. Query head h reads kv head h / (H/KV).
// Query rows go in blocks of ROW_BLOCK: a block only multiplies the keys its last row can see, so the masked
// upper triangle is (mostly) never computed. Softmax and its backward run natively when the addon is available.
import { nativeOps, sgemm } from '../kernels/kernel.js';

/** Geometry of one attention call. */
export interface AttnShape {
  /** Query rows of this segment. */
  T: number;
  /** Key rows (≥ T): keys [0, S) where query row i sits at key position S − T + i. */
  S: number;
  H: number;
  KV: number;
  D: number;
}

const ROW_BLOCK = 128;

/**
 * Softmax of each of T rows of att (row stride ld) under the causal mask: row i sees columns [0, off + i] and the
 * rest of its `width` columns are zeroed. Pure-TS reference.
 */
export function causalSoftmaxJs(att: Float32Array, ld: number, T: number, width: number, off: number): void {
  for (let i = 0; i < T; i++) {
    const o = i * ld;
    const n = Math.max(0, Math.min(width, off + i + 1));
    let m = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < n; j++) if (att[o + j]! > m) m = att[o + j]!;
    let sum = 0;
    for (let j = 0; j < n; j++) {
      const e = Math.exp(att[o + j]! - m);
      att[o + j] = e;
      sum += e;
    }
    const inv = 1 / sum;
    for (let j = 0; j < n; j++) att[o + j]! *= inv;
    att.fill(0, o + n, o + width);
  }
}

/** Backward of causalSoftmaxJs given P (att) and dP (datt, overwritten): dS = P ⊙ (dP − rowsum(P ⊙ dP)). */
export function causalSoftmaxBackwardJs(
  att: Float32Array,
  datt: Float32Array,
  ld: number,
  T: number,
  width: number,
  off: number,
): void {
  for (let i = 0; i < T; i++) {
    const o = i * ld;
    const n = Math.max(0, Math.min(width, off + i + 1));
    let dot = 0;
    for (let j = 0; j < n; j++) dot += att[o + j]! * datt[o + j]!;
    for (let j = 0; j < n; j++) datt[o + j] = att[o + j]! * (datt[o + j]! - dot);
    datt.fill(0, o + n, o + width);
  }
}

function causalSoftmax(att: Float32Array, ld: number, T: number, width: number, off: number): void {
  const ops = nativeOps();
  if (ops) ops.softmaxCausal(att, ld, T, width, off);
  else causalSoftmaxJs(att, ld, T, width, off);
}

function causalSoftmaxBackward(
  att: Float32Array,
  datt: Float32Array,
  ld: number,
  T: number,
  width: number,
  off: number,
): void {
  const ops = nativeOps();
  if (ops) ops.softmaxCausalBackward(att, datt, ld, T, width, off);
  else causalSoftmaxBackwardJs(att, datt, ld, T, width, off);
}

/**
 * o = softmax(q·kᵀ/√D, causal)·v for every head. `att_TS` is scratch of at least T·S floats.
 * q, k, v, o are views starting at the segment's first row; ldq/ldk/ldv/ldo are row strides.
 */
export function attentionForward(
  o: Float32Array,
  ldo: number,
  q: Float32Array,
  ldq: number,
  k: Float32Array,
  ldk: number,
  v: Float32Array,
  ldv: number,
  att_TS: Float32Array,
  s: AttnShape,
): void {
  const { T, S, H, KV, D } = s;
  const rep = H / KV;
  const scale = 1 / Math.sqrt(D);
  const off = S - T;
  for (let h = 0; h < H; h++) {
    const g = Math.floor(h / rep);
    const kg = k.subarray(g * D);
    const vg = v.subarray(g * D);
    for (let i0 = 0; i0 < T; i0 += ROW_BLOCK) {
      const n = Math.min(ROW_BLOCK, T - i0);
      const W = off + i0 + n; // keys seen by the block's last row
      sgemm(false, true, n, W, D, scale, q.subarray(i0 * ldq + h * D), ldq, kg, ldk, 0, att_TS, W);
      causalSoftmax(att_TS, W, n, W, off + i0);
      sgemm(false, false, n, D, W, 1, att_TS, W, vg, ldv, 0, o.subarray(i0 * ldo + h * D), ldo);
    }
  }
}

/**
 * One query row (a decode step) over S cached keys: attentionForward with T = 1, in one native call for all heads
 * when the addon is available (the per-head products are too small to pay for a GEMM call each).
 */
export function attentionDecode(
  o: Float32Array,
  q: Float32Array,
  k: Float32Array,
  ldk: number,
  v: Float32Array,
  ldv: number,
  att: Float32Array,
  S: number,
  H: number,
  KV: number,
  D: number,
): void {
  const ops = nativeOps();
  if (ops) ops.attentionDecode(o, q, k, ldk, v, ldv, S, H, KV, D);
  else attentionForward(o, H * D, q, H * D, k, ldk, v, ldv, att, { T: 1, S, H, KV, D });
}

/**
 * attentionDecode for B sequences of one cache (one native call, split across the kernel's threads): sequence b's
 * query and output are row b of q and o (H·D each); its lens[b] keys and values are rows first[b]… of k and v (row
 * stride ld). Every sequence gets exactly its attentionDecode result.
 */
export function attentionDecodeBatch(
  o: Float32Array,
  q: Float32Array,
  k: Float32Array,
  v: Float32Array,
  ld: number,
  first: Int32Array,
  lens: Int32Array,
  H: number,
  KV: number,
  D: number,
  att: Float32Array,
): void {
  const B = first.length;
  const ops = nativeOps();
  if (ops) {
    ops.attentionDecodeBatch(o, q, k, v, ld, first, lens, B, H, KV, D);
    return;
  }
  for (let b = 0; b < B; b++) {
    const r = first[b]! * ld;
    attentionDecode(
      o.subarray(b * H * D),
      q.subarray(b * H * D),
      k.subarray(r),
      ld,
      v.subarray(r),
      ld,
      att,
      lens[b]!,
      H,
      KV,
      D,
    );
  }
}

/**
 * Backward of attentionForward (probabilities recomputed from q and k). Writes dq, accumulates dk and dv
 * (callers zero them first). `att_TS` and `datt_TS` are scratch.
 */
export function attentionBackward(
  dq: Float32Array,
  lddq: number,
  dk: Float32Array,
  lddk: number,
  dv: Float32Array,
  lddv: number,
  dout: Float32Array,
  lddo: number,
  q: Float32Array,
  ldq: number,
  k: Float32Array,
  ldk: number,
  v: Float32Array,
  ldv: number,
  att_TS: Float32Array,
  datt_TS: Float32Array,
  s: AttnShape,
): void {
  const { T, S, H, KV, D } = s;
  const rep = H / KV;
  const scale = 1 / Math.sqrt(D);
  const off = S - T;
  for (let h = 0; h < H; h++) {
    const g = Math.floor(h / rep);
    const kg = k.subarray(g * D);
    const vg = v.subarray(g * D);
    const dkg = dk.subarray(g * D);
    const dvg = dv.subarray(g * D);
    for (let i0 = 0; i0 < T; i0 += ROW_BLOCK) {
      const n = Math.min(ROW_BLOCK, T - i0);
      const W = off + i0 + n;
      const qb = q.subarray(i0 * ldq + h * D);
      const dob = dout.subarray(i0 * lddo + h * D);
      sgemm(false, true, n, W, D, scale, qb, ldq, kg, ldk, 0, att_TS, W);
      causalSoftmax(att_TS, W, n, W, off + i0);
      // dP = dO·Vᵀ, then dS = P ⊙ (dP − rowsum(P ⊙ dP))
      sgemm(false, true, n, W, D, 1, dob, lddo, vg, ldv, 0, datt_TS, W);
      causalSoftmaxBackward(att_TS, datt_TS, W, n, W, off + i0);
      sgemm(false, false, n, D, W, scale, datt_TS, W, kg, ldk, 0, dq.subarray(i0 * lddq + h * D), lddq);
      sgemm(true, false, W, D, n, scale, datt_TS, W, qb, ldq, 1, dkg, lddk);
      sgemm(true, false, W, D, n, 1, att_TS, W, dob, lddo, 1, dvg, lddv);
    }
  }
}
