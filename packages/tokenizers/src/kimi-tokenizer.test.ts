import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, DataError } from '@cookbook/core';
import { afterAll, describe, expect, it } from 'vitest';
import expected from './__fixtures__/kimi-tiktoken-expected.json' with { type: 'json' };
import { syntheticAddedTokens, syntheticTiktokenModel } from './__fixtures__/synthetic-tiktoken.js';
import { isKimiModel, KIMI_PATTERN, kimiTokenizerFromFiles } from './kimi-tokenizer.js';
import { parseTiktokenRanks, TiktokenTokenizer } from './tiktoken-tokenizer.js';
import { getTokenizer, loadTokenizer, tokenizerFromFolder } from './tokenizer.js';

const MODEL = syntheticTiktokenModel(300);
const BASE = parseTiktokenRanks(MODEL).size;
const CONFIG = {
  added_tokens_decoder: syntheticAddedTokens(BASE),
  bos_token: '[BOS]',
  eos_token: '[EOS]',
  chat_template: '{{ messages[0].content }}',
};
const tok = kimiTokenizerFromFiles({ tiktokenModel: MODEL, tokenizerConfig: CONFIG }, 'synthetic-kimi');

const dirs: string[] = [];
function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'kimi-tok-'));
  dirs.push(dir);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('Kimi tiktoken encoding', () => {
  it('equals the Python tiktoken library with Kimi’s pattern, id for id, and decodes back', () => {
    expect(BASE).toBe(556);
    for (const c of expected.cases) {
      expect(tok.encode(c.text), JSON.stringify(c.text)).toEqual(c.ids);
      expect(tok.decode(c.ids)).toBe(c.text);
    }
  });

  it('special-token strings are tokens, or text with splitSpecialTokens', () => {
    const imEnd = tok.convertTokenToId('<|im_end|>');
    expect(imEnd).toBe(BASE + 2);
    expect(tok.encode('a<|im_end|>b')).toContain(imEnd);
    const split = tok.encode('a<|im_end|>b', { splitSpecialTokens: true });
    expect(split).not.toContain(imEnd);
    expect(tok.decode(split)).toBe('a<|im_end|>b');
  });

  it('names 256 special tokens after the ranks: tokenizer_config names, the rest <|reserved_token_N|>', () => {
    expect(tok.controlTokens).toHaveLength(256);
    expect(tok.vocabSize).toBe(BASE + 256);
    expect(tok.convertTokenToId('<think>')).toBe(BASE + 8);
    expect(tok.convertIdToToken(BASE + 5)).toBe(`<|reserved_token_${BASE + 5}|>`);
    expect(tok.convertIdToToken(BASE + 255)).toBe(`<|reserved_token_${BASE + 255}|>`);
    expect([tok.bosTokenId, tok.eosTokenId]).toEqual([BASE, BASE + 1]);
  });

  it('token strings use the byte-level alphabet (a leading space is Ġ), both ways', () => {
    const [the] = tok.encode(' the');
    expect(tok.convertIdToToken(the!)).toBe('Ġthe');
    expect(tok.convertTokenToId('Ġthe')).toBe(the);
    expect(tok.convertTokenToId('not-a-token-at-all')).toBeUndefined();
  });

  it('merges a long piece quickly and cuts runs longer than 25,000 characters as upstream does', () => {
    const spaces = ' '.repeat(20_000);
    const t0 = performance.now();
    expect(tok.decode(tok.encode(`${spaces}x`))).toBe(`${spaces}x`);
    expect(performance.now() - t0).toBeLessThan(5_000);
    // 27,000 non-whitespace characters are encoded as 25,000 + 2,000: the cut splits a "the" that merges otherwise.
    const long = 'the'.repeat(9_000);
    const cut = [...tok.encode(long.slice(0, 25_000)), ...tok.encode(long.slice(25_000))];
    expect(tok.encode(long)).toEqual(cut);
    const uncut = new TiktokenTokenizer({
      name: 'uncut',
      ranks: parseTiktokenRanks(MODEL),
      specialTokens: new Map(),
      pattern: KIMI_PATTERN,
    });
    expect(uncut.encode(long)).not.toEqual(cut);
  });

  it('decoding an unknown id names the id and the vocabulary size', () => {
    expect(() => tok.decode([BASE + 999])).toThrow(DataError);
    expect(() => tok.decode([BASE + 999])).toThrow(/not in the vocabulary.*size 812/);
  });
});

describe('loading Kimi tokenizer files', () => {
  it('a folder with tiktoken.model (no tokenizer.json) loads as a Kimi tokenizer, chat_template.jinja included', () => {
    const dir = folder({
      'tiktoken.model': MODEL,
      'tokenizer_config.json': JSON.stringify(CONFIG),
      'chat_template.jinja': '{{ "from the jinja file" }}',
    });
    for (const t of [tokenizerFromFolder(dir), getTokenizer(dir)]) {
      expect(t.encode('Hello, world!')).toEqual(tok.encode('Hello, world!'));
      expect(t.chatTemplate).toBe('{{ "from the jinja file" }}');
      expect(t.eosToken).toBe('[EOS]');
    }
  });

  it('tokenizer_config.json is optional: every special token is then reserved', () => {
    const t = tokenizerFromFolder(folder({ 'tiktoken.model': MODEL }));
    expect(t.controlTokens[0]).toBe(`<|reserved_token_${BASE}|>`);
    expect(t.chatTemplate).toBeUndefined();
  });

  it('a malformed tiktoken.model line is refused with its file and line', () => {
    const dir = folder({ 'tiktoken.model': `${MODEL.split('\n').slice(0, 3).join('\n')}\nnot base64!! x\n` });
    expect(() => tokenizerFromFolder(dir)).toThrow(/tiktoken\.model:4: expected "<base64 token> <rank>"/);
    expect(() => parseTiktokenRanks('YQ== 0\nYQ== 1\n', 'f')).toThrow(/f:2: token or rank 1 appears twice/);
  });

  it('a vocabulary missing a byte is refused when that byte is encoded', () => {
    const t = kimiTokenizerFromFiles({ tiktokenModel: 'YQ== 0\nYg== 1\n', tokenizerConfig: {} }, 'tiny');
    expect(t.encode('abba')).toEqual([0, 1, 1, 0]);
    expect(() => t.encode('c')).toThrow(/must rank all 256 bytes/);
  });

  it('offline, a Kimi model name says which repo to download and how to point at the folder', async () => {
    expect(isKimiModel('moonshotai/Kimi-K2.5')).toBe(true);
    expect(isKimiModel('moonshotai/Kimi-K2-Thinking:peft:131072')).toBe(true);
    expect(isKimiModel('Qwen/Qwen3-8B')).toBe(false);
    const err = (() => {
      try {
        getTokenizer('moonshotai/Kimi-K2.6');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(/Kimi family, Hugging Face repo moonshotai\/Kimi-K2\.6/);
    expect((err as Error).message).toMatch(/tiktoken\.model, tokenizer_config\.json, chat_template\.jinja/);
    expect((err as Error).message).toMatch(/getTokenizer\("\/path\/to\/folder"\)/);
    await expect(loadTokenizer('moonshotai/Kimi-K2.5', { allowDownload: false })).rejects.toThrow(
      /Kimi family, Hugging Face repo moonshotai\/Kimi-K2\.5/,
    );
  });
});
