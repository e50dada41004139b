import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';

describe('worker threads', () => {
  it('trains and samples inside a worker (context-aware addon, no main-thread globals)', async () => {
    const src = new URL('./index.ts', import.meta.url).href;
    // `randomModel` is not on the package's face: the worker takes it from its module.
    const baseModel = new URL('./model/base-model.ts', import.meta.url).href;
    const code = `
      const { parentPort } = require('node:worker_threads');
      import('tsx/esm/api').then((t) => { t.register(); return Promise.all([import(${JSON.stringify(src)}), import(${JSON.stringify(baseModel)})]); }).then(async ([e, b]) => {
        const base = b.randomModel({ arch: 'llama', vocabSize: 50, hiddenSize: 16, intermediateSize: 24, numLayers: 1,
          numHeads: 2, numKvHeads: 1, headDim: 8, rmsNormEps: 1e-5, ropeTheta: 1e4, ropeScaling: null,
          tieWordEmbeddings: false, maxPositionEmbeddings: 64, bosTokenId: null, eosTokenIds: [0] }, 1);
        const m = e.createLoraModel(base, { rank: 2 });
        const r = m.forwardBackward([{ tokens: [1, 2, 3], lossFnInputs: { target_tokens: { data: [2, 3, 4], dtype: 'int64' } } }], 'cross_entropy');
        m.optimStep({ learningRate: 1e-3, beta1: 0.9, beta2: 0.95, eps: 1e-12, weightDecay: 0, gradClipNorm: 0 });
        const s = m.sampler().sample([1, 2], { numSamples: 2, maxTokens: 3, seed: 1, stop: [] });
        parentPort.postMessage({ loss: r.metrics['loss:sum'], n: s.sequences.length, kernel: e.kernelInfo().kernel });
      }, (err) => parentPort.postMessage({ error: String(err) }));`;
    const w = new Worker(code, { eval: true });
    const msg = await new Promise<Record<string, unknown>>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    await w.terminate();
    expect(msg.error).toBeUndefined();
    expect(msg.n).toBe(2);
    expect(Number(msg.loss)).toBeGreaterThan(0);
  }, 60_000);
});
