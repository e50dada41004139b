// Model configuration parsed from a Hugging Face config.json (LlamaForCausalLM, Qwen3ForCausalLM).
import { ModelLoadError } from '../errors.js';

/** Llama 3 RoPE frequency scaling (`rope_scaling.rope_type == "llama3"`). */
export interface Llama3RopeScaling {
  factor: number;
  lowFreqFactor: number;
  highFreqFactor: number;
  originalMaxPositionEmbeddings: number;
}

/** Architecture hyper-parameters of a decoder-only Llama 3 / Qwen3 model. */
export interface ModelConfig {
  /** `llama` (LlamaForCausalLM) or `qwen3` (Qwen3ForCausalLM: adds per-head q/k RMSNorm). */
  arch: 'llama' | 'qwen3';
  vocabSize: number;
  hiddenSize: number;
  intermediateSize: number;
  numLayers: number;
  numHeads: number;
  numKvHeads: number;
  headDim: number;
  rmsNormEps: number;
  ropeTheta: number;
  ropeScaling: Llama3RopeScaling | null;
  tieWordEmbeddings: boolean;
  maxPositionEmbeddings: number;
  bosTokenId: number | null;
  /** End-of-sequence ids from config.json (generation_config/tokenizer_config may add more at load time). */
  eosTokenIds: number[];
}

function num(raw: Record<string, unknown>, key: string, file: string, fallback?: number): number {
  const v = raw[key];
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw new ModelLoadError(`${file}: missing numeric field "${key}"`);
  }
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw new ModelLoadError(`${file}: field "${key}" must be a number`);
  return v;
}

function ids(v: unknown): number[] {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v)) return v.filter((x): x is number => typeof x === 'number');
  return [];
}

/** Parses an HF config.json object; `file` names it in errors. */
export function parseHfConfig(raw: Record<string, unknown>, file = 'config.json'): ModelConfig {
  const archs = Array.isArray(raw.architectures) ? raw.architectures.map(String) : [];
  const modelType = typeof raw.model_type === 'string' ? raw.model_type : '';
  let arch: 'llama' | 'qwen3';
  if (archs.includes('Qwen3ForCausalLM') || modelType === 'qwen3') arch = 'qwen3';
  else if (archs.includes('LlamaForCausalLM') || modelType === 'llama') arch = 'llama';
  else {
    throw new ModelLoadError(
      `${file}: unsupported architecture ${JSON.stringify(archs)} / model_type "${modelType}"; expected LlamaForCausalLM or Qwen3ForCausalLM`,
    );
  }
  if (raw.attention_bias === true || raw.mlp_bias === true) {
    throw new ModelLoadError(`${file}: attention_bias / mlp_bias = true is not supported`);
  }
  const hiddenSize = num(raw, 'hidden_size', file);
  const numHeads = num(raw, 'num_attention_heads', file);
  const numKvHeads = num(raw, 'num_key_value_heads', file, numHeads);
  const headDim = num(raw, 'head_dim', file, hiddenSize / numHeads);
  if (!Number.isInteger(headDim) || numHeads % numKvHeads !== 0) {
    throw new ModelLoadError(`${file}: head_dim ${headDim} / num_key_value_heads ${numKvHeads} are inconsistent`);
  }
  // transformers 5 writes one `rope_parameters` object (rope_type, rope_theta and the scaling fields) where older
  // config.json files have a top-level `rope_theta` and `rope_scaling`; read both layouts.
  const rp = raw.rope_parameters;
  const ropeKey = rp === undefined || rp === null ? 'rope_scaling' : 'rope_parameters';
  let ropeTheta = num(raw, 'rope_theta', file, 10000);
  if (ropeKey === 'rope_parameters') {
    if (typeof rp !== 'object' || rp === null || Array.isArray(rp) || !('rope_type' in rp)) {
      throw new ModelLoadError(`${file}: rope_parameters must be an object with a "rope_type" field`);
    }
    ropeTheta = num(rp as Record<string, unknown>, 'rope_theta', `${file} rope_parameters`, ropeTheta);
  }
  let ropeScaling: Llama3RopeScaling | null = null;
  const rs = raw[ropeKey];
  if (rs !== undefined && rs !== null) {
    if (typeof rs !== 'object') throw new ModelLoadError(`${file}: ${ropeKey} must be an object or null`);
    const r = rs as Record<string, unknown>;
    const type = r.rope_type ?? r.type;
    const where = `${file} ${ropeKey}`;
    if (type === 'llama3') {
      ropeScaling = {
        factor: num(r, 'factor', where),
        lowFreqFactor: num(r, 'low_freq_factor', where),
        highFreqFactor: num(r, 'high_freq_factor', where),
        originalMaxPositionEmbeddings: num(r, 'original_max_position_embeddings', where),
      };
    } else if (type !== 'default') {
      throw new ModelLoadError(`${file}: ${ropeKey} type "${String(type)}" is not supported (only "llama3")`);
    }
  }
  return {
    arch,
    vocabSize: num(raw, 'vocab_size', file),
    hiddenSize,
    intermediateSize: num(raw, 'intermediate_size', file),
    numLayers: num(raw, 'num_hidden_layers', file),
    numHeads,
    numKvHeads,
    headDim,
    rmsNormEps: num(raw, 'rms_norm_eps', file, 1e-6),
    ropeTheta,
    ropeScaling,
    tieWordEmbeddings: raw.tie_word_embeddings === true,
    maxPositionEmbeddings: num(raw, 'max_position_embeddings', file, 4096),
    bosTokenId: typeof raw.bos_token_id === 'number' ? raw.bos_token_id : null,
    eosTokenIds: ids(raw.eos_token_id),
  };
}

