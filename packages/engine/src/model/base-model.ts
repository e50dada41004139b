// Base models: built-in tiny models with real tokenizers and seeded weights, HF checkpoint loading and writing.
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findModel, listLocalModels, OFFLINE_TOKENIZERS } from '@cookbook/core';
import { type SafetensorsDtype, SafetensorsFile, writeSafetensors } from '@cookbook/weights';
import { ModelLoadError } from '../errors.js';
import { writeDirAtomic } from '../fs-atomic.js';
import { RopeTable } from '../layers/rope.js';
import { type ModelConfig, parseHfConfig, ropeInvFreq, toHfConfig } from './config.js';
import { tokenizerEosIds } from './token-decoder.js';
import { allocWeights, hfTensors, type ModelWeights, type NamedTensor, randomWeights } from './weights.js';

/** A frozen base model: config, f32 weights and (optionally) the folder holding its tokenizer files. */
export class BaseModel {
  /** Model architecture family. */
  readonly arch: 'llama' | 'qwen3';
  readonly vocabSize: number;
  /** Longest sequence (prompt + completion, or datum length) accepted. */
  readonly maxContextLength: number;
  /** @internal RoPE cos/sin table shared by training and sampling. */
  readonly rope: RopeTable;

  constructor(
    /** Registered name or the folder it was loaded from. */
    readonly name: string,
    readonly config: ModelConfig,
    /** @internal */
    readonly weights: ModelWeights,
    /** Token ids that end generation by default. */
    readonly eosTokenIds: number[],
    /** Folder with tokenizer.json / tokenizer_config.json, or null if the model has none. */
    readonly tokenizerDir: string | null,
  ) {
    this.arch = config.arch;
    this.vocabSize = config.vocabSize;
    this.maxContextLength = config.maxPositionEmbeddings;
    this.rope = new RopeTable(ropeInvFreq(config), config.headDim / 2);
  }
}

/**
 * The built-in models come from the model catalog (`@cookbook/core`), which owns their config.json, seed, layers file
 * and tokenizer package; the engine parses the config like a checkpoint folder's.
 */
function builtinSpec(
  name: string,
): { config: ModelConfig; seed: number; tokenizerPackage: string | null; layers?: string } | undefined {
  const entry = findModel(name);
  if (entry?.local === undefined || entry.name !== name) return undefined;
  const tokenizer = entry.tokenizer.kind === 'offline' ? OFFLINE_TOKENIZERS[entry.tokenizer.name].package : null;
  return {
    config: parseHfConfig({ ...entry.local.config }, `${name} (model catalog)`),
    seed: entry.local.seed,
    tokenizerPackage: tokenizer,
    ...(entry.local.layersFile === undefined ? {} : { layers: entry.local.layersFile }),
  };
}

/** Names and context lengths of the built-in models (`local/qwen3-tiny`, `local/llama3-tiny`). */
export function listBuiltinModels(): { name: string; maxContextLength: number }[] {
  return listLocalModels().map((e) => ({
    name: e.name,
    maxContextLength: builtinSpec(e.name)!.config.maxPositionEmbeddings,
  }));
}

function tokenizerDirOf(pkg: string | null): string | null {
  if (pkg === null) return null;
  try {
    return dirname(createRequire(import.meta.url).resolve(`${pkg}/models/tokenizer.json`));
  } catch {
    return null;
  }
}

/** Builds a model from a config with seeded random weights (for tests and benchmarks); no tokenizer. */
export function randomModel(config: ModelConfig, seed = 0, name = 'random', tokenizerDir: string | null = null) {
  return new BaseModel(name, config, randomWeights(config, seed), config.eosTokenIds.slice(), tokenizerDir);
}

function readJson(file: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ModelLoadError('not a JSON object');
    return v as Record<string, unknown>;
  } catch (e) {
    // Never the parser's message: it quotes the file's text (a service must not echo a file's contents).
    const why =
      e instanceof SyntaxError
        ? 'it is not valid JSON'
        : e instanceof ModelLoadError
          ? e.message
          : ((e as NodeJS.ErrnoException).code ?? 'unreadable');
    throw new ModelLoadError(`cannot read ${file}: ${why}`, { cause: e });
  }
}

function eosFrom(v: unknown): number[] {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v)) return v.filter((x): x is number => typeof x === 'number');
  return [];
}

