/**
 * What a tokenizer is to its users ({@link Tokenizer}, its encode options) and the options of loading one by name
 * ({@link LoadTokenizerOptions}): the shapes every tokenizer (Hugging Face's, tiktoken's) and its loaders share.
 */

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

/** Options of `loadTokenizer` (and of the Kimi download it calls). */
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
