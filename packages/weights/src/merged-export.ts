/**
 * Merged model export (upstream tinker-cookbook `weights.build_hf_model`): the base model's weights with each LoRA
 * module folded in, W' = W + (alpha / r) · B · A, written as a Hugging Face folder (the base's config.json,
 * sharded safetensors with `model.safetensors.index.json`, bf16 or f32, generation config and tokenizer files copied
 * when the base has them). A tied output head that carries an adapter is untied (`lm_head.weight` written,
 * `tie_word_embeddings: false`), as the adapter changed the head and not the embedding (deliberate difference:
 * upstream folds such a delta into the shared embedding matrix, which changes the input embeddings too, so the merged
 * model would no longer compute what the LoRA model computed). Works shard by shard: the
 * memory held is one output shard.
 */
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type LoraPair, readLoraAdapter } from './adapter.js';
import { type BaseTensor, baseTensorOf, checkAdapterFitsBase, openBaseModelFolder } from './base-folder.js';
import { WeightsError } from './errors.js';
import { type OutputOptions, writeFolderAtomic } from './output-dir.js';
import type { ExportSummary } from './peft-export.js';
import { type SafetensorsDtype, SafetensorsFile, writeSafetensors } from './safetensors.js';

/** Files copied from the base folder when present (tokenizer, chat template, generation settings). */
export const COPIED_BASE_FILES = [
  'generation_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'tokenizer.model',
  'vocab.json',
  'merges.txt',
  'added_tokens.json',
  'chat_template.jinja',
] as const;

/** Default largest shard: 5 GB (the Hugging Face default for `save_pretrained`). */
export const DEFAULT_MAX_SHARD_BYTES = 5e9;

/** Options of {@link exportMergedModel}. */
export interface MergedExportOptions extends OutputOptions {
  adapterDir: string;
  /** The base model in HF layout: the one the adapter was trained on. */
  baseDir: string;
  outDir: string;
  /** Storage dtype (default bfloat16; the merge itself is computed in f32). */
  dtype?: 'bfloat16' | 'float32';
  /** Largest shard in bytes (default 5 GB). */
  maxShardBytes?: number;
}

/** W (out × in, row-major) += scale · B (out × r) · A (r × in). */
export function addLoraDelta(W: Float32Array, m: LoraPair, rank: number, scale: number): void {
  const I = m.inFeatures;
  for (let o = 0; o < m.outFeatures; o++) {
    const row = o * I;
    for (let k = 0; k < rank; k++) {
      const b = scale * m.B[o * rank + k]!;
      if (b === 0) continue;
      const a = k * I;
      for (let i = 0; i < I; i++) W[row + i]! += b * m.A[a + i]!;
    }
  }
}

interface OutTensor {
  name: string;
  source: BaseTensor;
  shape: number[];
  lora: LoraPair | undefined;
}

/** Writes a merged HF model folder from a downloaded Tinker checkpoint and its base model folder. */
export async function exportMergedModel(options: MergedExportOptions): Promise<ExportSummary> {
  const dtype = options.dtype ?? 'bfloat16';
  if (dtype !== 'bfloat16' && dtype !== 'float32') {
    throw new WeightsError(`dtype must be bfloat16 or float32, got ${JSON.stringify(dtype)}`);
  }
  const maxShard = options.maxShardBytes ?? DEFAULT_MAX_SHARD_BYTES;
  if (!(maxShard > 0)) throw new WeightsError(`max shard size must be > 0 bytes, got ${maxShard}`);
  const st: SafetensorsDtype = dtype === 'float32' ? 'F32' : 'BF16';
  const width = st === 'F32' ? 4 : 2;
  const adapter = readLoraAdapter(options.adapterDir);
  const base = openBaseModelFolder(options.baseDir);
  checkAdapterFitsBase(adapter, base);
  const byPath = new Map(adapter.modules.map((m) => [m.path, m]));
  const head = byPath.get('lm_head');
  const untie = base.tiedEmbeddings && head !== undefined && !base.byName.has('lm_head.weight');

  const out: OutTensor[] = [];
  for (const t of base.tensors) {
    const path = t.name.endsWith('.weight') ? t.name.slice(0, -'.weight'.length) : t.name;
    const lora = t.name === 'model.embed_tokens.weight' ? undefined : byPath.get(path);
    out.push({ name: t.name, source: t, shape: t.entry.shape, lora });
  }
  if (untie) {
    const embed = baseTensorOf(base, 'lm_head')!;
    out.push({ name: 'lm_head.weight', source: embed, shape: embed.entry.shape, lora: head });
  }
  const numel = (t: OutTensor) => t.shape.reduce((a, b) => a * b, 1);
  const shards: OutTensor[][] = [[]];
  let shardBytes = 0;
  for (const t of out) {
    const b = numel(t) * width;
    if (shardBytes > 0 && shardBytes + b > maxShard) {
      shards.push([]);
      shardBytes = 0;
    }
    shards.at(-1)!.push(t);
    shardBytes += b;
  }
  const total = out.reduce((s, t) => s + numel(t) * width, 0);
  const scale = adapter.alpha / adapter.rank;
  const files: string[] = [];
  await writeFolderAtomic(options.outDir, total, options, (tmp) => {
    const open = new Map<string, SafetensorsFile>();
    try {
      const weightMap: Record<string, string> = {};
      shards.forEach((shard, s) => {
        const file =
          shards.length === 1
            ? 'model.safetensors'
            : `model-${String(s + 1).padStart(5, '0')}-of-${String(shards.length).padStart(5, '0')}.safetensors`;
        const tensors = shard.map((t) => {
          let f = open.get(t.source.file);
          if (!f) {
            f = SafetensorsFile.open(join(base.dir, t.source.file));
            open.set(t.source.file, f);
          }
          const { data } = f.read(t.source.name);
          if (t.lora) addLoraDelta(data, t.lora, adapter.rank, scale);
          weightMap[t.name] = file;
          return { name: t.name, shape: t.shape, data, dtype: st };
        });
        writeSafetensors(join(tmp, file), tensors, { format: 'pt' });
        files.push(file);
      });
      if (shards.length > 1) {
        const index = { metadata: { total_size: total }, weight_map: weightMap };
        writeFileSync(join(tmp, 'model.safetensors.index.json'), `${JSON.stringify(index, null, 2)}\n`);
        files.push('model.safetensors.index.json');
      }
    } finally {
      for (const f of open.values()) f.close();
    }
    const config = { ...base.config, torch_dtype: dtype, ...(untie ? { tie_word_embeddings: false } : {}) };
    writeFileSync(join(tmp, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
    files.push('config.json');
    for (const name of COPIED_BASE_FILES) {
      const src = join(base.dir, name);
      if (existsSync(src)) {
        copyFileSync(src, join(tmp, name));
        files.push(name);
      }
    }
  });
  return { outDir: options.outDir, files, bytes: total };
}
