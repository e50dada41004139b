/**
 * Kimi's tokenizer (Moonshot AI's `tokenization_kimi.py`, shared by Kimi-K2, K2-Thinking, K2.5 and K2.6): tiktoken
 * ranks from `tiktoken.model`, a Han-aware pre-tokenizer pattern, and 256 special tokens right after the ranks —
 * named by `added_tokens_decoder` in tokenizer_config.json, the rest `<|reserved_token_{id}|>`. No npm package ships
 * these files, so they load from a local folder, or from the Hugging Face Hub when online.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, DataError, resolveModelRef } from '@cookbook/core';
import { configTokenString } from './internal/config-token.js';
import { loadHub } from './internal/hub.js';
import { MAX_TIKTOKEN_FILE_BYTES, parseTiktokenRanks, TiktokenTokenizer } from './tiktoken-tokenizer.js';
import type { LoadTokenizerOptions, Tokenizer } from './tokenizer-types.js';

/**
 * Kimi's pre-tokenizer pattern in JavaScript syntax. The upstream pattern (Python `regex` / Rust) writes class
 * intersections (`[\p{Lu}…&&[^\p{Han}]]`) and `(?i:'s|…)`; here they are a negative lookahead per character and the
 * case variants spelled out (`ſ` is `s` under Unicode case folding). `\s` is `\p{White_Space}`, as in Rust (JavaScript's
 * `\s` adds U+FEFF and drops U+0085).
 */
export const KIMI_PATTERN = (() => {
  const notHan = '(?!\\p{Script=Han})';
  const upper = `(?:${notHan}[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}])`;
  const lower = `(?:${notHan}[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}])`;
  const contraction = "(?:'[sSſ]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?";
  const ws = '\\p{White_Space}';
  return new RegExp(
    [
      '\\p{Script=Han}+',
      `[^\\r\\n\\p{L}\\p{N}]?${upper}*${lower}+${contraction}`,
      `[^\\r\\n\\p{L}\\p{N}]?${upper}+${lower}*${contraction}`,
      '\\p{N}{1,3}',
      ` ?[^${ws}\\p{L}\\p{N}]+[\\r\\n]*`,
      `${ws}*[\\r\\n]+`,
      `${ws}+(?!\\P{White_Space})`,
      `${ws}+`,
    ].join('|'),
    'gu',
  );
})();

/** Number of special-token ids after the ranks. */
export const KIMI_NUM_SPECIAL_TOKENS = 256;

/** Runs longer than this many whitespace / non-whitespace code points are encoded separately (as upstream). */
const KIMI_MAX_CONSECUTIVE_RUN = 25_000;

/** Files a Kimi tokenizer folder holds. */
export const KIMI_TOKENIZER_FILES = ['tiktoken.model', 'tokenizer_config.json', 'chat_template.jinja'] as const;

/** The contents of a Kimi tokenizer folder. */
export interface KimiTokenizerFiles {
  /** Text of tiktoken.model. */
  tiktokenModel: string;
  /** Parsed tokenizer_config.json ({} when absent). */
  tokenizerConfig: Record<string, unknown>;
  /** Text of chat_template.jinja, when the folder has one (it wins over tokenizer_config's `chat_template`). */
  chatTemplate?: string | undefined;
}

/** A Kimi tokenizer from its files' contents. `source` names them in errors. */
export function kimiTokenizerFromFiles(files: KimiTokenizerFiles, name: string, source = name): TiktokenTokenizer {
  const ranks = parseTiktokenRanks(files.tiktokenModel, join(source, 'tiktoken.model'));
  const base = ranks.size;
  const named = new Map<number, string>();
  const decoder = files.tokenizerConfig.added_tokens_decoder;
  if (decoder !== undefined && (decoder === null || typeof decoder !== 'object')) {
    throw new DataError(`${join(source, 'tokenizer_config.json')}: added_tokens_decoder must be an object`, {
      file: join(source, 'tokenizer_config.json'),
      field: 'added_tokens_decoder',
    });
  }
  for (const [key, value] of Object.entries((decoder ?? {}) as Record<string, unknown>)) {
    const id = Number(key);
    const content = configTokenString(value);
    if (!Number.isSafeInteger(id) || content === undefined) {
      throw new DataError(`${join(source, 'tokenizer_config.json')}: added_tokens_decoder["${key}"] is malformed`, {
        file: join(source, 'tokenizer_config.json'),
        field: `added_tokens_decoder.${key}`,
      });
    }
    named.set(id, content);
  }
  const specials = new Map<string, number>();
  for (let id = base; id < base + KIMI_NUM_SPECIAL_TOKENS; id++) {
    specials.set(named.get(id) ?? `<|reserved_token_${id}|>`, id);
  }
  const cfg = files.tokenizerConfig;
  const template = files.chatTemplate ?? (typeof cfg.chat_template === 'string' ? cfg.chat_template : undefined);
  return new TiktokenTokenizer({
    name,
    ranks,
    specialTokens: specials,
    pattern: KIMI_PATTERN,
    maxConsecutiveRun: KIMI_MAX_CONSECUTIVE_RUN,
    bosToken: configTokenString(cfg.bos_token),
    eosToken: configTokenString(cfg.eos_token),
    chatTemplate: template,
  });
}

