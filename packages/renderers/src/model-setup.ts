/**
 * One model setup per run: the catalog entry, the tokenizer and the renderer of `model_name` + `renderer_name`,
 * resolved in one place (upstream repeats `renderer_name or get_recommended_renderer_name(model_name)` and
 * `get_tokenizer` in every recipe). Setups are cached per model, renderer and options, so the dataset builder, the
 * loop and the evaluators of one run share one tokenizer and one renderer.
 */
import { findModel, type ModelEntry } from '@cookbook/core';
import { getTokenizer, loadTokenizer, type Tokenizer } from '@cookbook/tokenizers';
import { resolveRendererName } from './model-info.js';
import { getRenderer, type RendererOptions } from './registry.js';
import type { Renderer } from './renderer.js';

/** What {@link resolveModelSetup} needs: the run config's model and renderer (the loops' field names). */
export interface ModelSetupConfig {
  /** Catalogued model name (a `:suffix` is ignored for lookups) or a local folder. */
  modelName: string;
  /** Renderer name; null/undefined: the model's recommended renderer. */
  rendererName?: string | null | undefined;
  /** Options passed to the renderer factory (an uncached setup when given). */
  rendererOptions?: RendererOptions | undefined;
  /** Where the "renderer not recommended" warning goes. Default: `console.warn`. */
  warn?: ((message: string) => void) | undefined;
}

/** A run's resolved model setup. */
export interface ModelSetup {
  modelName: string;
  /** The catalog's entry; undefined for a local folder or a model known only to a registered tokenizer. */
  model: ModelEntry | undefined;
  rendererName: string;
  tokenizer: Tokenizer;
  renderer: Renderer;
}

const setups = new Map<string, ModelSetup>();

function build(config: ModelSetupConfig, rendererName: string, tokenizer: Tokenizer): ModelSetup {
  // The model name lets a renderer that serves many models (chat_template) find the model's catalog row.
  const renderer = getRenderer(rendererName, tokenizer, { modelName: config.modelName, ...config.rendererOptions });
  return { modelName: config.modelName, model: findModel(config.modelName), rendererName, tokenizer, renderer };
}

/** The renderer name and the cache key (by the resolved name: `null` and the recommended name share a setup). */
function resolveName(config: ModelSetupConfig): { rendererName: string; key: string | undefined } {
  const rendererName = resolveRendererName(config.modelName, config.rendererName, config.warn);
  const key = config.rendererOptions === undefined ? `${config.modelName}\u0000${rendererName}` : undefined;
  return { rendererName, key };
}

/**
 * The tokenizer and renderer of a run, offline (packages, the Hub cache, a folder): `rendererName ??` the model's
 * recommended renderer, with a warning when the catalog does not recommend the one given. Cached per model and
 * renderer name.
 * @throws ConfigError for an unknown model or renderer, or a tokenizer that is not available offline (the message
 *   says what to install, download or register).
 */
export function resolveModelSetup(config: ModelSetupConfig): ModelSetup {
  const { rendererName, key } = resolveName(config);
  const hit = key === undefined ? undefined : setups.get(key);
  if (hit !== undefined) return hit;
  const setup = build(config, rendererName, getTokenizer(config.modelName));
  if (key !== undefined) setups.set(key, setup);
  return setup;
}

/**
 * Like {@link resolveModelSetup}, but a tokenizer that is only on the Hugging Face Hub is downloaded (into the Hub
 * cache) when it is not there yet; `HF_HUB_OFFLINE=1` forbids it.
 */
export async function loadModelSetup(config: ModelSetupConfig): Promise<ModelSetup> {
  const { rendererName, key } = resolveName(config);
  const hit = key === undefined ? undefined : setups.get(key);
  if (hit !== undefined) return hit;
  const setup = build(config, rendererName, await loadTokenizer(config.modelName));
  if (key !== undefined) setups.set(key, setup);
  return setup;
}