/** Renders a config as HF config.json content (float32 weights). */
export function toHfConfig(c: ModelConfig, dtype = 'float32'): Record<string, unknown> {
  const common: Record<string, unknown> = {
    architectures: [c.arch === 'qwen3' ? 'Qwen3ForCausalLM' : 'LlamaForCausalLM'],
    model_type: c.arch === 'qwen3' ? 'qwen3' : 'llama',
    vocab_size: c.vocabSize,
    hidden_size: c.hiddenSize,
    intermediate_size: c.intermediateSize,
    num_hidden_layers: c.numLayers,
    num_attention_heads: c.numHeads,
    num_key_value_heads: c.numKvHeads,
    head_dim: c.headDim,
    hidden_act: 'silu',
    rms_norm_eps: c.rmsNormEps,
    rope_theta: c.ropeTheta,
    rope_scaling: c.ropeScaling
      ? {
          rope_type: 'llama3',
          factor: c.ropeScaling.factor,
          low_freq_factor: c.ropeScaling.lowFreqFactor,
          high_freq_factor: c.ropeScaling.highFreqFactor,
          original_max_position_embeddings: c.ropeScaling.originalMaxPositionEmbeddings,
        }
      : null,
    max_position_embeddings: c.maxPositionEmbeddings,
    tie_word_embeddings: c.tieWordEmbeddings,
    attention_bias: false,
    attention_dropout: 0,
    bos_token_id: c.bosTokenId,
    eos_token_id: c.eosTokenIds.length === 1 ? c.eosTokenIds[0] : c.eosTokenIds,
    torch_dtype: dtype,
    use_cache: true,
  };
  if (c.arch === 'llama') common.mlp_bias = false;
  return common;
}

/** RoPE inverse frequencies (length headDim/2), with Llama 3 scaling applied when configured. */
export function ropeInvFreq(c: ModelConfig): Float64Array {
  const half = c.headDim / 2;
  const inv = new Float64Array(half);
  for (let i = 0; i < half; i++) inv[i] = 1 / c.ropeTheta ** ((2 * i) / c.headDim);
  const s = c.ropeScaling;
  if (s) {
    const lowWavelen = s.originalMaxPositionEmbeddings / s.lowFreqFactor;
    const highWavelen = s.originalMaxPositionEmbeddings / s.highFreqFactor;
    for (let i = 0; i < half; i++) {
      const f = inv[i]!;
      const wavelen = (2 * Math.PI) / f;
      if (wavelen > lowWavelen) inv[i] = f / s.factor;
      else if (wavelen >= highWavelen) {
        const smooth =
          (s.originalMaxPositionEmbeddings / wavelen - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
        inv[i] = (1 - smooth) * (f / s.factor) + smooth * f;
      }
    }
  }
  return inv;
}
