import { describe, expect, it } from 'vitest';
import { getLr, KNOWN_MODEL_SHAPES } from './hyperparams.js';
import { DEFAULT_MODEL_NAME, findModel, getModel, listLocalModels, listModels } from './model-catalog.js';
import { resolveLearningRate } from './model-ref.js';

/**
 * Hidden sizes of upstream `get_lr` (tinker-cookbook `tinker_cookbook/hyperparam_utils.py`, `_KNOWN_HIDDEN_SIZES`)
 * for the Llama and Qwen models, the families its formula is calibrated for.
 */
const UPSTREAM_HIDDEN_SIZES: Record<string, number> = {
  'meta-llama/Llama-3.2-1B': 2048,
  'meta-llama/Llama-3.2-3B': 3072,
  'meta-llama/Llama-3.1-8B': 4096,
  'meta-llama/Llama-3.1-8B-Instruct': 4096,
  'meta-llama/Llama-3.1-70B': 8192,
  'meta-llama/Llama-3.3-70B-Instruct': 8192,
  'Qwen/Qwen3-235B-A22B-Instruct-2507': 4096,
  'Qwen/Qwen3-30B-A3B-Instruct-2507': 2048,
  'Qwen/Qwen3-30B-A3B': 2048,
  'Qwen/Qwen3-30B-A3B-Base': 2048,
  'Qwen/Qwen3-32B': 5120,
  'Qwen/Qwen3-8B': 4096,
  'Qwen/Qwen3-8B-Base': 4096,
  'Qwen/Qwen3-4B-Instruct-2507': 2560,
  'Qwen/Qwen3-VL-235B-A22B-Instruct': 4096,
  'Qwen/Qwen3-VL-30B-A3B-Instruct': 2048,
  'Qwen/Qwen3.5-397B-A17B': 4096,
  'Qwen/Qwen3.5-35B-A3B': 2048,
  'Qwen/Qwen3.5-35B-A3B-Base': 2048,
  'Qwen/Qwen3.5-27B': 5120,
  'Qwen/Qwen3.5-9B': 4096,
  'Qwen/Qwen3.5-9B-Base': 4096,
  'Qwen/Qwen3.5-4B': 2560,
  'Qwen/Qwen3.6-27B': 5120,
  'Qwen/Qwen3.6-35B-A3B': 2048,
  'Qwen/Qwen3.8-27B': 5120,
};

describe('the learning-rate rule', () => {
  it.each(Object.entries(UPSTREAM_HIDDEN_SIZES))('%s: 5e-5 × 10 × (2000 / %i)^e', (model, hidden) => {
    const exponent = model.startsWith('meta-llama/') ? 0.781 : 0.0775;
    expect(getLr(model)).toBeCloseTo(5e-4 * (2000 / hidden) ** exponent, 12);
    expect(getLr(model, { isLora: false })).toBeCloseTo(5e-5 * (2000 / hidden) ** exponent, 12);
  });

  it('is not calibrated for DeepSeek, gpt-oss, Kimi, Nemotron and Inkling (as upstream)', () => {
    for (const m of [
      'deepseek-ai/DeepSeek-V3.1',
      'openai/gpt-oss-120b',
      'moonshotai/Kimi-K2.6',
      'nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16',
      'thinkingmachines/Inkling',
    ]) {
      expect(() => getLr(m)).toThrow(/not calibrated for the .* family; set learning_rate explicitly/);
    }
  });

  it('the local models: their own loop default, else the formula on their tiny hidden size', () => {
    expect(resolveLearningRate('local/qwen3-tiny', null, 'supervised')).toBe(1e-2);
    expect(resolveLearningRate('local/qwen3-tiny', null, 'rl')).toBe(1e-3);
    expect(getLr('local/qwen3-tiny')).toBeCloseTo(5e-4 * (2000 / 64) ** 0.0775, 12);
    expect(() => resolveLearningRate('moonshotai/Kimi-K2.6', null, 'supervised')).toThrow(/pass learning_rate=/);
  });
});

describe('the catalog', () => {
  it('looks names up exactly, ignoring a :suffix', () => {
    expect(findModel('Qwen/Qwen3.5-397B-A17B:peft:262144')?.name).toBe('Qwen/Qwen3.5-397B-A17B');
    expect(findModel('Qwen/Qwen3.5-397B')).toBeUndefined();
    expect(findModel('thinkingmachines/Inkling-Large')?.recommendedRenderers).toEqual(['tml_v0']);
    expect(() => getModel('acme/x')).toThrow(/unknown model "acme\/x": not in the model catalog\. Known: Llama 3 \(/);
  });

  it('names a tokenizer for every model: an offline package, or the Hub repo it comes from', () => {
    for (const m of listModels()) {
      if (m.family === 'inkling') expect(m.tokenizer.kind).toBe('none');
      else expect(m.tokenizer).toMatchObject({ hubRepo: expect.stringMatching(/^[\w.-]+\/[\w.-]+$/) });
    }
    expect(getModel('deepseek-ai/DeepSeek-V3.1').tokenizer).toMatchObject({ kind: 'offline', name: 'deepseek_v3_1' });
    expect(getModel('moonshotai/Kimi-K2.6').tokenizer).toMatchObject({ kind: 'hub', revision: /^[0-9a-f]{40}$/ });
    expect(getModel('Qwen/Qwen3.5-9B').tokenizer).toEqual({ kind: 'hub', hubRepo: 'Qwen/Qwen3.5-9B' });
  });

  it('the default model is a built-in of the embedded engine', () => {
    expect(listLocalModels().map((m) => m.name)).toEqual(['local/qwen3-tiny', 'local/llama3-tiny']);
    expect(getModel(DEFAULT_MODEL_NAME).local?.layersFile).toBe('qwen3-tiny.layers.safetensors');
  });

  it('the local shapes agree with their engine config', () => {
    for (const m of listLocalModels()) {
      const c = m.local.config;
      expect(m.shape).toMatchObject({
        hidden_size: c.hidden_size,
        intermediate_size: c.intermediate_size,
        num_hidden_layers: c.num_hidden_layers,
        vocab_size: c.vocab_size,
        tie_word_embeddings: c.tie_word_embeddings,
      });
      expect(m.contextLength).toBe(c.max_position_embeddings);
      expect(KNOWN_MODEL_SHAPES[m.name]).toBe(m.shape);
    }
  });
});
