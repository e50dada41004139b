import { describe, expect, it } from 'vitest';
import { ModelLoadError } from '../errors.js';
import { parseHfConfig } from './config.js';

const base = {
  architectures: ['LlamaForCausalLM'],
  model_type: 'llama',
  vocab_size: 128,
  hidden_size: 64,
  intermediate_size: 96,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
};
const llama3 = { factor: 32, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 };
const parsedLlama3 = { factor: 32, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 };

describe('parseHfConfig RoPE fields', () => {
  it('reads the older layout: top-level rope_theta and rope_scaling', () => {
    const c = parseHfConfig({ ...base, rope_theta: 500000, rope_scaling: { rope_type: 'llama3', ...llama3 } });
    expect(c.ropeTheta).toBe(500000);
    expect(c.ropeScaling).toEqual(parsedLlama3);
  });

  it('reads the transformers 5 layout: one rope_parameters object', () => {
    const c = parseHfConfig({ ...base, rope_parameters: { rope_type: 'llama3', rope_theta: 500000, ...llama3 } });
    expect(c.ropeTheta).toBe(500000);
    expect(c.ropeScaling).toEqual(parsedLlama3);
    const d = parseHfConfig({ ...base, rope_parameters: { rope_type: 'default', rope_theta: 1000000 } });
    expect(d.ropeTheta).toBe(1000000);
    expect(d.ropeScaling).toBeNull();
  });

  it('names the file and field of a rope_parameters it cannot read', () => {
    expect(() => parseHfConfig({ ...base, rope_parameters: { rope_theta: 1 } }, 'x/config.json')).toThrow(
      new ModelLoadError('x/config.json: rope_parameters must be an object with a "rope_type" field'),
    );
    expect(() => parseHfConfig({ ...base, rope_parameters: { rope_type: 'yarn', rope_theta: 1 } })).toThrow(
      /rope_parameters type "yarn" is not supported/,
    );
  });
});
