import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatDatasetCommonConfig } from '../chat-dataset.js';

/** A fresh temporary folder. */
export function tempDir(prefix = 'sft-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** `n` short arithmetic conversations, as JSONL lines. */
export function arithmeticLines(n: number): string[] {
  return Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      messages: [
        { role: 'user', content: `What is ${i} + ${i + 1}?` },
        { role: 'assistant', content: `${2 * i + 1}` },
      ],
    }),
  );
}

/** Writes lines to `dir/name` and returns its path. */
export function writeLines(dir: string, name: string, lines: readonly string[]): string {
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

export const common = (batchSize: number): ChatDatasetCommonConfig => ({
  modelNameForTokenizer: 'local/qwen3-tiny',
  batchSize,
  maxLength: 64,
});
