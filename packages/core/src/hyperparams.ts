/**
 * Hyperparameter heuristics (upstream `hyperparam_utils.py`): a LoRA learning rate from the model's hidden
 * size, and the parameter count of a LoRA adapter. Upstream reads shapes from the Hub; offline the model catalog
 * (`model-catalog.ts`) holds each model's learning-rate rule and dimensions, and an HF `config.json` object serves
 * for anything else.
 */
import { ConfigError } from './errors.js';
import { baseModelName, describeKnownModels, findModel, listModels, type ModelShape } from './model-catalog.js';

export type { ModelShape };

/**
 * LoRA-sizing dimensions of the catalogued models that list them (a view of the model catalog, which owns them).
 */
export const KNOWN_MODEL_SHAPES: Readonly<Record<string, ModelShape>> = Object.freeze(
  Object.fromEntries(listModels().flatMap((e) => (e.shape === undefined ? [] : [[e.name, e.shape]]))),
);

/** Factor between a LoRA learning rate and the equivalent full fine-tuning one. */
export function getLoraLrOverFullFinetuneLr(): number {
  return 10;
}

/**
 * Recommended learning rate: 5e-5 × (10 for LoRA) × (2000 / hidden_size)^e, with the catalog's per-family exponent
 * (upstream `get_lr`: 0.781 for Llama, 0.0775 for Qwen). `shape` overrides the catalog's hidden size.
 * @throws ConfigError for a model whose rule is not calibrated, or one the catalog does not know.
 */
export function getLr(
  modelName: string,
  options: { isLora?: boolean; shape?: Pick<ModelShape, 'hidden_size'> } = {},
): number {
  const isLora = options.isLora ?? true;
  const entry = findModel(modelName);
  if (entry === undefined) {
    throw new ConfigError(
      `no learning-rate heuristic for "${modelName}": not in the model catalog. Known: ${describeKnownModels()}. ` +
        'Set learning_rate explicitly.',
    );
  }
  if (entry.lr.kind === 'uncalibrated') {
    throw new ConfigError(
      `no learning-rate heuristic for ${baseModelName(modelName)}: the rule is not calibrated for the ` +
        `${entry.family} family; set learning_rate explicitly`,
    );
  }
  const hidden = options.shape?.hidden_size ?? entry.lr.hiddenSize;
  const lr = 5e-5 * (2000 / hidden) ** entry.lr.exponent;
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
  const s = typeof model === 'string' ? findModel(model)?.shape : model;
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
