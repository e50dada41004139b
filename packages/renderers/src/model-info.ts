/**
 * Model → recommended renderers (upstream `model_info.py`, for the model families this package renders).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '@cookbook/core';

const RULES: { test: (name: string) => boolean; renderers: string[] }[] = [
  { test: (n) => n === 'local/qwen3-tiny', renderers: ['qwen3_disable_thinking', 'qwen3'] },
  { test: (n) => n === 'local/llama3-tiny', renderers: ['llama3'] },
  { test: (n) => /^meta-llama\/(Meta-)?Llama-3[.\d]*-.*Instruct/.test(n), renderers: ['llama3'] },
  { test: (n) => /^meta-llama\/(Meta-)?Llama-3/.test(n), renderers: ['role_colon'] },
  { test: (n) => /^Qwen\/Qwen3[.\d]*-.*-Base$/.test(n), renderers: ['role_colon'] },
  { test: (n) => /^Qwen\/Qwen3-.*Instruct-2507$/.test(n), renderers: ['qwen3_instruct'] },
  { test: (n) => /^Qwen\/Qwen3-\d+(\.\d+)?B(-A\d+B)?(-FP8)?$/.test(n), renderers: ['qwen3', 'qwen3_disable_thinking'] },
  { test: (n) => /^deepseek-ai\/DeepSeek-V3[.\d]*-Base$/.test(n), renderers: ['role_colon'] },
  { test: (n) => /^deepseek-ai\/DeepSeek-V3/.test(n), renderers: ['deepseekv3', 'deepseekv3_thinking'] },
  { test: (n) => /^openai\/gpt-oss-/.test(n), renderers: ['gpt_oss_no_sysprompt', 'gpt_oss_medium_reasoning'] },
];

/** A local folder's renderer, guessed from the chat template in its tokenizer_config.json. */
function folderFamilyRenderer(folder: string): string {
  let template = '';
  try {
    const cfg = JSON.parse(readFileSync(join(folder, 'tokenizer_config.json'), 'utf8')) as { chat_template?: unknown };
    if (typeof cfg.chat_template === 'string') template = cfg.chat_template;
  } catch {
    // no or unreadable tokenizer_config.json: a base-model format
  }
  if (template.includes('<|im_start|>')) return template.includes('<think>') ? 'qwen3' : 'qwen3_instruct';
  if (template.includes('<|start_header_id|>')) return 'llama3';
  if (template.includes('<｜Assistant｜>')) return 'deepseekv3';
  return 'role_colon';
}

/**
 * Recommended renderers of a model, best first. A `:suffix` (e.g. `:peft:131072`) is ignored. A local folder that
 * holds tokenizer.json gets the renderer its chat template points to (Qwen3, Llama 3, DeepSeek-V3), else
 * `role_colon` (a base-model format every tokenizer can render). Throws a ConfigError for an unknown model.
 */
export function getRecommendedRendererNames(modelName: string): string[] {
  const name = modelName.split(':')[0] ?? modelName;
  for (const r of RULES) if (r.test(name)) return [...r.renderers];
  if (existsSync(join(name, 'tokenizer.json'))) return [folderFamilyRenderer(name)];
  throw new ConfigError(
    `no recommended renderer for model "${modelName}". Known: meta-llama/Llama-3*, Qwen/Qwen3-* (incl. -Base and ` +
      '-Instruct-2507), deepseek-ai/DeepSeek-V3*, openai/gpt-oss-*, local/qwen3-tiny, local/llama3-tiny, or a local ' +
      'folder with tokenizer.json. Pass renderer_name explicitly for other models.',
    { key: 'model_name' },
  );
}

/** The recommended renderer of a model (the first of {@link getRecommendedRendererNames}). */
export function getRecommendedRendererName(modelName: string): string {
  return getRecommendedRendererNames(modelName)[0]!;
}
