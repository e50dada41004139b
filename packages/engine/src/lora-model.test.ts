import { Xoshiro128Rng } from '@cookbook/core';
import { BUILTIN_LOSSES, type LossFnType } from '@cookbook/tinker-wire';
import { describe, expect, it } from 'vitest';
import { adamwStep } from './adamw.js';
import { EngineInputError } from './errors.js';
import { createLoraModel, type LoraModel } from './lora-model.js';
import type { EngineDatum, EngineTensor } from './losses.js';
import { randomModel } from './model/base-model.js';
import { Sampler } from './sampler.js';
import { dot, fdDirectional, randn, testAdam, tinyConfig } from './test-utils.js';
import { headBlockRows } from './train-workspace.js';

function makeData(V: number, seed: number, lengths: number[]): EngineDatum[] {
  const rng = new Xoshiro128Rng(seed);
  return lengths.map((n) => {
    const toks = Array.from({ length: n + 1 }, () => Math.floor(rng.next() * V));
    const q = Array.from({ length: n }, () => -1 - rng.next() * 3);
    const adv = Array.from({ length: n }, () => rng.next() * 2 - 1);
    const w = Array.from({ length: n }, () => rng.next());
    return {
      tokens: toks.slice(0, -1),
      lossFnInputs: {
        target_tokens: { data: toks.slice(1), dtype: 'int64' },
        weights: { data: w, dtype: 'float32' },
        logprobs: { data: q, dtype: 'float32' },
        advantages: { data: adv, dtype: 'float32' },
      },
    };
  });
}

function inputsFor(loss: LossFnType, d: EngineDatum): EngineDatum {
  const { target_tokens, weights, logprobs, advantages } = d.lossFnInputs;
  const li: Record<string, EngineTensor> =
    loss === 'cross_entropy'
      ? { target_tokens: target_tokens!, weights: weights! }
      : { target_tokens: target_tokens!, logprobs: logprobs!, advantages: advantages! };
  return { tokens: d.tokens, lossFnInputs: li };
}

/** The loss written directly from tinker-api.md §4, from learner logprobs. */
function directLoss(
  loss: LossFnType,
  cfg: Record<string, number>,
  data: EngineDatum[],
  lps: ArrayLike<number>[],
  sgLps?: ArrayLike<number>[],
): number {
  let L = 0;
  data.forEach((d, i) => {
    const lp = lps[i]!;
    const num = (k: string, j: number) => Number(d.lossFnInputs[k]!.data[j]);
    for (let j = 0; j < lp.length; j++) {
      const l = lp[j]!;
      if (loss === 'cross_entropy') {
        L += -l * num('weights', j);
        continue;
      }
      const q = num('logprobs', j);
      const A = num('advantages', j);
      const r = Math.exp(l - q);
      const defaults: Record<string, number | null> = BUILTIN_LOSSES[loss].config;
      const bound = (k: string) => cfg[k] ?? defaults[k]!;
      const clip = (x: number) => Math.min(Math.max(x, bound('clip_low_threshold')), bound('clip_high_threshold'));
      if (loss === 'importance_sampling') L += -r * A;
      else if (loss === 'ppo') L += -Math.min(r * A, clip(r) * A);
      // sg(clip(r)): the ratio is evaluated at fixed logprobs when differentiating
      else if (loss === 'cispo') L += -clip(Math.exp((sgLps ? sgLps[i]![j]! : l) - q)) * l * A;
      else L += -(l * A - 0.5 * cfg.beta! * (l - q) ** 2);
    }
  });
  return L;
}

function perturbLora(m: LoraModel, seed: number): void {
  m.lora.params.set(randn(m.lora.params.length, seed, 0.1));
}

