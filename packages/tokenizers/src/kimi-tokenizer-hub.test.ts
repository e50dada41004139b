/** loadTokenizer for Kimi repos, with the Hub download replaced by files the test writes (no network). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { syntheticAddedTokens, syntheticTiktokenModel } from './__fixtures__/synthetic-tiktoken.js';
import { parseTiktokenRanks } from './tiktoken-tokenizer.js';
import { loadTokenizer } from './tokenizer.js';

const dir = mkdtempSync(join(tmpdir(), 'kimi-hub-'));
const MODEL = syntheticTiktokenModel(300);
writeFileSync(join(dir, 'tiktoken.model'), MODEL);
writeFileSync(
  join(dir, 'tokenizer_config.json'),
  JSON.stringify({ added_tokens_decoder: syntheticAddedTokens(parseTiktokenRanks(MODEL).size), eos_token: '[EOS]' }),
);
writeFileSync(join(dir, 'chat_template.jinja'), '{{ "kimi" }}');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const requested: string[] = [];
vi.mock('@huggingface/hub', () => ({
  downloadFileToCacheDir: async (args: { repo: string; path: string; revision?: string }) => {
    requested.push(`${args.repo}@${args.revision ?? 'main'}:${args.path}`);
    if (args.repo === 'moonshotai/Kimi-K2-Missing') throw new Error('404 Not Found');
    return join(dir, args.path);
  },
}));

describe('loadTokenizer for Kimi repos', () => {
  it('downloads tiktoken.model, tokenizer_config.json and chat_template.jinja (not tokenizer.json)', async () => {
    const tok = await loadTokenizer('moonshotai/Kimi-K2.5', { allowDownload: true, revision: 'abc' });
    expect(requested).toEqual([
      'moonshotai/Kimi-K2.5@abc:tiktoken.model',
      'moonshotai/Kimi-K2.5@abc:tokenizer_config.json',
      'moonshotai/Kimi-K2.5@abc:chat_template.jinja',
    ]);
    expect(tok.decode(tok.encode('Hello<|im_end|>'))).toBe('Hello<|im_end|>');
    expect(tok.eosToken).toBe('[EOS]');
    expect(tok.chatTemplate).toBe('{{ "kimi" }}');
    expect(await loadTokenizer('moonshotai/Kimi-K2.5')).toBe(tok); // cached
  });

  it('a failed download says what failed and how to use a downloaded folder instead', async () => {
    await expect(loadTokenizer('moonshotai/Kimi-K2-Missing', { allowDownload: true })).rejects.toThrow(
      /downloading tiktoken\.model from moonshotai\/Kimi-K2-Missing failed \(404 Not Found\).*getTokenizer\("\/path\/to\/folder"\)/,
    );
  });
});
