/**
 * Where a base model's weights come from: a local folder the user names (offline), or a Hugging Face Hub repo id,
 * downloaded into the Hub cache (online; `HF_HUB_OFFLINE=1` or `allowDownload: false` forbid it with a message saying
 * how to point at a folder instead).
 */
import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { isHubRepoId } from '@cookbook/core';
import { WeightsError } from './errors.js';

/** Options of {@link resolveBaseModelDir}. */
export interface HubBaseOptions {
  /** Allow downloading from the Hub (default: true unless `HF_HUB_OFFLINE=1`). */
  allowDownload?: boolean;
  /** Hub cache folder (default: `@huggingface/hub`'s). */
  cacheDir?: string;
  /** Git revision of the repo (default `main`). */
  revision?: string;
}

const OPTIONAL = [
  'generation_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'special_tokens_map.json',
  'chat_template.jinja',
];

/** A local folder as is, or a Hub repo's config, weights and tokenizer files downloaded into the cache. */
export async function resolveBaseModelDir(nameOrDir: string, options: HubBaseOptions = {}): Promise<string> {
  if (existsSync(nameOrDir) && statSync(nameOrDir).isDirectory()) return nameOrDir;
  if (!isHubRepoId(nameOrDir)) {
    throw new WeightsError(
      `base model "${nameOrDir}" is neither a folder nor a Hugging Face repo id (org/name); name the folder holding its config.json and *.safetensors`,
    );
  }
  const allow = options.allowDownload ?? process.env.HF_HUB_OFFLINE !== '1';
  if (!allow) {
    throw new WeightsError(
      `base model "${nameOrDir}" is not a local folder and downloads are off (offline): download it once with network access, or name a folder holding its config.json and *.safetensors (base=/path/to/folder)`,
    );
  }
  const { downloadFileToCacheDir, fileExists } = await import('@huggingface/hub');
  const common = {
    repo: { type: 'model' as const, name: nameOrDir },
    ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
    ...(options.revision === undefined ? {} : { revision: options.revision }),
  };
  const get = (path: string) => downloadFileToCacheDir({ ...common, path });
  let configPath: string;
  try {
    configPath = await get('config.json');
  } catch (e) {
    throw new WeightsError(
      `cannot download base model "${nameOrDir}" from the Hugging Face Hub (${(e as Error).message}); check the name and your network, or name a local folder (base=/path/to/folder)`,
      { cause: e },
    );
  }
  const has = (path: string) => fileExists({ ...common, path });
  if (await has('model.safetensors.index.json')) {
    const indexPath = await get('model.safetensors.index.json');
    const { readFileSync } = await import('node:fs');
    const index = JSON.parse(readFileSync(indexPath, 'utf8')) as { weight_map?: Record<string, string> };
    for (const f of new Set(Object.values(index.weight_map ?? {}))) await get(f);
  } else {
    await get('model.safetensors');
  }
  for (const f of OPTIONAL) if (await has(f)) await get(f);
  return dirname(configPath);
}
