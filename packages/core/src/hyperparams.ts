/**
 * Hyperparameter heuristics (upstream `hyperparam_utils.py`): a LoRA learning rate from the model's hidden
 * size, and the parameter count of a LoRA adapter. Upstream reads shapes from the Hub; offline we keep a
 * table of architectures and accept an HF `config.json` object for anything else.
 */
import { ConfigError } from './errors.js';

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

function shape(
  hidden: number,
  inter: number,
  layers: number,
  heads: number,
  kv: number,
  vocab: number,
  tie: boolean,
  headDim?: number,
): ModelShape {
  const s: ModelShape = {
    hidden_size: hidden,
    intermediate_size: inter,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    num_key_value_heads: kv,
    vocab_size: vocab,
    tie_word_embeddings: tie,
  };
  if (headDim !== undefined) s.head_dim = headDim;
  return s;
}

/** Architectures of the dense models we know offline (from their public config.json files). */
export const KNOWN_MODEL_SHAPES: Readonly<Record<string, ModelShape>> = {
  'meta-llama/Llama-3.2-1B': shape(2048, 8192, 16, 32, 8, 128256, true, 64),
  'meta-llama/Llama-3.2-3B': shape(3072, 8192, 28, 24, 8, 128256, true, 128),
  'meta-llama/Llama-3.1-8B': shape(4096, 14336, 32, 32, 8, 128256, false, 128),
  'meta-llama/Llama-3.1-8B-Instruct': shape(4096, 14336, 32, 32, 8, 128256, false, 128),
  'meta-llama/Llama-3.1-70B': shape(8192, 28672, 80, 64, 8, 128256, false, 128),
  'meta-llama/Llama-3.3-70B-Instruct': shape(8192, 28672, 80, 64, 8, 128256, false, 128),
  'Qwen/Qwen3-0.6B': shape(1024, 3072, 28, 16, 8, 151936, true, 128),
  'Qwen/Qwen3-1.7B': shape(2048, 6144, 28, 16, 8, 151936, true, 128),
  'Qwen/Qwen3-4B': shape(2560, 9728, 36, 32, 8, 151936, true, 128),
  'Qwen/Qwen3-4B-Instruct-2507': shape(2560, 9728, 36, 32, 8, 151936, true, 128),
  'Qwen/Qwen3-8B': shape(4096, 12288, 36, 32, 8, 151936, false, 128),
  'Qwen/Qwen3-8B-Base': shape(4096, 12288, 36, 32, 8, 151936, false, 128),
  'Qwen/Qwen3-32B': shape(5120, 25600, 64, 64, 8, 151936, false, 128),
  'HuggingFaceTB/SmolLM2-135M': shape(576, 1536, 30, 9, 3, 49152, true, 64),
  'local/qwen3-tiny': shape(64, 192, 2, 4, 2, 151936, true, 16),
  'local/llama3-tiny': shape(64, 192, 2, 4, 2, 128256, false, 16),
};

/** Hidden sizes used by {@link getLr} for models whose full shape we do not list. */
const HIDDEN_SIZES: Readonly<Record<string, number>> = {
  'Qwen/Qwen3-30B-A3B': 2048,
  'Qwen/Qwen3-30B-A3B-Base': 2048,
  'Qwen/Qwen3-30B-A3B-Instruct-2507': 2048,
  'Qwen/Qwen3-235B-A22B-Instruct-2507': 4096,
  'Qwen/Qwen3.5-27B': 5120,
};

const UNSUPPORTED_LR = [/deepseek-v3/i, /gpt-oss/i, /kimi-k2/i, /nemotron-3/i, /inkling/i];

/** Factor between a LoRA learning rate and the equivalent full fine-tuning one. */
export function getLoraLrOverFullFinetuneLr(): number {
  return 10;
}

/**
 * Recommended learning rate: 5e-5 × (10 for LoRA) × (2000 / hidden_size)^e, with e = 0.781 for Llama
 * models and 0.0775 for Qwen models (the upstream formula). `shape` overrides the built-in tables.
 * @throws ConfigError for an unknown model or family; the message lists the known names.
 */
