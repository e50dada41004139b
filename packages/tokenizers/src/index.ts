/** Tokenizers per model family: offline packages, local folders, the Hugging Face Hub, and a custom registry. */

export { HfTokenizer, type TokenizerFiles } from './hf-tokenizer.js';
export { KIMI_PATTERN, kimiTokenizerFromFiles } from './kimi-tokenizer.js';
export { TiktokenTokenizer, type TiktokenTokenizerOptions } from './tiktoken-tokenizer.js';
export {
  getTokenizer,
  loadTokenizer,
  registerTokenizer,
  tokenizerFamilyForModel,
  tokenizerFromFolder,
  unregisterTokenizer,
} from './tokenizer.js';
export type { EncodeOptions, LoadTokenizerOptions, Tokenizer } from './tokenizer-types.js';
