/**
 * Hugging Face tokenizers: tokenizer.json [+ tokenizer_config.json] [+ chat_template.jinja] read from a folder, and
 * the {@link Tokenizer} built on them with `@huggingface/tokenizers` (its control tokens matched only when asked).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, DataError } from '@cookbook/core';
import { configTokenString } from './internal/config-token.js';
import { type HfTokenizerInstance, hfTokenizerClass } from './internal/hf-tokenizer-class.js';
import type { EncodeOptions, Tokenizer } from './tokenizer-types.js';

/** Parsed Hugging Face tokenizer files. */
export interface TokenizerFiles {
  /** Contents of tokenizer.json. */
  tokenizerJson: Record<string, unknown>;
  /** Contents of tokenizer_config.json ({} when absent). */
  tokenizerConfig: Record<string, unknown>;
}

/** An entry of tokenizer.json's `added_tokens`. */
export interface AddedTokenJson {
  id: number;
  content: string;
  special?: boolean;
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
    this.bosToken = configTokenString(cfg.bos_token);
    this.eosToken = configTokenString(cfg.eos_token);
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
  // Newer checkpoints ship the template as chat_template.jinja; like transformers, it wins over the config's.
  const templatePath = join(folder, 'chat_template.jinja');
  if (existsSync(templatePath)) {
    const size = statSync(templatePath).size;
    if (size > MAX_CHAT_TEMPLATE_BYTES) {
      throw new DataError(`${templatePath} is ${size} bytes; at most ${MAX_CHAT_TEMPLATE_BYTES} are accepted`, {
        file: templatePath,
      });
    }
    tokenizerConfig.chat_template = readFileSync(templatePath, 'utf8');
  }
  return { tokenizerJson, tokenizerConfig };
}

/** The largest chat_template.jinja read (official templates are a few kB to a few tens of kB). */
const MAX_CHAT_TEMPLATE_BYTES = 1_000_000;
