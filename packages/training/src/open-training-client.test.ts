import { describe, expect, it } from 'vitest';
import { openTrainingClient } from './open-training-client.js';

function fakeService() {
  const calls: unknown[][] = [];
  return {
    calls,
    createLoraTrainingClient: async (args: unknown) => {
      calls.push(['lora', args]);
      return 'fresh';
    },
    createTrainingClientFromState: async (path: string, options?: unknown) => {
      calls.push(['state', path, options]);
      return `from ${path}`;
    },
  };
}

const base = { startStep: 0, log: () => {} };

describe('openTrainingClient', () => {
  it('resumes from the run checkpoint with the optimizer, before any given checkpoint', async () => {
    const service = fakeService();
    const run = { ...base, resumeFrom: { name: '000004', step: 4, state_path: 'tinker://r/weights/000004' } };
    const out = await openTrainingClient(run, service, {
      modelName: 'm',
      loraRank: 8,
      loadCheckpointPath: 'tinker://other/weights/x',
      userMetadata: { recipe_name: 'x' },
    });
    expect(out).toEqual({ client: 'from tinker://r/weights/000004', origin: 'resume' });
    expect(service.calls).toEqual([
      ['state', 'tinker://r/weights/000004', { optimizer: true, userMetadata: { recipe_name: 'x' } }],
    ]);
  });

  it('loads a given checkpoint with a fresh optimizer and says so', async () => {
    const service = fakeService();
    const lines: string[] = [];
    const out = await openTrainingClient({ ...base, resumeFrom: undefined, log: (l) => lines.push(l) }, service, {
      modelName: 'm',
      loraRank: 8,
      loadCheckpointPath: 'tinker://w/weights/init',
    });
    expect(out.origin).toBe('checkpoint');
    expect(service.calls).toEqual([['state', 'tinker://w/weights/init', { optimizer: false }]]);
    expect(lines.join('\n')).toMatch(/loading weights from tinker:\/\/w\/weights\/init \(fresh optimizer\)/);
  });

  it("continues a given checkpoint's optimizer when asked, and says so", async () => {
    const service = fakeService();
    const lines: string[] = [];
    await openTrainingClient({ ...base, resumeFrom: undefined, log: (l) => lines.push(l) }, service, {
      modelName: 'm',
      loraRank: 8,
      loadCheckpointPath: 'tinker://w/weights/warm',
      loadCheckpointOptimizer: true,
    });
    expect(service.calls).toEqual([['state', 'tinker://w/weights/warm', { optimizer: true }]]);
    expect(lines.join('\n')).toMatch(/tinker:\/\/w\/weights\/warm \(with its optimizer state\)/);
  });

  it('starts a new LoRA run on the base model, with the seed only when given', async () => {
    const service = fakeService();
    await openTrainingClient({ ...base, resumeFrom: undefined }, service, {
      modelName: 'm',
      loraRank: 8,
      loadCheckpointPath: null,
    });
    await openTrainingClient({ ...base, resumeFrom: undefined }, service, { modelName: 'm', loraRank: 4, seed: 3 });
    expect(service.calls).toEqual([
      ['lora', { baseModel: 'm', rank: 8 }],
      ['lora', { baseModel: 'm', rank: 4, seed: 3 }],
    ]);
  });
});
