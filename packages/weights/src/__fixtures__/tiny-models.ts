/** Test fixtures: a tiny base model folder and Tinker-style adapter folders, written with seeded values. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TensorToWrite, writeSafetensors } from '../safetensors.js';

/** Deterministic values in [-scale, scale). */
export function seeded(n: number, seed: number, scale = 0.1): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = ((s / 2 ** 32) * 2 - 1) * scale;
  }
  return out;
}

export interface TinyShape {
  hidden: number;
  inter: number;
  layers: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  vocab: number;
  tied: boolean;
  modelType?: string;
}

export const TINY: TinyShape = { hidden: 8, inter: 12, layers: 2, heads: 2, kvHeads: 1, headDim: 4, vocab: 16, tied: true };

/** The linear modules of one layer: [path suffix, out, in]. */
export function linearModules(s: TinyShape): [string, number, number][] {
  const out: [string, number, number][] = [];
  for (let l = 0; l < s.layers; l++) {
    const p = `model.layers.${l}`;
    out.push([`${p}.self_attn.q_proj`, s.heads * s.headDim, s.hidden]);
    out.push([`${p}.self_attn.k_proj`, s.kvHeads * s.headDim, s.hidden]);
    out.push([`${p}.self_attn.v_proj`, s.kvHeads * s.headDim, s.hidden]);
    out.push([`${p}.self_attn.o_proj`, s.hidden, s.heads * s.headDim]);
    out.push([`${p}.mlp.gate_proj`, s.inter, s.hidden]);
    out.push([`${p}.mlp.up_proj`, s.inter, s.hidden]);
    out.push([`${p}.mlp.down_proj`, s.hidden, s.inter]);
  }
  return out;
}

/** Writes a base model folder (config.json, one safetensors file, a tokenizer.json) and returns its tensors. */
export function writeBaseFolder(dir: string, s: TinyShape = TINY, seed = 1): Map<string, TensorToWrite> {
  mkdirSync(dir, { recursive: true });
  const tensors: TensorToWrite[] = [{ name: 'model.embed_tokens.weight', shape: [s.vocab, s.hidden], data: seeded(s.vocab * s.hidden, seed) }];
  linearModules(s).forEach(([p, o, i], k) => {
    tensors.push({ name: `${p}.weight`, shape: [o, i], data: seeded(o * i, seed + 10 + k) });
  });
  for (let l = 0; l < s.layers; l++) {
    tensors.push({ name: `model.layers.${l}.input_layernorm.weight`, shape: [s.hidden], data: new Float32Array(s.hidden).fill(1) });
  }
  tensors.push({ name: 'model.norm.weight', shape: [s.hidden], data: new Float32Array(s.hidden).fill(1) });
  if (!s.tied) tensors.push({ name: 'lm_head.weight', shape: [s.vocab, s.hidden], data: seeded(s.vocab * s.hidden, seed + 99) });
  writeSafetensors(join(dir, 'model.safetensors'), tensors, { format: 'pt' });
  const config = {
    architectures: [s.modelType === 'llama' ? 'LlamaForCausalLM' : 'Qwen3ForCausalLM'],
    model_type: s.modelType ?? 'qwen3',
    hidden_size: s.hidden,
    intermediate_size: s.inter,
    num_hidden_layers: s.layers,
    num_attention_heads: s.heads,
    num_key_value_heads: s.kvHeads,
    head_dim: s.headDim,
    vocab_size: s.vocab,
    tie_word_embeddings: s.tied,
    torch_dtype: 'float32',
  };
  writeFileSync(join(dir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  writeFileSync(join(dir, 'tokenizer.json'), '{"model":{"type":"BPE"}}\n');
  return new Map(tensors.map((t) => [t.name, t]));
}

/**
 * Writes an adapter folder as a Tinker service saves it: adapter_config.json (r, lora_alpha) and
 * adapter_model.safetensors with `base_model.model.<module>.lora_A/B.weight` keys, the head as `model.unembed_tokens`.
 */
export function writeAdapterFolder(
  dir: string,
  s: TinyShape = TINY,
  opts: { rank?: number; alpha?: number; head?: boolean; seed?: number; baseModel?: string } = {},
): void {
  const r = opts.rank ?? 2;
  mkdirSync(dir, { recursive: true });
  const mods = linearModules(s);
  if (opts.head ?? true) mods.push(['model.unembed_tokens', s.vocab, s.hidden]);
  const tensors: TensorToWrite[] = [];
  mods.forEach(([p, o, i], k) => {
    const seed = (opts.seed ?? 7) * 1000 + k;
    tensors.push({ name: `base_model.model.${p}.lora_A.weight`, shape: [r, i], data: seeded(r * i, seed, 0.3) });
    tensors.push({ name: `base_model.model.${p}.lora_B.weight`, shape: [o, r], data: seeded(o * r, seed + 500, 0.3) });
  });
  writeSafetensors(join(dir, 'adapter_model.safetensors'), tensors, { format: 'pt' });
  const cfg: Record<string, unknown> = { r, lora_alpha: opts.alpha ?? 32, peft_type: 'LORA' };
  if (opts.baseModel !== undefined) cfg.base_model_name_or_path = opts.baseModel;
  writeFileSync(join(dir, 'adapter_config.json'), `${JSON.stringify(cfg)}\n`);
}

/** A ustar archive of `files` (for archive tests); `name` may be any string, to build hostile archives. */
export function tarOf(files: { name: string; data: Uint8Array; type?: string }[]): Buffer {
  const parts: Buffer[] = [];
  for (const f of files) {
    const h = Buffer.alloc(512, 0);
    h.write(f.name, 0, 100, 'utf8');
    const oct = (v: number, w: number) => `${v.toString(8).padStart(w - 1, '0')}\0`;
    h.write(oct(0o644, 8), 100, 'ascii');
    h.write(oct(0, 8), 108, 'ascii');
    h.write(oct(0, 8), 116, 'ascii');
    h.write(oct(f.data.length, 12), 124, 'ascii');
    h.write(oct(0, 12), 136, 'ascii');
    h.write('        ', 148, 'ascii');
    h.write(f.type ?? '0', 156, 'ascii');
    h.write('ustar\0', 257, 'ascii');
    h.write('00', 263, 'ascii');
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
    parts.push(h, Buffer.from(f.data), Buffer.alloc((512 - (f.data.length % 512)) % 512, 0));
  }
  parts.push(Buffer.alloc(1024, 0));
  return Buffer.concat(parts);
}
