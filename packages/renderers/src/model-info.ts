/**
 * Model → recommended renderers (upstream `model_info.py`'s `get_recommended_renderer_names` and
 * `warn_if_renderer_not_recommended`), read from the model catalog (`@cookbook/core`), which owns the table. A local
 * folder, which the catalog cannot know, gets the renderer its chat template points to.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CHAT_TEMPLATE_RENDERER_NAME,
  ConfigError,
  describeKnownModels,
  findModel,
  resolveModelRef,
} from '@cookbook/core';

/**
 * A local folder's renderer, guessed from its chat template (chat_template.jinja, else tokenizer_config.json's):
 * a hand-written family it matches, else `chat_template` (the template itself), else `role_colon` (no template).
 */
function folderFamilyRenderer(folder: string): string {
  let template = '';
  try {
    const cfg = JSON.parse(readFileSync(join(folder, 'tokenizer_config.json'), 'utf8')) as { chat_template?: unknown };
    if (typeof cfg.chat_template === 'string') template = cfg.chat_template;
  } catch {
    // no or unreadable tokenizer_config.json
  }
  const file = join(folder, 'chat_template.jinja');
  if (existsSync(file)) template = readFileSync(file, 'utf8');
  if (template.includes('<|im_start|>')) return template.includes('<think>') ? 'qwen3' : 'qwen3_instruct';
  if (template.includes('<|start_header_id|>')) return 'llama3';
  if (template.includes('<｜Assistant｜>')) return 'deepseekv3';
  return template.trim() === '' ? 'role_colon' : CHAT_TEMPLATE_RENDERER_NAME;
}

/**
 * Recommended renderers of a model, best first, from the model catalog; `chat_template` (the model's own template)
 * for a catalogued model with none. A `:suffix` (e.g. `:peft:131072`) is ignored. A local folder that holds
 * tokenizer.json gets the renderer its chat template points to (Qwen3, Llama 3, DeepSeek-V3), else `chat_template`
 * when it has a template, else `role_colon` (a base-model format every tokenizer can render). Throws a ConfigError
 * naming the families the catalog knows for an unknown model.
 */
export function getRecommendedRendererNames(modelName: string): string[] {
  const ref = resolveModelRef(modelName);
  if (ref.recommendedRenderers !== undefined) return [...ref.recommendedRenderers];
  if (existsSync(join(ref.baseName, 'tokenizer.json'))) return [folderFamilyRenderer(ref.baseName)];
  throw new ConfigError(
    `no recommended renderer for model "${modelName}": it is not in the model catalog. Known: ` +
      `${describeKnownModels()}; or a local folder with tokenizer.json. Pass renderer_name explicitly for other models ` +
      `(${CHAT_TEMPLATE_RENDERER_NAME} renders with the model's own chat template).`,
    { key: 'model_name' },
  );
}

/** The recommended renderer of a model (the first of {@link getRecommendedRendererNames}). */
export function getRecommendedRendererName(modelName: string): string {
  return getRecommendedRendererNames(modelName)[0]!;
}

const warned = new Set<string>();

/**
 * The warning (or undefined) for rendering `modelName` with `rendererName`: a catalogued model whose recommended
 * renderers do not include it (`chat_template`, the model's own template, warns only for a base model). Unknown
 * models and folders have nothing to check against.
 */
export function rendererNotRecommendedWarning(modelName: string, rendererName: string): string | undefined {
  const entry = findModel(modelName);
  const recommended = entry?.recommendedRenderers;
  if (recommended === undefined || recommended.includes(rendererName)) return undefined;
  // A chat model's own template suits it by definition; a base model was not trained on it.
  if (rendererName === CHAT_TEMPLATE_RENDERER_NAME && entry?.base !== true) return undefined;
  return (
    `renderer "${rendererName}" is not recommended for model "${modelName}"; recommended: ` +
    `${recommended.join(', ')}. An unsuited renderer can silently degrade training (e.g. prefilling tokens the model ` +
    'was never trained on).'
  );
}

/**
 * `rendererName` when given (warning once per model and renderer through `warn` when the catalog does not recommend
 * it for the model), else the model's recommended renderer.
 */
export function resolveRendererName(
  modelName: string,
  rendererName: string | null | undefined,
  warn: (message: string) => void = (m) => console.warn(`warning: ${m}`),
): string {
  if (rendererName === null || rendererName === undefined) return getRecommendedRendererName(modelName);
  const message = rendererNotRecommendedWarning(modelName, rendererName);
  const key = `${modelName}\u0000${rendererName}`;
  if (message !== undefined && !warned.has(key)) {
    warned.add(key);
    warn(message);
  }
  return rendererName;
}
