/** Tokenizers per model family: offline packages, local folders, the Hugging Face Hub, and a custom registry. */

export { KIMI_PATTERN, kimiTokenizerFromFiles } from './kimi-tokenizer.js';
export { TiktokenTokenizer, type TiktokenTokenizerOptions } from './tiktoken-tokenizer.js';
export {
  type EncodeOptions,
  getTokenizer,
  HfTokenizer,
  type LoadTokenizerOptions,
  loadTokenizer,
  registerTokenizer,
  type Tokenizer,
  type TokenizerFiles,
  tokenizerFamilyForModel,
  tokenizerFromFolder,
  unregisterTokenizer,
} from './tokenizer.js';
