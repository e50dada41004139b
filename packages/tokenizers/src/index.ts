/** Tokenizers per model family: offline packages, local folders, the Hugging Face Hub, and a custom registry. */

export {
  downloadKimiTokenizer,
  isKimiModel,
  isTiktokenFolder,
  KIMI_NUM_SPECIAL_TOKENS,
  KIMI_PATTERN,
  KIMI_TOKENIZER_FILES,
  type KimiTokenizerFiles,
  kimiOfflineError,
  kimiTokenizerFromFiles,
  kimiTokenizerFromFolder,
} from './kimi-tokenizer.js';
export {
  MAX_TIKTOKEN_FILE_BYTES,
  parseTiktokenRanks,
  type TiktokenRanks,
  TiktokenTokenizer,
  type TiktokenTokenizerOptions,
} from './tiktoken-tokenizer.js';
export {
  type EncodeOptions,
  getTokenizer,
  HfTokenizer,
  type LoadTokenizerOptions,
  loadTokenizer,
  readTokenizerFiles,
  registerTokenizer,
  TOKENIZER_FAMILIES,
  type Tokenizer,
  type TokenizerFactory,
  type TokenizerFamily,
  type TokenizerFiles,
  tokenizerFamilyForModel,
  tokenizerFromFolder,
  unregisterTokenizer,
} from './tokenizer.js';