export function getLr(
  modelName: string,
  options: { isLora?: boolean; shape?: Pick<ModelShape, 'hidden_size'> } = {},
): number {
  const isLora = options.isLora ?? true;
  if (UNSUPPORTED_LR.some((re) => re.test(modelName))) {
    throw new ConfigError(`no learning-rate heuristic for ${modelName}; set learning_rate explicitly`);
  }
  const hidden = options.shape?.hidden_size ?? KNOWN_MODEL_SHAPES[modelName]?.hidden_size ?? HIDDEN_SIZES[modelName];
  const lower = modelName.toLowerCase();
  const exponent = lower.includes('llama') ? 0.781 : lower.includes('qwen') ? 0.0775 : undefined;
  if (hidden === undefined || exponent === undefined) {
    const known = [...Object.keys(KNOWN_MODEL_SHAPES), ...Object.keys(HIDDEN_SIZES)].sort();
    throw new ConfigError(
      `no learning-rate heuristic for "${modelName}" (Llama and Qwen families with a known hidden size only). ` +
        `Known: ${known.join(', ')}. Set learning_rate explicitly or pass the model's hidden_size.`,
    );
  }
  const lr = 5e-5 * (2000 / hidden) ** exponent;
  return isLora ? lr * getLoraLrOverFullFinetuneLr() : lr;
}

/** Which parts of the model a LoRA adapter trains (Tinker's LoraConfig flags). */
export interface LoraTargets {
  rank?: number;
  trainAttn?: boolean;
  trainMlp?: boolean;
  trainUnembed?: boolean;
}

/**
 * Number of parameters of a LoRA adapter: rank × Σ (in + out) over every adapted weight matrix
 * (q, k, v, o; gate, up, down; and the output head when `trainUnembed`). Embeddings are never adapted.
 */
export function getLoraParamCount(model: string | ModelShape, targets: LoraTargets = {}): number {
  const s = typeof model === 'string' ? KNOWN_MODEL_SHAPES[model] : model;
  if (s === undefined) {
    throw new ConfigError(
      `unknown model "${String(model)}" for getLoraParamCount; pass its config.json object instead. ` +
        `Known: ${Object.keys(KNOWN_MODEL_SHAPES).join(', ')}`,
    );
  }
  const rank = targets.rank ?? 32;
  const hd = s.head_dim ?? s.hidden_size / s.num_attention_heads;
  const h = s.hidden_size;
  const qDim = s.num_attention_heads * hd;
  const kvDim = s.num_key_value_heads * hd;
  let perLayer = 0;
  if (targets.trainAttn ?? true) perLayer += h + qDim + 2 * (h + kvDim) + (qDim + h);
  if (targets.trainMlp ?? true) perLayer += 3 * (h + s.intermediate_size);
  let dimSum = perLayer * s.num_hidden_layers;
  if (targets.trainUnembed ?? true) dimSum += h + s.vocab_size;
  return rank * dimSum;
}

/**
 * The learning rate a loop uses: `learningRate` when given; `tinyModelLr` for the built-in `local/*` models (the
 * heuristic knows only real shapes); otherwise upstream's `get_lr` heuristic divided by `heuristicDivisor` (1 for
 * SFT, 10 for RL, as upstream's recipes do).
 * @throws ConfigError naming `learning_rate` for a model the heuristic does not know.
 */
export function resolveLearningRate(
  modelName: string,
  learningRate: number | null,
  defaults: { tinyModelLr: number; heuristicDivisor: number },
): number {
  if (learningRate !== null) return learningRate;
  if (modelName.startsWith('local/')) return defaults.tinyModelLr;
  try {
    return getLr(modelName) / defaults.heuristicDivisor;
  } catch (error) {
    throw new ConfigError(
      `no default learning rate for ${modelName} (${error instanceof Error ? error.message : String(error)}); pass learning_rate=...`,
      { key: 'learning_rate' },
    );
  }
}