function readBounded(path: string): string {
  const size = statSync(path).size;
  if (size > MAX_TIKTOKEN_FILE_BYTES) {
    throw new DataError(`${path} is ${size} bytes; at most ${MAX_TIKTOKEN_FILE_BYTES} are accepted`, { file: path });
  }
  return readFileSync(path, 'utf8');
}

function readJson(path: string): Record<string, unknown> {
  try {
    return JSON.parse(readBounded(path)) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof DataError) throw e;
    throw new DataError(`${path} is not valid JSON: ${(e as Error).message}`, { file: path, cause: e });
  }
}

/** Whether `folder` holds a tiktoken-format tokenizer (tiktoken.model) rather than a tokenizer.json. */
export function isTiktokenFolder(folder: string): boolean {
  return existsSync(join(folder, 'tiktoken.model')) && !existsSync(join(folder, 'tokenizer.json'));
}

/** A Kimi tokenizer from a folder holding tiktoken.model [+ tokenizer_config.json] [+ chat_template.jinja]. */
export function kimiTokenizerFromFolder(folder: string, name: string = folder): TiktokenTokenizer {
  const model = join(folder, 'tiktoken.model');
  if (!existsSync(model)) {
    throw new ConfigError(
      `no tiktoken.model in ${folder}: a Kimi tokenizer folder needs ${KIMI_TOKENIZER_FILES.join(', ')}`,
    );
  }
  const cfgPath = join(folder, 'tokenizer_config.json');
  const tplPath = join(folder, 'chat_template.jinja');
  return kimiTokenizerFromFiles(
    {
      tiktokenModel: readBounded(model),
      tokenizerConfig: existsSync(cfgPath) ? readJson(cfgPath) : {},
      chatTemplate: existsSync(tplPath) ? readBounded(tplPath) : undefined,
    },
    name,
    folder,
  );
}

/** Whether a model name is a Kimi K2-line repository on the Hub (`moonshotai/Kimi-K2*`, any `:suffix` ignored). */
export function isKimiModel(modelName: string): boolean {
  return resolveModelRef(modelName).family === 'kimi_k2';
}

/** The offline error for a Kimi model: no package ships its tokenizer, so it needs the Hub or a downloaded folder. */
export function kimiOfflineError(modelName: string): ConfigError {
  const repo = modelName.split(':')[0] ?? modelName;
  return new ConfigError(
    `the tokenizer of "${modelName}" (Kimi family, Hugging Face repo ${repo}) ships as tiktoken.model, which no npm ` +
      `package carries, so it is not available offline. Online, load it with loadTokenizer("${repo}") (or unset ` +
      `HF_HUB_OFFLINE); offline, download ${KIMI_TOKENIZER_FILES.join(', ')} from ${repo} into a folder and pass that ` +
      'folder as the tokenizer (getTokenizer("/path/to/folder")) or as model_name.',
    { key: 'model_name' },
  );
}

/** Download a Kimi tokenizer's files from the Hub into the Hub cache and build it. */
export async function downloadKimiTokenizer(modelName: string, options: LoadTokenizerOptions = {}): Promise<Tokenizer> {
  const repo = modelName.split(':')[0] ?? modelName;
  const { downloadFileToCacheDir } = await loadHub();
  const accessToken = options.accessToken ?? process.env.HF_TOKEN;
  const common = {
    repo,
    ...(options.revision === undefined ? {} : { revision: options.revision }),
    ...(options.cacheDir === undefined ? {} : { cacheDir: options.cacheDir }),
    ...(accessToken === undefined ? {} : { accessToken }),
  };
  let modelPath: string;
  try {
    modelPath = await downloadFileToCacheDir({ ...common, path: 'tiktoken.model' });
  } catch (e) {
    const err = kimiOfflineError(modelName);
    throw new ConfigError(`downloading tiktoken.model from ${repo} failed (${(e as Error).message}); ${err.message}`, {
      key: 'model_name',
      cause: e,
    });
  }
  const optional = async (path: string): Promise<string | undefined> => {
    try {
      return await downloadFileToCacheDir({ ...common, path });
    } catch {
      return undefined; // tokenizer_config.json and chat_template.jinja are optional
    }
  };
  const cfgPath = await optional('tokenizer_config.json');
  const tplPath = await optional('chat_template.jinja');
  return kimiTokenizerFromFiles(
    {
      tiktokenModel: readBounded(modelPath),
      tokenizerConfig: cfgPath === undefined ? {} : readJson(cfgPath),
      chatTemplate: tplPath === undefined ? undefined : readBounded(tplPath),
    },
    modelName,
    repo,
  );
}