describe('LoraModel forward/backward', () => {
  for (const [arch, tied] of [
    ['qwen3', true],
    ['llama', false],
    ['llama', true],
  ] as const) {
    it(`LoRA gradients of the whole model match finite differences (${arch}, ${tied ? 'tied' : 'untied'})`, () => {
      const base = randomModel(tinyConfig(arch, tied), 5, 'tiny', null);
      for (const w of base.weights.layers) w.inputNorm.set(randn(w.inputNorm.length, 3, 0.3).map((x) => 1 + x));
      const m = createLoraModel(base, { rank: 2, seed: 1, alpha: 2 });
      perturbLora(m, 2);
      const data = makeData(base.vocabSize, 3, [5, 9, 3]);
      const ce = data.map((d) => inputsFor('cross_entropy', d));
      m.forwardBackward(ce, 'cross_entropy');
      const g = m.lora.grads.slice();
      for (let s = 0; s < 3; s++) {
        const d = randn(g.length, 40 + s);
        const fd = fdDirectional(m.lora.params, d, () => m.forward(ce, 'cross_entropy').metrics['loss:sum']!, 3e-3);
        const an = dot(g, d);
        expect(Math.abs(fd - an)).toBeLessThan(2e-2 * Math.abs(an) + 5e-3);
      }
    });
  }

  it('rows without a gradient (zero weights / advantages) leave the gradient as finite differences give it', () => {
    // 600 rows: the head runs in blocks of at most headBlockRows (256 at this vocabulary), evened out to three of 200;
    // the first has no gradient at all, the others mix zero and non-zero rows, so the head's backward runs on
    // compacted rows (see compactGradRows) and the result must not change.
    const base = randomModel({ ...tinyConfig('qwen3', true), maxPositionEmbeddings: 1024 }, 11, 'tiny', null);
    const m = createLoraModel(base, { rank: 2, seed: 1, alpha: 2 });
    perturbLora(m, 12);
    for (const loss of ['cross_entropy', 'importance_sampling'] as const) {
      expect(headBlockRows(base.vocabSize)).toBe(256);
      const [d] = makeData(base.vocabSize, 13, [600]);
      const key = loss === 'cross_entropy' ? 'weights' : 'advantages';
      const values = d!.lossFnInputs[key]!.data as number[];
      values.forEach((_, j) => {
        if (j < 260 || j % 3 === 0) values[j] = 0;
      });
      const data = [inputsFor(loss, d!)];
      m.zeroGrad();
      m.forwardBackward(data, loss);
      const g = m.lora.grads.slice();
      expect(g.some((x) => x !== 0)).toBe(true);
      for (let s = 0; s < 2; s++) {
        const dir = randn(g.length, 60 + s);
        const fd = fdDirectional(m.lora.params, dir, () => m.forward(data, loss).metrics['loss:sum']!, 3e-3);
        const an = dot(g, dir);
        expect(Math.abs(fd - an)).toBeLessThan(2e-2 * Math.abs(an) + 5e-3);
      }
    }
  });

  const cfgs: Record<LossFnType, Record<string, number>> = {
    cross_entropy: {},
    importance_sampling: {},
    ppo: { clip_low_threshold: 0.9, clip_high_threshold: 1.1 },
    cispo: {},
    dro: { beta: 0.3 },
  };
  for (const loss of Object.keys(cfgs) as LossFnType[]) {
    it(`${loss}: value and gradient equal the direct formula`, () => {
      const base = randomModel(tinyConfig('qwen3', true), 6, 'tiny', null);
      const m = createLoraModel(base, { rank: 2, seed: 1, alpha: 2 });
      perturbLora(m, 7);
      const data = makeData(base.vocabSize, 8, [6, 4]).map((d) => inputsFor(loss, d));
      const cfg = cfgs[loss];
      const r = m.forwardBackward(data, loss, cfg);
      const lps = r.lossFnOutputs.map((o) => o.logprobs!.data as Float32Array);
      const want = directLoss(loss, cfg, data, lps);
      expect(r.metrics['loss:sum']).toBeCloseTo(want, 4);
      const g = m.lora.grads.slice();
      const sg = lps.map((x) => x.slice());
      const f = () => {
        const o = m.forward(data, loss, cfg);
        return directLoss(
          loss,
          cfg,
          data,
          o.lossFnOutputs.map((x) => x.logprobs!.data as Float32Array),
          sg,
        );
      };
      const d = randn(g.length, 9);
      const fd = fdDirectional(m.lora.params, d, f, 3e-3);
      expect(Math.abs(fd - dot(g, d))).toBeLessThan(2e-2 * Math.abs(fd) + 5e-3);
    });
  }

  it('top-K cross entropy returns (N, K) logprobs and the weighted sum', () => {
    const base = randomModel(tinyConfig('llama', false), 6, 'tiny', null);
    const m = createLoraModel(base, { rank: 2 });
    const N = 4;
    const K = 3;
    const targets = Array.from({ length: N * K }, (_, i) => (i * 7) % 61);
    const weights = Array.from({ length: N * K }, (_, i) => 0.1 * i);
    const r = m.forward(
      [
        {
          tokens: [1, 2, 3, 4],
          lossFnInputs: {
            target_tokens: { data: targets, shape: [N, K], dtype: 'int64' },
            weights: { data: weights, shape: [N, K], dtype: 'float32' },
          },
        },
      ],
      'cross_entropy',
    );
    const lp = r.lossFnOutputs[0]!.logprobs!;
    expect(lp.shape).toEqual([N, K]);
    const want = -dot(lp.data as Float32Array, weights);
    expect(r.metrics['loss:sum']).toBeCloseTo(want, 4);
  });

  it('packing datums gives the same logprobs as one datum at a time', () => {
    const base = randomModel(tinyConfig('qwen3', true), 6, 'tiny', null);
    const m = createLoraModel(base, { rank: 2 });
    perturbLora(m, 3);
    const data = makeData(61, 4, [7, 3, 11]).map((d) => inputsFor('cross_entropy', d));
    const all = m.forward(data, 'cross_entropy');
    data.forEach((d, i) => {
      const one = m.forward([d], 'cross_entropy');
      const a = all.lossFnOutputs[i]!.logprobs!.data as Float32Array;
      const b = one.lossFnOutputs[0]!.logprobs!.data as Float32Array;
      for (let j = 0; j < a.length; j++) expect(a[j]).toBeCloseTo(b[j]!, 5);
    });
  });

  it("a segment cut into several head blocks gives the sampler's prompt logprobs (its own prefill path)", () => {
    // 600 rows: three head blocks of 200 rows in the trainer; the sampler computes the same logprobs with its own
    // code (a KV-cached prefill, in blocks of 256), so a block whose rows were misplaced would show.
    const base = randomModel({ ...tinyConfig('qwen3', true), maxPositionEmbeddings: 1024 }, 21, 'tiny', null);
    expect(headBlockRows(base.vocabSize)).toBe(256);
    const m = createLoraModel(base, { rank: 2, seed: 1, alpha: 2 });
    perturbLora(m, 22);
    const [d] = makeData(base.vocabSize, 23, [600]).map((x) => inputsFor('cross_entropy', x));
    const trainer = m.forward([d!], 'cross_entropy').lossFnOutputs[0]!.logprobs!.data as Float32Array;
    const targets = d!.lossFnInputs.target_tokens!.data as number[];
    const prompt = [...d!.tokens, targets.at(-1)!];
    const sampled = new Sampler(base, m.lora.snapshot(), { weights: 'float32' }).sample(prompt, {
      numSamples: 1,
      maxTokens: 1,
      includePromptLogprobs: true,
      stop: [],
    });
    const pl = sampled.promptLogprobs!;
    for (let j = 0; j < 600; j++) expect(trainer[j]).toBeCloseTo(pl[j + 1]!, 4);
  });

  it('gradients accumulate across calls and forward-only leaves them alone', () => {
    const base = randomModel(tinyConfig('qwen3', true), 6, 'tiny', null);
    const m = createLoraModel(base, { rank: 2 });
    perturbLora(m, 3);
    const data = makeData(61, 4, [5]).map((d) => inputsFor('cross_entropy', d));
    m.forwardBackward(data, 'cross_entropy');
    const g1 = m.lora.grads.slice();
    m.forward(data, 'cross_entropy');
    expect(m.lora.grads).toEqual(g1);
    m.forwardBackward(data, 'cross_entropy');
    for (let i = 0; i < g1.length; i += 97) expect(m.lora.grads[i]).toBeCloseTo(2 * g1[i]!, 4);
  });

  it('rejects bad input with clear errors', () => {
    const base = randomModel(tinyConfig('qwen3', true), 6, 'tiny', null);
    const m = createLoraModel(base, { rank: 2 });
    const ok: EngineDatum = { tokens: [1, 2], lossFnInputs: { target_tokens: { data: [2, 3], dtype: 'int64' } } };
    expect(() => m.forwardBackward([ok], 'mse')).toThrow(/unknown loss_fn "mse"/);
    expect(() => m.forwardBackward([ok], 'cross_entropy', { beta: 1 })).toThrow(/"beta" is not accepted/);
    expect(() => m.forwardBackward([ok], 'dro')).toThrow(EngineInputError);
    const long: EngineDatum = { tokens: [1, 2], lossFnInputs: { target_tokens: { data: [2, 3, 4], dtype: 'int64' } } };
    expect(() => m.forwardBackward([long], 'cross_entropy')).toThrow(
      /target_tokens has leading length 3 but model_input has 2 tokens/,
    );
    const oov: EngineDatum = { tokens: [1, 2], lossFnInputs: { target_tokens: { data: [2, 61], dtype: 'int64' } } };
    expect(() => m.forwardBackward([oov], 'cross_entropy')).toThrow(/outside the vocabulary/);
    const extra: EngineDatum = {
      tokens: [1],
      lossFnInputs: { target_tokens: { data: [2], dtype: 'int64' }, mask: { data: [1], dtype: 'float32' } },
    };
    expect(() => m.forwardBackward([extra], 'cross_entropy')).toThrow(
      /data\[0\]\.loss_fn_inputs\.mask is not accepted by the cross_entropy loss/,
    );
    expect(() => createLoraModel(base, { rank: 2, trainAttn: false, trainMlp: false, trainUnembed: false })).toThrow(
      /at least one/,
    );
  });
});