/** The file of a built-in's pretrained layers (in the engine package's `weights/` folder), or null. */
export function builtinLayersFile(name: string): string | null {
  const file = builtinSpec(name)?.layers;
  return file === undefined ? null : fileURLToPath(new URL(`../../weights/${file}`, import.meta.url));
}

/** Copies tensor `t.name` of `f` into `t` (a view of a model's weights); a ModelLoadError names a size mismatch. */
function readTensorInto(f: SafetensorsFile, t: NamedTensor): void {
  const got = f.read(t.name);
  if (got.data.length !== t.data.length) {
    throw new ModelLoadError(`${f.path}: tensor ${t.name} has shape [${got.shape}], expected [${t.shape}]`);
  }
  t.data.set(got.data);
}

/**
 * Overwrites every tensor of `model` that `file` holds (by HF name, same shape), and the embedding rows it holds
 * (`cookbook.embed_rows.ids` / `.weight`, as FullModel.saveLayers writes them); the others are left alone.
 */
function loadTensorsInto(model: BaseModel, file: string): void {
  if (!existsSync(file)) throw new ModelLoadError(`${model.name}: its pretrained layers file ${file} is missing`);
  const f = SafetensorsFile.open(file);
  try {
    if (f.entries.has('cookbook.embed_rows.ids')) {
      const ids = f.read('cookbook.embed_rows.ids').data;
      const rows = f.read('cookbook.embed_rows.weight').data;
      const C = model.config.hiddenSize;
      if (rows.length !== ids.length * C) throw new ModelLoadError(`${file}: embedding rows do not match their ids`);
      ids.forEach((id, i) => {
        if (!Number.isInteger(id) || id < 0 || id >= model.vocabSize) {
          throw new ModelLoadError(`${file}: embedding row id ${id} is outside the vocabulary (${model.vocabSize})`);
        }
        model.weights.embed.set(rows.subarray(i * C, i * C + C), id * C);
      });
    }
    for (const t of hfTensors(model.config, model.weights)) {
      if (!f.entries.has(t.name)) continue;
      readTensorInto(f, t);
    }
  } finally {
    f.close();
  }
}

/**
 * Loads a built-in model by name, or an HF checkpoint folder (config.json + *.safetensors [+ index]).
 * `init: true` gives a built-in's seeded random init, without its pretrained layers (for the pretraining script).
 */
export async function loadBaseModel(nameOrPath: string, opts: { init?: boolean } = {}): Promise<BaseModel> {
  const builtin = builtinSpec(nameOrPath);
  if (builtin) {
    const model = randomModel(builtin.config, builtin.seed, nameOrPath, tokenizerDirOf(builtin.tokenizerPackage));
    const layers = builtinLayersFile(nameOrPath);
    if (layers !== null && opts.init !== true) loadTensorsInto(model, layers);
    return model;
  }
  if (!existsSync(nameOrPath) || !statSync(nameOrPath).isDirectory()) {
    const names = listLocalModels()
      .map((e) => e.name)
      .join(', ');
    throw new ModelLoadError(`unknown model "${nameOrPath}": not a built-in (${names}) and not a checkpoint folder`);
  }
  const dir = nameOrPath;
  const cfgFile = join(dir, 'config.json');
  if (!existsSync(cfgFile)) throw new ModelLoadError(`${dir} has no config.json`);
  const config = parseHfConfig(readJson(cfgFile), cfgFile);
  const weights = allocWeights(config);

  // Map tensor name → file, from the shard index if there is one.
  const indexFile = join(dir, 'model.safetensors.index.json');
  const files = new Map<string, SafetensorsFile>();
  const where = new Map<string, SafetensorsFile>();
  const open = (f: string): SafetensorsFile => {
    let h = files.get(f);
    if (!h) {
      h = SafetensorsFile.open(join(dir, f));
      files.set(f, h);
    }
    return h;
  };
  try {
    if (existsSync(indexFile)) {
      const map = readJson(indexFile).weight_map;
      if (typeof map !== 'object' || map === null) throw new ModelLoadError(`${indexFile}: no weight_map`);
      for (const [name, f] of Object.entries(map as Record<string, unknown>)) where.set(name, open(String(f)));
    } else {
      const shards = readdirSync(dir).filter((f) => f.endsWith('.safetensors'));
      if (shards.length === 0) throw new ModelLoadError(`${dir} has no *.safetensors file`);
      for (const f of shards) for (const name of open(f).entries.keys()) where.set(name, open(f));
    }
    for (const t of hfTensors(config, weights)) {
      const f = where.get(t.name);
      if (!f) {
        if (t.name.endsWith('_norm.weight') || t.name.endsWith('layernorm.weight')) continue;
        throw new ModelLoadError(`${dir}: tensor ${t.name} is missing from the checkpoint`);
      }
      readTensorInto(f, t);
    }
  } finally {
    for (const f of files.values()) f.close();
  }

  const eos = new Set(config.eosTokenIds);
  const gen = join(dir, 'generation_config.json');
  if (existsSync(gen)) for (const id of eosFrom(readJson(gen).eos_token_id)) eos.add(id);
  const hasTok = existsSync(join(dir, 'tokenizer.json'));
  if (hasTok) for (const id of tokenizerEosIds(dir)) eos.add(id);
  return new BaseModel(dir, config, weights, [...eos], hasTok ? dir : null);
}

