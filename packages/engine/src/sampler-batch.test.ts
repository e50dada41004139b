import { describe, expect, it } from 'vitest';
import { EngineCancelledError, EngineInputError } from './errors.js';
import { createLoraModel } from './lora-model.js';
import { randomModel } from './model/base-model.js';
import type { SampleOptions, SampleResult } from './sample-request.js';
import { Sampler } from './sampler.js';
import { randn, tinyConfig } from './test-utils.js';

const model = randomModel({ ...tinyConfig('qwen3', true), vocabSize: 64, hiddenSize: 40 }, 3, 'tiny', null);
for (const w of [model.weights.embed]) w.set(randn(w.length, 9, 1));
const lora = createLoraModel(model, { rank: 4 });
lora.lora.params.set(randn(lora.lora.params.length, 4, 0.3));

/** A varied set of requests: prompts, sample counts, seeds, stops, lengths, top-k/top-p, prompt logprobs. */
const requests: { prompt: number[]; opts: SampleOptions }[] = Array.from({ length: 14 }, (_, i) => ({
  prompt: Array.from({ length: 2 + ((i * 5) % 11) }, (_, j) => (i * 7 + j * 3 + 1) % 64),
  opts: {
    numSamples: 1 + (i % 3),
    maxTokens: 3 + ((i * 3) % 9),
    seed: 100 + i,
    temperature: i % 4 === 0 ? 0.7 : 1,
    ...(i % 5 === 1 ? { topK: 5 } : {}),
    ...(i % 5 === 2 ? { topP: 0.8 } : {}),
    stop: i % 2 === 0 ? [] : [(i * 11) % 64, (i * 13 + 5) % 64],
    ...(i % 3 === 0 ? { includePromptLogprobs: true, topkPromptLogprobs: 2 } : {}),
  },
}));

describe('Sampler continuous batching', () => {
  for (const [name, snap] of [
    ['base model', () => new Sampler(model)],
    ['LoRA snapshot', () => lora.sampler()],
    ['bf16 weights', () => new Sampler(model, null, { weights: 'bfloat16' })],
    ['LoRA snapshot, fp16 weights', () => lora.sampler({ weights: 'float16' })],
  ] as const) {
    it(`gives every request exactly its one-by-one result when requests join and leave mid-decode (${name})`, () => {
      const alone = requests.map((r) => snap().sample(r.prompt, r.opts));
      const s = snap();
      const got = new Map<number, SampleResult>();
      const keys: number[] = [];
      let maxSeqs = 0;
      // Four join at once, then one more every other token while the others decode.
      for (const r of requests.slice(0, 4)) keys.push(s.join(r.prompt, r.opts));
      for (let step = 0, next = 4; s.batchSize > 0; step++) {
        if (step % 2 === 1 && next < requests.length) {
          keys.push(s.join(requests[next]!.prompt, requests[next]!.opts));
          next++;
        }
        maxSeqs = Math.max(maxSeqs, s.batchSequences);
        for (const f of s.decodeStep()) {
          expect(f.error).toBeUndefined();
          got.set(f.key, f.result!);
        }
        if (s.batchSize === 0 && next < requests.length)
          keys.push(s.join(requests[next]!.prompt, requests[next++]!.opts));
      }
      expect(maxSeqs).toBeGreaterThan(8); // more sequences than the few-row GEMM path of older kernels
      expect(keys.map((k) => got.get(k))).toEqual(alone);
    });
  }

  it('a cancelled request leaves with its error; the others finish unchanged; bad requests are refused at join', () => {
    const alone = requests.slice(0, 3).map((r) => new Sampler(model).sample(r.prompt, r.opts));
    const s = new Sampler(model);
    let cancel = false;
    const keys = requests.slice(0, 3).map((r) => s.join(r.prompt, r.opts));
    const victim = s.join([1, 2, 3], {
      numSamples: 2,
      maxTokens: 50,
      stop: [],
      signal: {
        get aborted() {
          return cancel;
        },
      },
    });
    expect(() => s.join([1, 999], { numSamples: 1 })).toThrow(EngineInputError);
    const got = new Map<number, { result?: SampleResult; error?: Error }>();
    for (let step = 0; s.batchSize > 0; step++) {
      if (step === 3) cancel = true;
      for (const f of s.decodeStep()) got.set(f.key, f);
    }
    expect(got.get(victim)!.error).toBeInstanceOf(EngineCancelledError);
    expect(keys.map((k) => got.get(k)!.result)).toEqual(alone);
    // The sampler is reusable afterwards, alone or batched.
    expect(s.sample(requests[0]!.prompt, requests[0]!.opts)).toEqual(alone[0]);
  });
});
