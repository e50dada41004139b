/**
 * A base model in Hugging Face layout (`config.json` + `*.safetensors`, with `model.safetensors.index.json` when
 * sharded), read header-first: tensor names, shapes and dtypes are known before any weight is loaded, so an adapter
 * is checked against the base and the output size is known before anything is written.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { LoraAdapterFolder } from './adapter.js';
import { WeightsError } from './errors.js';
import { type SafetensorsEntry, SafetensorsFile } from './safetensors.js';

/** The model families whose exports are supported (`config.json` `model_type`). */
export const EXPORT_MODEL_TYPES = ['llama', 'qwen3'] as const;

/** One tensor of the base: where it lives and its header entry. */
export interface BaseTensor {
  name: string;
  file: string;
  entry: SafetensorsEntry;
}

/** An opened base folder. */
export interface BaseModelFolder {
  dir: string;
  config: Record<string, unknown>;
  modelType: (typeof EXPORT_MODEL_TYPES)[number];
  tiedEmbeddings: boolean;
  /** Every tensor, in file order (index order when sharded). */
  tensors: BaseTensor[];
  byName: Map<string, BaseTensor>;
}

function readJson(file: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch (e) {
    throw new WeightsError(
      `cannot read ${file}: ${e instanceof SyntaxError ? 'it is not valid JSON' : ((e as NodeJS.ErrnoException).code ?? 'unreadable')}`,
      { cause: e },
    );
  }
  throw new WeightsError(`${file}: not a JSON object`);
}

/**
 * Opens a base model folder and reads its tensor headers.
 * @throws WeightsError when the folder, its config.json or its safetensors are missing, or the family is not one of
 *   {@link EXPORT_MODEL_TYPES}
 */
export function openBaseModelFolder(dir: string): BaseModelFolder {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new WeightsError(`base model folder ${dir} does not exist`);
  const cfgFile = join(dir, 'config.json');
  if (!existsSync(cfgFile)) throw new WeightsError(`${dir} is not a Hugging Face model folder: it has no config.json`);
  const config = readJson(cfgFile);
  const modelType = config.model_type;
  if (!EXPORT_MODEL_TYPES.includes(modelType as (typeof EXPORT_MODEL_TYPES)[number])) {
    throw new WeightsError(
      `${cfgFile}: model_type ${JSON.stringify(modelType)} is not supported; exports support Llama 3 and Qwen3 dense models (model_type ${EXPORT_MODEL_TYPES.join(', ')})`,
    );
  }
  const files: string[] = [];
  const indexFile = join(dir, 'model.safetensors.index.json');
  const order: string[] = [];
  const where = new Map<string, string>();
  if (existsSync(indexFile)) {
    const map = readJson(indexFile).weight_map;
    if (typeof map !== 'object' || map === null) throw new WeightsError(`${indexFile}: no weight_map`);
    for (const [name, f] of Object.entries(map as Record<string, unknown>)) {
      if (typeof f !== 'string' || f.includes('/') || f.includes('\\'))
        throw new WeightsError(`${indexFile}: bad file for ${name}`);
      order.push(name);
      where.set(name, f);
      if (!files.includes(f)) files.push(f);
    }
  } else {
    files.push(
      ...readdirSync(dir)
        .filter((f) => f.endsWith('.safetensors'))
        .sort(),
    );
    if (files.length === 0) throw new WeightsError(`${dir} has no *.safetensors file`);
  }
  const tensors: BaseTensor[] = [];
  const byName = new Map<string, BaseTensor>();
  for (const file of files) {
    const f = SafetensorsFile.open(join(dir, file));
    try {
      for (const [name, entry] of f.entries) {
        if (where.size > 0 && where.get(name) !== file) continue;
        const t = { name, file, entry };
        byName.set(name, t);
        if (where.size === 0) tensors.push(t);
      }
    } finally {
      f.close();
    }
  }
  if (where.size > 0) {
    for (const name of order) {
      const t = byName.get(name);
      if (!t) throw new WeightsError(`${indexFile} names tensor ${name} in ${where.get(name)}, which does not hold it`);
      tensors.push(t);
    }
  }
  const tiedEmbeddings =
    config.tie_word_embeddings === true || (!byName.has('lm_head.weight') && byName.has('model.embed_tokens.weight'));
  return { dir, config, modelType: modelType as BaseModelFolder['modelType'], tiedEmbeddings, tensors, byName };
}

/** The base tensor an adapter module changes (the tied head's is the embedding's). */
export function baseTensorOf(base: BaseModelFolder, path: string): BaseTensor | undefined {
  const own = base.byName.get(`${path}.weight`);
  if (own !== undefined || path !== 'lm_head' || !base.tiedEmbeddings) return own;
  return base.byName.get('model.embed_tokens.weight');
}

/**
 * Checks that every adapter module has a base tensor of shape [out, in].
 * @throws WeightsError naming the module, both shapes and the adapter's recorded base model (the usual cause:
 *   the adapter was trained on another model)
 */
export function checkAdapterFitsBase(adapter: LoraAdapterFolder, base: BaseModelFolder): void {
  const trainedOn = adapter.baseModel === undefined ? '' : ` (the adapter was trained on "${adapter.baseModel}")`;
  for (const m of adapter.modules) {
    const t = baseTensorOf(base, m.path);
    if (t === undefined) {
      throw new WeightsError(
        `the adapter in ${adapter.dir} does not fit the base model ${base.dir}: it adapts ${m.path}, which the base model does not have${trainedOn}`,
      );
    }
    const [o, i] = t.entry.shape;
    if (t.entry.shape.length !== 2 || o !== m.outFeatures || i !== m.inFeatures) {
      throw new WeightsError(
        `the adapter in ${adapter.dir} does not fit the base model ${base.dir}: ${m.path} is [${t.entry.shape}] in the base but the adapter maps ${m.inFeatures} → ${m.outFeatures}${trainedOn}`,
      );
    }
  }
}
