/** The Hugging Face Hub client, an optional peer: only tokenizers downloaded from the Hub need it. */
import { loadOptionalPeer } from '@cookbook/core';

/** `@huggingface/hub`, or a ConfigError naming it and the offline alternative. */
export function loadHub(): Promise<typeof import('@huggingface/hub')> {
  return loadOptionalPeer(
    () => import('@huggingface/hub'),
    '@huggingface/hub',
    'to download a tokenizer from the Hugging Face Hub',
    'load the tokenizer from a local folder holding its files',
  );
}