/** Options for {@link saveHfCheckpoint}. */
export interface SaveHfOptions {
  /** Storage dtype of the weights (default `float32`). */
  dtype?: 'float32' | 'bfloat16' | 'float16';
  /** Split into shards of at most this many bytes with a `model.safetensors.index.json` (default: one file). */
  maxShardBytes?: number;
}

const DTYPES: Record<string, SafetensorsDtype> = { float32: 'F32', bfloat16: 'BF16', float16: 'F16' };

/**
 * Writes `model` as an HF checkpoint folder (config.json, generation_config.json, safetensors, tokenizer files),
 * atomically. `weights` overrides the model's own weights (used for merged LoRA exports).
 */
export async function saveHfCheckpoint(
  model: BaseModel,
  dir: string,
  opts: SaveHfOptions = {},
  weights: ModelWeights = model.weights,
): Promise<void> {
  const dtype = opts.dtype ?? 'float32';
  const st = DTYPES[dtype];
  if (!st) throw new ModelLoadError(`unsupported checkpoint dtype "${dtype}" (float32, bfloat16, float16)`);
  const width = st === 'F32' ? 4 : 2;
  await writeDirAtomic(dir, (tmp) => {
    writeFileSync(join(tmp, 'config.json'), `${JSON.stringify(toHfConfig(model.config, dtype), null, 2)}\n`);
    const genCfg = { bos_token_id: model.config.bosTokenId, eos_token_id: model.eosTokenIds };
    writeFileSync(join(tmp, 'generation_config.json'), `${JSON.stringify(genCfg, null, 2)}\n`);
    const tensors = hfTensors(model.config, weights).map((t) => ({ ...t, dtype: st }));
    const maxBytes = opts.maxShardBytes ?? Number.POSITIVE_INFINITY;
    const shards: (typeof tensors)[] = [[]];
    let bytes = 0;
    for (const t of tensors) {
      const b = t.data.length * width;
      if (bytes > 0 && bytes + b > maxBytes) {
        shards.push([]);
        bytes = 0;
      }
      shards[shards.length - 1]!.push(t);
      bytes += b;
    }
    if (shards.length === 1) {
      writeSafetensors(join(tmp, 'model.safetensors'), tensors, { format: 'pt' });
    } else {
      const weightMap: Record<string, string> = {};
      let total = 0;
      shards.forEach((s, i) => {
        const f = `model-${String(i + 1).padStart(5, '0')}-of-${String(shards.length).padStart(5, '0')}.safetensors`;
        writeSafetensors(join(tmp, f), s, { format: 'pt' });
        for (const t of s) {
          weightMap[t.name] = f;
          total += t.data.length * width;
        }
      });
      const index = { metadata: { total_size: total }, weight_map: weightMap };
      writeFileSync(join(tmp, 'model.safetensors.index.json'), `${JSON.stringify(index, null, 2)}\n`);
    }
    if (model.tokenizerDir) {
      for (const f of ['tokenizer.json', 'tokenizer_config.json']) {
        const src = join(model.tokenizerDir, f);
        if (existsSync(src)) copyFileSync(src, join(tmp, f));
      }
    }
  });
}
