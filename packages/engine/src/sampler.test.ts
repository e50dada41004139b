import { describe, expect, it } from 'vitest';
import { bf16ToFloat, toBf16 } from './kernels/half.js';
import { nativeHgemm } from './kernels/kernel.js';
import { createLoraModel } from './lora-model.js';
import { loadBaseModel, randomModel } from './model/base-model.js';
import { loadTokenDecoder } from './model/token-decoder.js';
import { Sampler } from './sampler.js';
import { randn, tinyConfig } from './test-utils.js';

const model = randomModel({ ...tinyConfig('qwen3', true), vocabSize: 64 }, 3, 'tiny', null);
for (const w of [model.weights.embed]) w.set(randn(w.length, 9, 1));

describe('Sampler', () => {
  it('is deterministic for a seed and respects max_tokens', () => {
    const s = new Sampler(model);
    const a = s.sample([1, 2, 3], { numSamples: 3, maxTokens: 7, seed: 42, stop: [] });
    const b = new Sampler(model).sample([1, 2, 3], { numSamples: 3, maxTokens: 7, seed: 42, stop: [] });
    expect(a).toEqual(b);
    for (const q of a.sequences) {
      expect(q.tokens).toHaveLength(7);
      expect(q.logprobs).toHaveLength(7);
      expect(q.stopReason).toBe('length');
    }
    const c = s.sample([1, 2, 3], { numSamples: 3, maxTokens: 7, seed: 43, stop: [] });
    expect(c.sequences.map((q) => q.tokens)).not.toEqual(a.sequences.map((q) => q.tokens));
  });

  it('KV-cached decoding gives the same logprobs as a full forward (prompt logprobs of the extended prompt)', () => {
    const s = new Sampler(model);
    const r = s.sample([5, 6, 7], { numSamples: 1, maxTokens: 5, temperature: 0, stop: [] });
    const seq = r.sequences[0]!;
    const full = s.sample([5, 6, 7, ...seq.tokens], {
      numSamples: 1,
      maxTokens: 1,
      includePromptLogprobs: true,
      stop: [],
    });
    const pl = full.promptLogprobs!;
    expect(pl[0]).toBeNull();
    for (let i = 0; i < seq.tokens.length; i++) expect(seq.logprobs[i]).toBeCloseTo(pl[3 + i]!, 4);
    // greedy = argmax of the temperature-1 distribution each step
    for (const lp of seq.logprobs) expect(lp).toBeGreaterThan(-Math.log(64));
  });

  for (const weights of ['bfloat16', 'float16'] as const) {
    it(`${weights} weights: decode equals prefill on the same rounded weights, and stays near float32`, () => {
      const s = new Sampler(model, null, { weights });
      expect(s.weightFormat).toBe(weights);
      // 40 prompt rows: the prefill takes the many-row path (widened blocks), decode the few-row one
      const prompt = Array.from({ length: 40 }, (_, i) => (i * 7 + 3) % 64);
      const seq = s.sample(prompt, { numSamples: 1, maxTokens: 5, temperature: 0, stop: [] }).sequences[0]!;
      const full = s.sample([...prompt, ...seq.tokens], {
        numSamples: 1,
        maxTokens: 1,
        includePromptLogprobs: true,
        stop: [],
      });
      for (let i = 0; i < seq.tokens.length; i++) expect(seq.logprobs[i]).toBeCloseTo(full.promptLogprobs![40 + i]!, 4);
      const f32 = new Sampler(model).sample([...prompt, ...seq.tokens], {
        numSamples: 1,
        maxTokens: 1,
        includePromptLogprobs: true,
        stop: [],
      });
      for (let i = 1; i < f32.promptLogprobs!.length; i++)
        expect(Math.abs(full.promptLogprobs![i]! - f32.promptLogprobs![i]!)).toBeLessThan(0.05);
    });
  }

  it('auto weights: bf16 only when every projection weight is a bf16 value (native kernel), logprobs as float32', () => {
    expect(new Sampler(model).weightFormat).toBe('float32');
    const rounded = randomModel({ ...tinyConfig('llama', false), vocabSize: 64 }, 5, 'tiny-bf16', null);
    const w = rounded.weights;
    for (const a of [w.embed, w.lmHead, ...w.layers.flatMap((L) => [L.wQKV, L.wO, L.wGateUp, L.wDown])])
      for (let i = 0; i < a.length; i++) a[i] = bf16ToFloat(toBf16(a[i]! * 20));
    const auto = new Sampler(rounded);
    // the pure-TS kernel keeps float32 (it would only pay for widening)
    expect(auto.weightFormat).toBe(nativeHgemm() ? 'bfloat16' : 'float32');
    const f32 = new Sampler(rounded, null, { weights: 'float32' });
    const prompt = Array.from({ length: 40 }, (_, i) => (i * 5 + 1) % 64);
    const opts = { numSamples: 2, maxTokens: 6, seed: 9, includePromptLogprobs: true, stop: [] };
    const a = auto.sample(prompt, opts);
    const b = f32.sample(prompt, opts);
    for (let i = 1; i < prompt.length; i++) expect(a.promptLogprobs![i]).toBeCloseTo(b.promptLogprobs![i]!, 5);
    for (const [k, q] of a.sequences.entries()) {
      expect(q.tokens).toEqual(b.sequences[k]!.tokens);
      for (const [i, lp] of q.logprobs.entries()) expect(lp).toBeCloseTo(b.sequences[k]!.logprobs[i]!, 5);
    }
  });

  it('top-k = 1 is greedy; top-k / top-p restrict the support', () => {
    const s = new Sampler(model);
    const greedy = s.sample([9], { numSamples: 1, maxTokens: 6, temperature: 0, stop: [] }).sequences[0]!.tokens;
    const k1 = s.sample([9], { numSamples: 2, maxTokens: 6, topK: 1, seed: 5, stop: [] });
    for (const q of k1.sequences) expect(q.tokens).toEqual(greedy);
    const tk = s.sample([9], {
      numSamples: 1,
      maxTokens: 1,
      includePromptLogprobs: true,
      topkPromptLogprobs: 3,
      stop: [],
    });
    expect(tk.topkPromptLogprobs).toEqual([null]);
    const prompt = [9, 10, 11];
    const ref = s.sample(prompt, { numSamples: 1, maxTokens: 1, topkPromptLogprobs: 64, stop: [] }).topkPromptLogprobs!;
    const top3 = new Set(ref[1]!.slice(0, 3).map(([id]) => id));
    // with top_k=3 every sample of the next token after [9] comes from the 3 most likely
    const many = s.sample([9], { numSamples: 40, maxTokens: 1, topK: 3, seed: 1, stop: [] });
    for (const q of many.sequences) expect(top3.has(q.tokens[0]!)).toBe(true);
    // top_p tiny keeps only the most likely token
    const pTiny = s.sample([9], { numSamples: 10, maxTokens: 1, topP: 1e-6, seed: 2, stop: [] });
    for (const q of pTiny.sequences) expect(q.tokens[0]).toBe(ref[1]![0]![0]);
    // top-k logprobs are sorted and match prompt logprobs
    const row = ref[1]!;
    for (let i = 1; i < row.length; i++) expect(row[i - 1]![1]).toBeGreaterThanOrEqual(row[i]![1]);
  });

  it('stops on token ids (included in the output) and on EOS only when stop is null', () => {
    const s = new Sampler(model);
    const free = s.sample([1], { numSamples: 1, maxTokens: 8, temperature: 0, stop: [] }).sequences[0]!;
    const stopTok = free.tokens[3]!;
    const first = free.tokens.indexOf(stopTok);
    const r = s.sample([1], { numSamples: 1, maxTokens: 8, temperature: 0, stop: [stopTok] }).sequences[0]!;
    expect(r.stopReason).toBe('stop');
    expect(r.tokens).toEqual(free.tokens.slice(0, first + 1));
    const eosModel = randomModel(
      { ...tinyConfig('qwen3', true), vocabSize: 64, eosTokenIds: [stopTok] },
      3,
      'tiny',
      null,
    );
    eosModel.weights.embed.set(model.weights.embed);
    const e = new Sampler(eosModel).sample([1], { numSamples: 1, maxTokens: 8, temperature: 0 }).sequences[0]!;
    expect(e.tokens).toEqual(free.tokens.slice(0, first + 1));
    const none = new Sampler(eosModel).sample([1], { numSamples: 1, maxTokens: 8, temperature: 0, stop: [] })
      .sequences[0]!;
    expect(none.tokens).toHaveLength(8);
  });

  it('string stops work for the built-in models (real tokenizer)', async () => {
    const base = await loadBaseModel('local/llama3-tiny');
    const dec = loadTokenDecoder(base.tokenizerDir!);
    const s = new Sampler(base);
    const free = s.sample([128000, 9906], { numSamples: 1, maxTokens: 6, temperature: 0, stop: [] }).sequences[0]!;
    const text = dec.decode(free.tokens);
    const needle = dec.decode(free.tokens.slice(2, 3)).slice(0, 2);
    const r = s.sample([128000, 9906], { numSamples: 1, maxTokens: 6, temperature: 0, stop: needle }).sequences[0]!;
    expect(r.stopReason).toBe('stop');
    expect(dec.decode(r.tokens)).toContain(needle);
    expect(text.startsWith(dec.decode(r.tokens))).toBe(true);
    expect(r.tokens.length).toBeLessThanOrEqual(3);
  }, 60_000);

  it('samples through a LoRA snapshot that later training does not change', () => {
    const m = createLoraModel(model, { rank: 2 });
    m.lora.params.set(randn(m.lora.params.length, 4, 0.3));
    const snap = m.sampler();
    const before = snap.sample([1, 2], { numSamples: 1, maxTokens: 4, temperature: 0, stop: [] });
    m.lora.params.fill(0);
    expect(snap.sample([1, 2], { numSamples: 1, maxTokens: 4, temperature: 0, stop: [] })).toEqual(before);
  });
});