describe('AdamW', () => {
  it('matches a hand-computed torch step (bias correction, decoupled decay, clipping)', () => {
    const p = Float32Array.from([1, -2]);
    const g = Float32Array.from([3, 4]);
    const m = new Float32Array(2);
    const v = new Float32Array(2);
    const hp = { learningRate: 0.1, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: 0.5, gradClipNorm: 1 };
    const { gradNorm } = adamwStep(p, g, m, v, 1, hp);
    expect(gradNorm).toBeCloseTo(5, 6);
    // clipped grad = g / 5 (norm 1); step 1: m̂ = g', v̂ = g'², update = lr·g'/(|g'|+eps) = ±0.1
    const want = [1 * (1 - 0.05) - 0.1, -2 * (1 - 0.05) - 0.1];
    expect(p[0]).toBeCloseTo(want[0]!, 5);
    expect(p[1]).toBeCloseTo(want[1]!, 5);
    expect(g).toEqual(new Float32Array(2));
    expect(m[0]).toBeCloseTo(0.1 * 0.6, 6);
    expect(v[1]).toBeCloseTo(0.05 * 0.8 * 0.8, 6);
  });
});

describe('learning', () => {
  it('a few dozen cross-entropy steps on a fixed batch drive the loss way down', () => {
    const base = randomModel({ ...tinyConfig('qwen3', true), hiddenSize: 32, vocabSize: 200 }, 1, 'tiny', null);
    const m = createLoraModel(base, { rank: 8, seed: 0 });
    const data = makeData(200, 11, [16, 16]).map((d) => inputsFor('cross_entropy', d));
    for (const d of data) d.lossFnInputs.weights!.data = new Array(16).fill(1);
    const first = m.forwardBackward(data, 'cross_entropy').metrics['loss:sum']!;
    m.optimStep(testAdam(1e-2));
    let last = first;
    for (let s = 0; s < 40; s++) {
      last = m.forwardBackward(data, 'cross_entropy').metrics['loss:sum']!;
      m.optimStep(testAdam(1e-2));
    }
    expect(last).toBeLessThan(first * 0.2);
    expect(m.step).toBe(41);
  });
});
