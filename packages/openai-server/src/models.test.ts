import { NotFoundError } from '@cookbook/tinker-client';
import { describe, expect, it } from 'vitest';
import { ModelResolver, type OpenAIBackend } from './models.js';

function backend(
  options: { checkpoints?: string[]; failFirst?: boolean } = {},
): OpenAIBackend & { created: unknown[] } {
  const created: unknown[] = [];
  return {
    created,
    async createSamplingClient(args) {
      created.push(args);
      const n = created.length;
      return {
        async sample() {
          if (options.failFirst && n === 1) throw new NotFoundError('unknown sampling_session_id s1', { status: 404 });
          return { sequences: [], promptCacheHitTokens: 0 };
        },
      };
    },
    async createRestClient() {
      return {
        getWeightsInfo: async (path: string) => {
          if (path.includes('missing')) throw new NotFoundError(`checkpoint ${path} not found`, { status: 404 });
          return { base_model: 'local/qwen3-tiny' };
        },
        listUserCheckpoints: async () => ({
          checkpoints: (options.checkpoints ?? []).map((p) => ({
            checkpoint_id: p.slice(p.indexOf('/sampler_weights/') + 1),
            checkpoint_type: 'sampler' as const,
            time: '2026-01-01T00:00:00Z',
            tinker_path: p,
            public: false,
          })),
        }),
      };
    },
    getServerCapabilities: async () => ({ supportedModels: [] }),
  };
}

describe('ModelResolver', () => {
  it('a checkpoint name resolves to its tinker path; two runs with that name are refused, naming both', async () => {
    const b = backend({ checkpoints: ['tinker://r1/sampler_weights/final', 'tinker://r2/sampler_weights/best'] });
    const m = await new ModelResolver(async () => b).resolve('best');
    expect(m.modelPath).toBe('tinker://r2/sampler_weights/best');
    expect(m.baseModel).toBe('local/qwen3-tiny');
    expect(b.created).toEqual([{ modelPath: 'tinker://r2/sampler_weights/best' }]);
    const two = backend({ checkpoints: ['tinker://r1/sampler_weights/final', 'tinker://r2/sampler_weights/final'] });
    await expect(new ModelResolver(async () => two).resolve('final')).rejects.toMatchObject({
      status: 400,
      code: 'model_ambiguous',
      message: expect.stringContaining('tinker://r1/sampler_weights/final, tinker://r2/sampler_weights/final'),
    });
  });

  it('an unknown checkpoint path or base model is a 404 model_not_found naming it', async () => {
    const r = new ModelResolver(async () => backend());
    await expect(r.resolve('tinker://missing/sampler_weights/x')).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
      message: expect.stringContaining('tinker://missing/sampler_weights/x'),
    });
    await expect(r.resolve('nobody/no-model')).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
  });

  it('a sampler the service lost is opened again once, and the resolved model is cached otherwise', async () => {
    const b = backend({ failFirst: true });
    const r = new ModelResolver(async () => b);
    const out = await r.withModel('local/qwen3-tiny', async (m) => m.sampler.sample({} as never));
    expect(out).toEqual({ sequences: [], promptCacheHitTokens: 0 });
    expect(b.created).toHaveLength(2);
    await r.withModel('local/qwen3-tiny', async (m) => m.sampler.sample({} as never));
    expect(b.created).toHaveLength(2);
  });
});
