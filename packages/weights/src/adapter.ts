/**
 * Reading a LoRA adapter folder as the Tinker services save it (upstream tinker-cookbook `weights`: an
 * `adapter_config.json` with `r` and `lora_alpha`, and `adapter_model.safetensors` with keys
 * `base_model.model.<module>.lora_A.weight` / `.lora_B.weight`; the output head may be named
 * `model.unembed_tokens`). The embedded service adds `cookbook_lora.json` (base model, SHA-256 of the tensors),
 * which is checked when present.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { WeightsError } from './errors.js';
import { SafetensorsFile, sha256File } from './safetensors.js';

/** One adapted linear module: W (out × in) gets (alpha / r) · B · A. */
export interface LoraPair {
  /** HF module path, e.g. `model.layers.0.self_attn.q_proj` or `lm_head`. */
  path: string;
  /** A: r × in (row-major). */
  A: Float32Array;
  /** B: out × r (row-major). */
  B: Float32Array;
  inFeatures: number;
  outFeatures: number;
}

/** A LoRA adapter read from a folder. */
export interface LoraAdapterFolder {
  dir: string;
  rank: number;
  alpha: number;
  /** The base model the adapter says it was trained on, when it says so. */
  baseModel: string | undefined;
  modules: LoraPair[];
}

/** Largest adapter file read (8 GiB). */
const MAX_ADAPTER_BYTES = 8 * 1024 ** 3;

function readJsonObject(file: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new WeightsError(
      `${file} is corrupt: ${e instanceof SyntaxError ? 'it is not valid JSON' : ((e as NodeJS.ErrnoException).code ?? 'unreadable')}`,
      { cause: e },
    );
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new WeightsError(`${file}: not a JSON object`);
  return v as Record<string, unknown>;
}

const KEY = /^base_model\.model\.(.+)\.lora_([AB])\.weight$/;

/** The HF module path of an adapter key's module (`model.unembed_tokens` is the output head, `lm_head`). */
function modulePath(raw: string): string {
  return raw === 'model.unembed_tokens' ? 'lm_head' : raw;
}

/**
 * Reads and checks an adapter folder (a downloaded archive, or a checkpoint's `adapter/`).
 * @throws WeightsError naming the file: a missing or corrupt file, a bad `r` / `lora_alpha`, a tensor that is not a
 *   LoRA matrix, an A without its B, a shape that disagrees with the rank, a non-finite value, a checksum mismatch
 */
export function readLoraAdapter(dir: string): LoraAdapterFolder {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new WeightsError(
      `${dir} is not a folder; expected a downloaded checkpoint (adapter_config.json + adapter_model.safetensors)`,
    );
  }
  const cfgFile = join(dir, 'adapter_config.json');
  const stFile = join(dir, 'adapter_model.safetensors');
  for (const f of [cfgFile, stFile]) {
    if (!existsSync(f)) throw new WeightsError(`${dir} is not a LoRA checkpoint: ${f} is missing`);
  }
  const cfg = readJsonObject(cfgFile);
  const rank = cfg.r;
  const alpha = cfg.lora_alpha;
  if (typeof rank !== 'number' || !Number.isInteger(rank) || rank < 1 || rank > 65536) {
    throw new WeightsError(`${cfgFile}: "r" must be a positive integer, got ${JSON.stringify(rank)}`);
  }
  if (typeof alpha !== 'number' || !Number.isFinite(alpha) || alpha <= 0) {
    throw new WeightsError(`${cfgFile}: "lora_alpha" must be a positive number, got ${JSON.stringify(alpha)}`);
  }
  const oursFile = join(dir, 'cookbook_lora.json');
  const ours = existsSync(oursFile) ? readJsonObject(oursFile) : {};
  if (typeof ours.sha256 === 'string' && sha256File(stFile) !== ours.sha256) {
    throw new WeightsError(
      `${stFile} is corrupt: its SHA-256 does not match the one recorded in ${oursFile}; download the checkpoint again`,
    );
  }
  const size = statSync(stFile).size;
  if (size > MAX_ADAPTER_BYTES)
    throw new WeightsError(`${stFile} is ${size} bytes, over the limit of ${MAX_ADAPTER_BYTES}`);
  const baseModel =
    typeof ours.base_model === 'string'
      ? ours.base_model
      : typeof cfg.base_model_name_or_path === 'string'
        ? cfg.base_model_name_or_path
        : undefined;
  const f = SafetensorsFile.open(stFile);
  const halves = new Map<
    string,
    { A?: { shape: number[]; data: Float32Array }; B?: { shape: number[]; data: Float32Array } }
  >();
  try {
    for (const name of f.entries.keys()) {
      const m = KEY.exec(name);
      if (!m) {
        throw new WeightsError(
          `${stFile}: tensor "${name}" is not a LoRA matrix (base_model.model.<module>.lora_A.weight / .lora_B.weight); embedding and expert adapters are not supported`,
        );
      }
      const path = modulePath(m[1]!);
      const t = f.read(name);
      for (let i = 0; i < t.data.length; i++) {
        if (!Number.isFinite(t.data[i]!)) {
          throw new WeightsError(`${stFile} is corrupt: tensor ${name} holds a non-finite value at index ${i}`);
        }
      }
      const entry = halves.get(path) ?? {};
      entry[m[2] as 'A' | 'B'] = t;
      halves.set(path, entry);
    }
  } finally {
    f.close();
  }
  if (halves.size === 0) throw new WeightsError(`${stFile} holds no LoRA tensors`);
  const modules: LoraPair[] = [];
  for (const [path, { A, B }] of halves) {
    if (!A || !B)
      throw new WeightsError(`${stFile}: module ${path} has lora_${A ? 'A' : 'B'} but no lora_${A ? 'B' : 'A'}`);
    const [ra, inF] = A.shape;
    const [outF, rb] = B.shape;
    if (A.shape.length !== 2 || B.shape.length !== 2 || ra !== rank || rb !== rank) {
      throw new WeightsError(
        `${stFile}: module ${path} has lora_A [${A.shape}] and lora_B [${B.shape}], expected [${rank}, in] and [out, ${rank}] for r=${rank}`,
      );
    }
    modules.push({ path, A: A.data, B: B.data, inFeatures: inF!, outFeatures: outF! });
  }
  modules.sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
  return { dir, rank, alpha, baseModel, modules };
}
