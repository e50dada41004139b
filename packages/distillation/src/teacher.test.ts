import { ConfigError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { checkSameTokenizer, createTeacher } from './teacher.js';

describe('the teacher', () => {
  it('accepts a teacher of the same tokenizer family and refuses another family, naming both models', () => {
    expect(() => checkSameTokenizer('local/qwen3-tiny', 'Qwen/Qwen3-8B')).not.toThrow();
    expect(() => checkSameTokenizer('local/qwen3-tiny', 'local/llama3-tiny')).toThrow(ConfigError);
    expect(() => checkSameTokenizer('local/qwen3-tiny', 'local/llama3-tiny')).toThrow(
      /teacher local\/llama3-tiny and the student local\/qwen3-tiny must share one tokenizer \(tokenizer families llama3 and qwen3\)/,
    );
    expect(() => checkSameTokenizer('local/qwen3-tiny', 'nobody/unknown-model')).toThrow(/could not be loaded/);
  });

  it("takes a checkpoint's base model from the service and refuses one that contradicts teacher_model", async () => {
    const opened: unknown[] = [];
    const service = {
      createSamplingClient: async (args: { baseModel?: string; modelPath?: string }) => {
        opened.push(args);
        return { sample: async () => ({ sequences: [], promptCacheHitTokens: 0 }), computeLogprobs: async () => [] };
      },
      createRestClient: async () => ({ getWeightsInfo: async () => ({ base_model: 'local/llama3-tiny' }) }),
    };
    await expect(createTeacher(service, { checkpoint: 'tinker://run/weights/x' }, 'local/qwen3-tiny')).rejects.toThrow(
      /teacher local\/llama3-tiny and the student local\/qwen3-tiny must share one tokenizer/,
    );
    await expect(
      createTeacher(
        service,
        { checkpoint: 'tinker://run/weights/x', baseModel: 'local/qwen3-tiny' },
        'local/qwen3-tiny',
      ),
    ).rejects.toThrow(/was trained from local\/llama3-tiny, but teacher_model is local\/qwen3-tiny/);
    expect(opened).toEqual([]);
    const base = await createTeacher(service, {}, 'local/llama3-tiny');
    expect(base.baseModel).toBe('local/llama3-tiny');
    expect(opened).toEqual([{ baseModel: 'local/llama3-tiny' }]);
  });
});
