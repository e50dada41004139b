// In-memory weights of a Llama 3 / Qwen3 model in f32, with q/k/v and gate/up fused row-wise so one GEMM
// computes them; the HF per-module tensors are row ranges (subarray views) of the fused matrices.
import { Xoshiro128Rng } from '@cookbook/core';
import type { ModelConfig } from './config.js';

/** Weights of one decoder block (HF layout: out × in). */
export interface LayerWeights {
  inputNorm: Float32Array;
  /** q, k, v projections stacked: ((H + 2·KV)·D) × C. */
  wQKV: Float32Array;
  /** Qwen3 per-head RMSNorm weights (D), null for Llama. */
  qNorm: Float32Array | null;
  kNorm: Float32Array | null;
  /** C × H·D. */
  wO: Float32Array;
  postNorm: Float32Array;
  /** gate and up stacked: 2I × C. */
  wGateUp: Float32Array;
  /** C × I. */
  wDown: Float32Array;
}

/** All weights; `lmHead === embed` when embeddings are tied. */
export interface ModelWeights {
  embed: Float32Array;
  layers: LayerWeights[];
  finalNorm: Float32Array;
  lmHead: Float32Array;
}

/** One named HF tensor as a view into the model's weights. */
export interface NamedTensor {
  name: string;
  shape: number[];
  data: Float32Array;
}

/** Allocates zeroed weights (norm weights set to one). */
export function allocWeights(c: ModelConfig): ModelWeights {
  const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KV, headDim: D } = c;
  const layers: LayerWeights[] = [];
  for (let l = 0; l < c.numLayers; l++) {
    layers.push({
      inputNorm: new Float32Array(C).fill(1),
      wQKV: new Float32Array((H + 2 * KV) * D * C),
      qNorm: c.arch === 'qwen3' ? new Float32Array(D).fill(1) : null,
      kNorm: c.arch === 'qwen3' ? new Float32Array(D).fill(1) : null,
      wO: new Float32Array(C * H * D),
      postNorm: new Float32Array(C).fill(1),
      wGateUp: new Float32Array(2 * I * C),
      wDown: new Float32Array(C * I),
    });
  }
  const embed = new Float32Array(c.vocabSize * C);
  return {
    embed,
    layers,
    finalNorm: new Float32Array(C).fill(1),
    lmHead: c.tieWordEmbeddings ? embed : new Float32Array(c.vocabSize * C),
  };
}

/** The HF tensors of a model (views, not copies), in a stable order; `lm_head.weight` only when untied. */
export function hfTensors(c: ModelConfig, w: ModelWeights): NamedTensor[] {
  const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KV, headDim: D } = c;
  const out: NamedTensor[] = [{ name: 'model.embed_tokens.weight', shape: [c.vocabSize, C], data: w.embed }];
  w.layers.forEach((L, l) => {
    const p = `model.layers.${l}`;
    const q = H * D * C;
    const k = KV * D * C;
    out.push({ name: `${p}.input_layernorm.weight`, shape: [C], data: L.inputNorm });
    out.push({ name: `${p}.self_attn.q_proj.weight`, shape: [H * D, C], data: L.wQKV.subarray(0, q) });
    out.push({ name: `${p}.self_attn.k_proj.weight`, shape: [KV * D, C], data: L.wQKV.subarray(q, q + k) });
    out.push({ name: `${p}.self_attn.v_proj.weight`, shape: [KV * D, C], data: L.wQKV.subarray(q + k, q + 2 * k) });
    out.push({ name: `${p}.self_attn.o_proj.weight`, shape: [C, H * D], data: L.wO });
    if (L.qNorm) out.push({ name: `${p}.self_attn.q_norm.weight`, shape: [D], data: L.qNorm });
    if (L.kNorm) out.push({ name: `${p}.self_attn.k_norm.weight`, shape: [D], data: L.kNorm });
    out.push({ name: `${p}.post_attention_layernorm.weight`, shape: [C], data: L.postNorm });
    out.push({ name: `${p}.mlp.gate_proj.weight`, shape: [I, C], data: L.wGateUp.subarray(0, I * C) });
    out.push({ name: `${p}.mlp.up_proj.weight`, shape: [I, C], data: L.wGateUp.subarray(I * C) });
    out.push({ name: `${p}.mlp.down_proj.weight`, shape: [C, I], data: L.wDown });
  });
  out.push({ name: 'model.norm.weight', shape: [C], data: w.finalNorm });
  if (!c.tieWordEmbeddings) out.push({ name: 'lm_head.weight', shape: [c.vocabSize, C], data: w.lmHead });
  return out;
}

function nameSeed(seed: number, name: string): number {
  let h = 2166136261 ^ seed;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Deterministic random init: every matrix N(0, std²) seeded by (seed, tensor name); norms one. */
export function randomWeights(c: ModelConfig, seed: number, std = 0.02): ModelWeights {
  const w = allocWeights(c);
  for (const t of hfTensors(c, w)) {
    if (t.shape.length < 2) continue;
    new Xoshiro128Rng(nameSeed(seed, t.name)).fillNormal(t.data, std);
  }
  return w;
}
