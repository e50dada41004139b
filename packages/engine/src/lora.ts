// LoRA adapters per Tinker's LoraConfig: A kaiming-uniform (seeded), B zero, scale alpha/rank with alpha = 32.
// All adapter parameters live in one flat buffer (and gradients in another) so AdamW and clipping are one loop.

import { Xoshiro128Rng } from '@cookbook/core';
import { EngineInputError } from './errors.js';
import type { LoraAdapter } from './layers/linear.js';
import type { ModelConfig } from './model/config.js';

/** Tinker/SkyRL use a fixed LoRA alpha of 32: the adapter output is scaled by alpha / rank. */
export const DEFAULT_LORA_ALPHA = 32;

/** LoRA hyper-parameters (Tinker LoraConfig plus alpha). */
export interface LoraSpec {
  /** Adapter rank r (> 0). */
  rank: number;
  /** Seed of the A-matrix initialisation (default 0). */
  seed?: number;
  /** Adapt q/k/v/o projections (default true). */
  trainAttn?: boolean;
  /** Adapt gate/up/down projections (default true). */
  trainMlp?: boolean;
  /** Adapt the output head, `lm_head` (default true). */
  trainUnembed?: boolean;
  /** LoRA alpha (default 32, Tinker's fixed value). */
  alpha?: number;
}

/** A LoraSpec with every default filled in. */
export type ResolvedLoraSpec = Required<LoraSpec>;

/** One adapted module with its HF path (e.g. `model.layers.0.self_attn.q_proj`). */
export interface LoraModule {
  path: string;
  /** PEFT target module name (`q_proj`, …, `lm_head`). */
  target: string;
  inFeatures: number;
  outFeatures: number;
  adapter: LoraAdapter;
}

/** Per-layer adapters by role (null when not trained). */
export interface LayerLora {
  q: LoraAdapter | null;
  k: LoraAdapter | null;
  v: LoraAdapter | null;
  o: LoraAdapter | null;
  gate: LoraAdapter | null;
  up: LoraAdapter | null;
  down: LoraAdapter | null;
}

/** Validates a spec and fills defaults. */
export function resolveLoraSpec(s: LoraSpec): ResolvedLoraSpec {
  if (!Number.isInteger(s.rank) || s.rank < 1)
    throw new EngineInputError(`lora rank must be a positive integer, got ${s.rank}`);
  const r: ResolvedLoraSpec = {
    rank: s.rank,
    seed: s.seed ?? 0,
    trainAttn: s.trainAttn ?? true,
    trainMlp: s.trainMlp ?? true,
    trainUnembed: s.trainUnembed ?? true,
    alpha: s.alpha ?? DEFAULT_LORA_ALPHA,
  };
  if (!r.trainAttn && !r.trainMlp && !r.trainUnembed) {
    throw new EngineInputError('lora config: at least one of train_attn, train_mlp, train_unembed must be true');
  }
  if (!Number.isFinite(r.alpha) || r.alpha <= 0) throw new EngineInputError(`lora alpha must be > 0, got ${r.alpha}`);
  return r;
}

/** The adapter set of one model: flat parameters/gradients plus typed views per module. */
export class LoraWeights {
  readonly params: Float32Array;
  readonly grads: Float32Array;
  readonly modules: LoraModule[];
  readonly layers: LayerLora[];
  readonly head: LoraAdapter | null;

  /** Allocates adapters for `config`; with `params` given, uses (a copy of) them instead of the init. */
  constructor(
    readonly config: ModelConfig,
    readonly spec: ResolvedLoraSpec,
    params?: Float32Array,
  ) {
    const { hiddenSize: C, intermediateSize: I, numHeads: H, numKvHeads: KV, headDim: D } = config;
    const R = spec.rank;
    const plan: { path: string; target: string; i: number; o: number }[] = [];
    for (let l = 0; l < config.numLayers; l++) {
      const p = `model.layers.${l}`;
      if (spec.trainAttn) {
        plan.push({ path: `${p}.self_attn.q_proj`, target: 'q_proj', i: C, o: H * D });
        plan.push({ path: `${p}.self_attn.k_proj`, target: 'k_proj', i: C, o: KV * D });
        plan.push({ path: `${p}.self_attn.v_proj`, target: 'v_proj', i: C, o: KV * D });
        plan.push({ path: `${p}.self_attn.o_proj`, target: 'o_proj', i: H * D, o: C });
      }
      if (spec.trainMlp) {
        plan.push({ path: `${p}.mlp.gate_proj`, target: 'gate_proj', i: C, o: I });
        plan.push({ path: `${p}.mlp.up_proj`, target: 'up_proj', i: C, o: I });
        plan.push({ path: `${p}.mlp.down_proj`, target: 'down_proj', i: I, o: C });
      }
    }
    if (spec.trainUnembed) plan.push({ path: 'lm_head', target: 'lm_head', i: C, o: config.vocabSize });
    const total = plan.reduce((s, m) => s + R * (m.i + m.o), 0);
    this.params = new Float32Array(total);
    this.grads = new Float32Array(total);
    if (params) {
      if (params.length !== total) {
        throw new EngineInputError(`LoRA parameter count ${params.length} does not match the config (${total})`);
      }
      this.params.set(params);
    }
    const rng = new Xoshiro128Rng(spec.seed);
    const scale = spec.alpha / R;
    let off = 0;
    this.modules = plan.map((m) => {
      const nA = R * m.i;
      const nB = m.o * R;
      const adapter: LoraAdapter = {
        A_RI: this.params.subarray(off, off + nA),
        B_OR: this.params.subarray(off + nA, off + nA + nB),
        gA_RI: this.grads.subarray(off, off + nA),
        gB_OR: this.grads.subarray(off + nA, off + nA + nB),
        rank: R,
        scale,
      };
      // PEFT init: kaiming_uniform(a=√5) on A, i.e. U(−1/√in, 1/√in); B stays zero.
      if (!params) rng.fillUniform(adapter.A_RI, 1 / Math.sqrt(m.i));
      off += nA + nB;
      return { path: m.path, target: m.target, inFeatures: m.i, outFeatures: m.o, adapter };
    });
    const byPath = new Map(this.modules.map((m) => [m.path, m.adapter]));
    this.layers = [];
    for (let l = 0; l < config.numLayers; l++) {
      const p = `model.layers.${l}`;
      const get = (s: string) => byPath.get(`${p}.${s}`) ?? null;
      this.layers.push({
        q: get('self_attn.q_proj'),
        k: get('self_attn.k_proj'),
        v: get('self_attn.v_proj'),
        o: get('self_attn.o_proj'),
        gate: get('mlp.gate_proj'),
        up: get('mlp.up_proj'),
        down: get('mlp.down_proj'),
      });
    }
    this.head = byPath.get('lm_head') ?? null;
  }

  /** A copy of the parameters (no gradients) for a sampler snapshot. */
  snapshot(): LoraWeights {
    return new LoraWeights(this.config, this.spec, this.params);
  }
}
