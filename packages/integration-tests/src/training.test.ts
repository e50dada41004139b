import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type Datum,
  datumFromTokensWeights,
  ModelInput,
  tensorFromFloat32,
  tensorFromInt64,
  tensorToNumbers,
} from '@cookbook/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixedBatch, lossOf, MODEL, startPair, tempRoot } from './helpers.js';

/**
 * The random-initialised built-in, for tests that teach arbitrary token ids: qwen3-tiny's pretrained layers and
 * embedding rows favour the tokens of their corpus, so a few steps move unrelated ids less there.
 */
const RANDOM_MODEL = 'local/llama3-tiny';

/**
 * Timeout of the tests that train for many steps: they assert no timing, and on a loaded 2-core machine (several test
 * runs at once) their work alone can pass the project's 120 s.
 */
const HEAVY_MS = 600_000;

let root: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ root, cleanup } = await tempRoot());
});
afterEach(async () => {
  await cleanup();
});

describe('client ↔ embedded service: training', () => {
  it(
    'SFT on local/qwen3-tiny drives cross-entropy on a fixed batch down by ≥ 90 %',
    async () => {
      const { client, stop } = await startPair({ root });
      try {
        const tc = await client.createLoraTrainingClient({ baseModel: MODEL, rank: 8, seed: 1 });
        const batch = fixedBatch(1);
        const losses: number[] = [];
        for (let step = 0; step < 50; step++) {
          // Submitted back to back, awaited later: the pipelined pattern.
          const fb = tc.forwardBackward(batch, 'cross_entropy');
          const opt = tc.optimStep({ learningRate: 5e-3 });
          losses.push(lossOf((await fb).metrics));
          await opt;
        }
        const final = lossOf((await tc.forward(batch, 'cross_entropy')).metrics);
        expect(losses[0]).toBeGreaterThan(100);
        expect(final).toBeLessThan(0.1 * losses[0]!);
      } finally {
        await stop();
      }
    },
    HEAVY_MS,
  );

  it('getTokenizer gives the tokenizer the service names for the model', async () => {
    const { client, stop } = await startPair({ root });
    try {
      const tc = await client.createLoraTrainingClient({ baseModel: MODEL, rank: 8, seed: 1 });
      const tok = await tc.getTokenizer();
      const ids = tok.encode('What is 2 + 3?', { addSpecialTokens: false });
      expect(ids.length).toBeGreaterThan(3);
      expect(tok.decode(ids)).toBe('What is 2 + 3?');
      expect(await tc.getTokenizer()).toBe(tok);
    } finally {
      await stop();
    }
  });

  it('an importance_sampling step raises the logprob of rewarded sampled tokens and lowers penalised ones', async () => {
    const { client, stop } = await startPair({ root });
    try {
      const tc = await client.createLoraTrainingClient({ baseModel: RANDOM_MODEL, rank: 8, seed: 2 });
      const sampler = await tc.saveWeightsAndGetSamplingClient();
      const prompt = [1000, 1001, 1002, 1003];
      const res = await sampler.sample({
        prompt: ModelInput.fromInts(prompt),
        numSamples: 2,
        samplingParams: { maxTokens: 6, seed: 7, stop: [] },
      });
      const data: Datum[] = res.sequences.map((seq, i) => {
        const full = [...prompt, ...seq.tokens];
        const n = full.length - 1;
        const advantage = i === 0 ? 1 : -1;
        const adv = full.slice(1).map((_, j) => (j >= prompt.length - 1 ? advantage : 0));
        const q = full.slice(1).map((_, j) => (j >= prompt.length - 1 ? seq.logprobs![j - (prompt.length - 1)]! : 0));
        return {
          modelInput: ModelInput.fromInts(full.slice(0, n)),
          lossFnInputs: {
            target_tokens: tensorFromInt64(full.slice(1)),
            logprobs: tensorFromFloat32(q),
            advantages: tensorFromFloat32(adv),
          },
        };
      });
      const sampledLogprob = async (d: Datum) => {
        const out = await tc.forward(
          [{ modelInput: d.modelInput, lossFnInputs: { target_tokens: d.lossFnInputs.target_tokens! } }],
          'cross_entropy',
        );
        const lp = tensorToNumbers(out.lossFnOutputs[0]!.logprobs!);
        return lp.slice(prompt.length - 1).reduce((a, b) => a + b, 0);
      };
      const before = await Promise.all(data.map(sampledLogprob));
      // The learner's logprobs equal the sampler's before any update.
      const samplerSum = res.sequences[0]!.logprobs!.reduce((a, b) => a + b, 0);
      expect(before[0]).toBeCloseTo(samplerSum, 3);
      await tc.forwardBackward(data, 'importance_sampling');
      await tc.optimStep({ learningRate: 1e-2 });
      const after = await Promise.all(data.map(sampledLogprob));
      expect(after[0]).toBeGreaterThan(before[0]! + 0.5);
      expect(after[1]).toBeLessThan(before[1]! - 0.5);
    } finally {
      await stop();
    }
  });

  it(
    'save_state → restart the service → load_state: the next steps match the uninterrupted run exactly',
    async () => {
      const batches = [0, 1, 2, 3, 4].map((s) => fixedBatch(s, 2, 10));
      const adam = { learningRate: 5e-3, weightDecay: 0.01 };
      // Uninterrupted run.
      let path = '';
      const uninterrupted: number[] = [];
      {
        const { client, stop } = await startPair({ root });
        const tc = await client.createLoraTrainingClient({ baseModel: MODEL, rank: 4, seed: 3 });
        for (let step = 0; step < 5; step++) {
          const fb = tc.forwardBackward(batches[step]!, 'cross_entropy');
          const opt = tc.optimStep(adam);
          uninterrupted.push(lossOf((await fb).metrics));
          await opt;
          if (step === 2) path = (await tc.saveState('after-3')).path;
        }
        await stop();
      }
      // A new service on the same root resumes from the checkpoint, optimizer included.
      const { client, stop } = await startPair({ root });
      try {
        const tc = await client.createTrainingClientFromState(path, { optimizer: true });
        const resumed: number[] = [];
        for (let step = 3; step < 5; step++) {
          const fb = tc.forwardBackward(batches[step]!, 'cross_entropy');
          const opt = tc.optimStep(adam);
          resumed.push(lossOf((await fb).metrics));
          await opt;
        }
        expect(resumed).toEqual(uninterrupted.slice(3));
        // Without the optimizer state, step 5 differs (the moments restart), so the check above has teeth.
        const fresh = await client.createTrainingClientFromState(path, { optimizer: false });
        await fresh.forwardBackward(batches[3]!, 'cross_entropy');
        await fresh.optimStep(adam);
        const l = lossOf((await fresh.forwardBackward(batches[4]!, 'cross_entropy')).metrics);
        expect(l).not.toBe(uninterrupted[4]);
      } finally {
        await stop();
      }
    },
    HEAVY_MS,
  );

  it('saveWeightsAndGetSamplingClient returns a sampler that reflects the new weights', async () => {
    const { client, stop } = await startPair({ root });
    try {
      const tc = await client.createLoraTrainingClient({ baseModel: RANDOM_MODEL, rank: 8, seed: 4 });
      const target = [2001, 2002, 2003, 2004, 2005, 2006];
      const prompt = [3001, 3002, 3003];
      const full = ModelInput.fromInts([...prompt, ...target]);
      const targetSum = (lps: (number | null)[]) => lps.slice(prompt.length).reduce((a: number, b) => a + (b ?? 0), 0);
      const before = await tc.saveWeightsAndGetSamplingClient();
      const lp0 = await before.computeLogprobs(full);
      const datum = datumFromTokensWeights([...prompt, ...target], [0, 0, 0, ...target.map(() => 1)]);
      for (let i = 0; i < 20; i++) {
        void tc.forwardBackward([datum], 'cross_entropy');
        await tc.optimStep({ learningRate: 5e-3 });
      }
      const after = await tc.saveWeightsAndGetSamplingClient();
      const lp1 = await after.computeLogprobs(full);
      expect(targetSum(lp1)).toBeGreaterThan(targetSum(lp0) + 20);
      // The sampler computes exactly what the trainer computes.
      const trainer = tensorToNumbers((await tc.forward([datum], 'cross_entropy')).lossFnOutputs[0]!.logprobs!);
      for (const [i, v] of lp1.slice(1).entries()) expect(v).toBeCloseTo(trainer[i]!, 3);
      // The earlier sampler is a snapshot: training did not change it.
      expect(await before.computeLogprobs(full)).toEqual(lp0);
      // A named sampler checkpoint, opened by path, samples from the same weights.
      const named = await tc.saveWeightsForSampler('trained');
      const fromPath = await client.createSamplingClient({ modelPath: named.path! });
      const lp2 = await fromPath.computeLogprobs(full);
      for (const [i, v] of lp2.slice(1).entries()) expect(v).toBeCloseTo(lp1[i + 1]!, 4);
      const greedy = await fromPath.sample({
        prompt: ModelInput.fromInts(prompt),
        samplingParams: { maxTokens: 1, temperature: 0, stop: [] },
      });
      expect(greedy.sequences[0]!.tokens).toEqual([target[0]]);
    } finally {
      await stop();
    }
  });

  it('two clients train concurrently, each on its own run', async () => {
    const { service, stop } = await startPair({ root });
    const { ServiceClient } = await import('@cookbook/tinker-client');
    const a = new ServiceClient({ baseURL: service.baseURL, warn: () => undefined });
    const b = new ServiceClient({ baseURL: service.baseURL, warn: () => undefined });
    try {
      const train = async (sc: InstanceType<typeof ServiceClient>, seed: number) => {
        const tc = await sc.createLoraTrainingClient({ baseModel: MODEL, rank: 8, seed });
        const batch = fixedBatch(seed, 2, 8);
        const losses: number[] = [];
        for (let i = 0; i < 8; i++) {
          const fb = tc.forwardBackward(batch, 'cross_entropy');
          void tc.optimStep({ learningRate: 2e-2 });
          losses.push(lossOf((await fb).metrics));
        }
        return { id: tc.modelId, losses };
      };
      const [ra, rb] = await Promise.all([train(a, 10), train(b, 11)]);
      expect(ra.id).not.toBe(rb.id);
      expect(ra.losses.at(-1)!).toBeLessThan(ra.losses[0]! * 0.8);
      expect(rb.losses.at(-1)!).toBeLessThan(rb.losses[0]! * 0.8);
    } finally {
      await a.close();
      await b.close();
      await stop();
    }
  });

  it(
    'sampling on another sampler proceeds while a model trains',
    async () => {
      const { client, stop } = await startPair({ root });
      try {
        const tc = await client.createLoraTrainingClient({ baseModel: MODEL, rank: 8 });
        const sampler = await client.createSamplingClient({ baseModel: MODEL });
        const batch = fixedBatch(3, 4, 32);
        const done: string[] = [];
        let firstTrained!: () => void;
        const started = new Promise<void>((r) => {
          firstTrained = r;
        });
        const training = Array.from({ length: 6 }, (_, i) =>
          Promise.resolve(tc.forwardBackward(batch, 'cross_entropy')).then(() => {
            done.push(`train-${i}`);
            firstTrained();
          }),
        );
        // Sent once training is under way (its first result is out, five steps still queued or running): an event,
        // not a fixed wait.
        await started;
        const queuedAtSample = 6 - done.length;
        const sample = Promise.resolve(
          sampler.sample({ prompt: ModelInput.fromInts([1, 2, 3]), samplingParams: { maxTokens: 2, stop: [] } }),
        ).then(() => done.push('sample'));
        await Promise.all([...training, sample]);
        // The sample is answered while training steps are still running, not after all of them.
        expect(queuedAtSample).toBeGreaterThan(1);
        expect(done.indexOf('sample'), done.join(' ')).toBeLessThan(done.indexOf('train-5'));
      } finally {
        await stop();
      }
    },
    HEAVY_MS,
  );

  it('graceful shutdown finishes queued work and leaves no partial checkpoint', async () => {
    const { startLocalTinker } = await import('@cookbook/local-tinker');
    const { ServiceClient } = await import('@cookbook/tinker-client');
    const service = await startLocalTinker({ root, longPollMs: 2000 });
    let submittedSave!: () => void;
    const saveSubmitted = new Promise<void>((r) => {
      submittedSave = r;
    });
    const recordingFetch: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (String(input instanceof Request ? input.url : input).endsWith('/save_weights')) submittedSave();
      return res;
    };
    const client = new ServiceClient({ baseURL: service.baseURL, fetch: recordingFetch, warn: () => undefined });
    const tc = await client.createLoraTrainingClient({ baseModel: MODEL, rank: 4 });
    const futures = [tc.forwardBackward(fixedBatch(0), 'cross_entropy'), tc.optimStep(), tc.saveState('final')];
    // Close as soon as every request has been accepted, while the work is still running.
    await saveSubmitted;
    const closing = service.close();
    const results = await Promise.allSettled(futures);
    await closing;
    await client.close();
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    const runDir = join(root, 'runs', encodeURIComponent(tc.modelId), 'weights');
    expect((await readdir(runDir)).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(await readdir(join(runDir, 'final'))).toEqual(
      expect.arrayContaining(['checkpoint.json', 'state', 'adapter']),
    );
  });
});
