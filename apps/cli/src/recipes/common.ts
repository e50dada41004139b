/**
 * Pieces shared by every training recipe, supervised and RL: the default model, the config fields about the model,
 * the run folder and the service, the service connection (hosted, configured, or the embedded fallback) and the
 * learning-rate default.
 */
import { ConfigError, getLr } from '@cookbook/core';
import { LOG_DIR_BEHAVIORS } from '@cookbook/logging';
import { ServiceClient } from '@cookbook/tinker-client';
import { z } from 'zod';

/** Default model: the built-in tiny Qwen3 of the embedded service (runs offline in seconds per step). */
export const DEFAULT_MODEL = 'local/qwen3-tiny';

/** The chat-format field every training recipe adds to its library schema. */
export const rendererNameField = z
  .string()
  .nullable()
  .default(null)
  .describe("Chat format; null = the model's recommended renderer");

/** Config fields about the trained model that follow `model_name` (snake_case, as on upstream's command lines). */
export const modelFields = {
  renderer_name: z.string().nullable().default(null).describe("Chat format; null = the model's recommended renderer"),
  lora_rank: z.number().int().positive().default(32).describe('LoRA rank'),
};

/** Config fields about the run folder, the server and W&B, listed last by every training recipe. */
export const runFields = {
  behavior_if_log_dir_exists: z
    .enum(LOG_DIR_BEHAVIORS)
    .default('ask')
    .describe('When log_path exists: ask (terminal only), delete, resume from its last checkpoint, or raise'),
  base_url: z
    .string()
    .nullable()
    .default(null)
    .describe(
      'Tinker-compatible server; null = TINKER_BASE_URL, the hosted service with TINKER_API_KEY, else embedded',
    ),
  wandb_project: z.string().nullable().default(null).describe('Weights & Biases project (needs WANDB_API_KEY)'),
  wandb_name: z.string().nullable().default(null).describe('Weights & Biases run name'),
};

/**
 * The learning rate to use: `learningRate` when given, `tinyModelLr` for the built-in `local/*` models, else
 * upstream's `hyperparam_utils.get_lr` heuristic divided by `heuristicDivisor`. Throws a ConfigError naming `learning_rate`
 * for a model the heuristic does not know.
 */
export function resolveLearningRateWith(
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

/**
 * A ServiceClient for `base_url` or the environment. Without a configured server the embedded local service is
 * loaded here (the CLI depends on it), so the recipes run offline.
 */
export async function connectService(baseUrl: string | null): Promise<ServiceClient> {
  if (baseUrl === null && !process.env.TINKER_BASE_URL && !process.env.TINKER_API_KEY) {
    await import('@cookbook/local-tinker');
  }
  return new ServiceClient(baseUrl === null ? {} : { baseURL: baseUrl });
}
