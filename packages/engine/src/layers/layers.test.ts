import { describe, expect, it } from 'vitest';
import { ropeInvFreq } from '../model/config.js';
import { dot, fdDirectional, randn, tinyConfig } from '../test-utils.js';
import { attentionBackward, attentionForward } from './attention.js';
import { type LoraAdapter, linearBackward, linearForward, loraBackward, loraForward } from './linear.js';
import { rmsnormBackward, rmsnormForward } from './rmsnorm.js';
import { RopeTable, ropeBackward, ropeForward } from './rope.js';
import { swigluBackward, swigluForward } from './swiglu.js';
import { logprobGradToLogits, logSumExpRows, unembedBackward, unembedForward } from './unembed.js';

/** Checks that the analytic gradient g of f at x matches central differences along two random directions. */
function expectGrad(x: Float32Array, g: Float32Array, f: () => number, seed: number): void {
  for (let s = 0; s < 2; s++) {
    const d = randn(x.length, seed + s);
    const fd = fdDirectional(x, d, f);
    const an = dot(g, d);
    expect(Math.abs(fd - an)).toBeLessThan(2e-2 * Math.max(1, Math.abs(an)));
  }
}

describe('layer backward passes match finite differences', () => {
  it('rmsnorm', () => {
    const R = 5;
    const C = 12;
    const x = randn(R * C, 1);
    const w = randn(C, 2);
    const dy = randn(R * C, 3);
    const y = new Float32Array(R * C);
    const rstd = new Float32Array(R);
    const f = () => {
      rmsnormForward(y, C, rstd, x, C, w, R, C, 1e-5);
      return dot(y, dy);
    };
    f();
    const dx = new Float32Array(R * C);
    rmsnormBackward(dx, C, dy, C, x, C, rstd, w, R, C, false);
    expectGrad(x, dx, f, 10);
  });

  it('rope (with llama3 scaling)', () => {
    const c = tinyConfig('llama', false);
    const table = new RopeTable(ropeInvFreq(c), c.headDim / 2);
    table.ensure(40);
    const T = 6;
    const H = 3;
    const D = c.headDim;
    const pos = Int32Array.from([0, 1, 2, 17, 31, 39]);
    const x = randn(T * H * D, 4);
    const dy = randn(T * H * D, 5);
    const f = () => {
      const y = x.slice();
      ropeForward(y, H * D, pos, T, H, D, table);
      return dot(y, dy);
    };
    const dx = dy.slice();
    ropeBackward(dx, H * D, pos, T, H, D, table);
    expectGrad(x, dx, f, 20);
    // rotate-half convention: position 1 rotates (x_i, x_{i+D/2}) by invFreq_i
    const v = new Float32Array(D);
    v[0] = 1;
    ropeForward(v, D, Int32Array.from([1]), 1, 1, D, table);
    const a = ropeInvFreq(c)[0]!;
    expect(v[0]).toBeCloseTo(Math.cos(a), 5);
    expect(v[D / 2]).toBeCloseTo(Math.sin(a), 5);
  });

  it('causal GQA attention (also with a cached prefix: S > T)', () => {
    for (const [T, S] of [
      [7, 7],
      [3, 8],
    ] as const) {
      const H = 4;
      const KV = 2;
      const D = 4;
      const q = randn(T * H * D, 6);
      const k = randn(S * KV * D, 7);
      const v = randn(S * KV * D, 8);
      const dO = randn(T * H * D, 9);
      const o = new Float32Array(T * H * D);
      const att = new Float32Array(T * S);
      const shape = { T, S, H, KV, D };
      const f = () => {
        attentionForward(o, H * D, q, H * D, k, KV * D, v, KV * D, att, shape);
        return dot(o, dO);
      };
      f();
      const dq = new Float32Array(q.length);
      const dk = new Float32Array(k.length);
      const dv = new Float32Array(v.length);
      attentionBackward(
        dq,
        H * D,
        dk,
        KV * D,
        dv,
        KV * D,
        dO,
        H * D,
        q,
        H * D,
        k,
        KV * D,
        v,
        KV * D,
        att,
        new Float32Array(T * S),
        shape,
      );
      expectGrad(q, dq, f, 30);
      expectGrad(k, dk, f, 40);
      expectGrad(v, dv, f, 50);
      // causality: the first query row only sees keys up to S − T
      const k2 = k.slice();
      k2.fill(9, (S - T + 1) * KV * D);
      const o2 = new Float32Array(o.length);
      attentionForward(o2, H * D, q, H * D, k2, KV * D, v, KV * D, att, shape);
      f();
      for (let i = 0; i < H * D; i++) expect(o2[i]).toBeCloseTo(o[i]!, 5);
    }
  });

  it('swiglu', () => {
    const T = 4;
    const I = 6;
    const gu = randn(T * 2 * I, 11, 2);
    const dact = randn(T * I, 12);
    const act = new Float32Array(T * I);
    const f = () => {
      swigluForward(act, gu, T, I);
      return dot(act, dact);
    };
    const dgu = new Float32Array(gu.length);
    swigluBackward(dgu, dact, gu, T, I);
    expectGrad(gu, dgu, f, 60);
  });

  it('linear + lora (strided output)', () => {
    const T = 5;
    const I = 7;
    const O = 6;
    const R = 3;
    const ldy = O + 2;
    const x = randn(T * I, 13);
    const W = randn(O * I, 14);
    const a: LoraAdapter = {
      A_RI: randn(R * I, 15),
      B_OR: randn(O * R, 16),
      gA_RI: new Float32Array(R * I),
      gB_OR: new Float32Array(O * R),
      rank: R,
      scale: 0.7,
    };
    const dy = randn(T * ldy, 17);
    const y = new Float32Array(T * ldy);
    const h = new Float32Array(T * R);
    const f = () => {
      y.fill(0);
      linearForward(y, ldy, x, I, W, T, I, O, 0);
      loraForward(y, ldy, x, I, h, a, T, I, O);
      let s = 0;
      for (let t = 0; t < T; t++) for (let o = 0; o < O; o++) s += y[t * ldy + o]! * dy[t * ldy + o]!;
      return s;
    };
    f();
    const dx = new Float32Array(T * I);
    linearBackward(dx, I, dy, ldy, W, T, I, O, 0);
    loraBackward(dx, I, dy, ldy, x, I, h, new Float32Array(T * R), a, T, I, O);
    expectGrad(x, dx, f, 70);
    expectGrad(a.A_RI, a.gA_RI, f, 80);
    expectGrad(a.B_OR, a.gB_OR, f, 90);
  });

  it('unembedding + log-softmax from per-target logprob gradients (K = 2)', () => {
    const T = 3;
    const C = 8;
    const V = 11;
    const K = 2;
    const R = 2;
    const x = randn(T * C, 21);
    const W = randn(V * C, 22);
    const a: LoraAdapter = {
      A_RI: randn(R * C, 23),
      B_OR: randn(V * R, 24),
      gA_RI: new Float32Array(R * C),
      gB_OR: new Float32Array(V * R),
      rank: R,
      scale: 0.5,
    };
    const targets = Int32Array.from([1, 5, 0, 10, 3, 3]);
    const g = Float64Array.from([0.3, -1, 2, 0.5, -0.7, 1.1]);
    const logits = new Float32Array(T * V);
    const lse = new Float64Array(T);
    const h = new Float32Array(T * R);
    const f = () => {
      unembedForward(logits, x, W, a, h, T, C, V);
      logSumExpRows(lse, logits, T, V);
      let s = 0;
      for (let t = 0; t < T; t++)
        for (let k = 0; k < K; k++) s += g[t * K + k]! * (logits[t * V + targets[t * K + k]!]! - lse[t]!);
      return s;
    };
    f();
    logprobGradToLogits(logits, lse, targets, g, T, V, K);
    const dx = new Float32Array(T * C);
    unembedBackward(dx, logits, x, W, a, h, new Float32Array(T * R), T, C, V, 0);
    expectGrad(x, dx, f, 100);
    expectGrad(a.A_RI, a.gA_RI, f, 110);
    expectGrad(a.B_OR, a.gB_OR, f, 120);
  });
});
