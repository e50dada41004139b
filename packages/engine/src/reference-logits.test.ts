// The forward pass against an outside reference: tiny random Llama 3 and Qwen3 checkpoints whose logits Hugging Face
// transformers' own model classes computed (scripts/reference-logits.py made the fixtures; CI only reads them).
// Every checkpoint goes through the normal checkpoint-folder loader, then through both forward paths the engine has:
// the trainer's (logprobs of every vocabulary entry at every position, via top-K cross entropy with K = vocab) and
// the sampler's (KV-cached prefill: top-K prompt logprobs, then the first decoded token). The engine returns
// logprobs, so the reference logits are compared after log-softmax, which only removes each row's constant.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createLoraModel } from './lora-model.js';
import { loadBaseModel } from './model/base-model.js';
import { Sampler } from './sampler.js';

const ROOT = fileURLToPath(new URL('./__fixtures__/reference-logits/', import.meta.url));
const TOL = 1e-4;

interface Expected {
  model_class: string;
  transformers_version: string;
  input_ids: number[];
  logits: number[][];
}

/** log-softmax of each row, in f64. */
function logSoftmax(rows: number[][]): number[][] {
  return rows.map((r) => {
    const m = Math.max(...r);
    const lse = m + Math.log(r.reduce((s, v) => s + Math.exp(v - m), 0));
    return r.map((v) => v - lse);
  });
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let d = 0;
  for (let i = 0; i < a.length; i++) d = Math.max(d, Math.abs(a[i]! - b[i]!));
  return d;
}

const cases = readdirSync(ROOT).sort();

describe('forward pass matches Hugging Face transformers (reference logits)', () => {
  it('has the four reference checkpoints (Llama 3 and Qwen3, tied and untied)', () => {
    expect(cases).toEqual(['llama3-tied-mqa', 'llama3-untied-gqa', 'qwen3-tied-gqa', 'qwen3-untied-gqa']);
  });

  for (const name of cases) {
    const dir = join(ROOT, name);
    const expected = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Expected;
    const ids = expected.input_ids;
    const want = logSoftmax(expected.logits);

    it(`${name}: the checkpoint loads with the reference's architecture`, async () => {
      const base = await loadBaseModel(dir);
      const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as Record<string, unknown>;
      expect(base.arch).toBe(expected.model_class === 'Qwen3ForCausalLM' ? 'qwen3' : 'llama');
      expect(base.config.tieWordEmbeddings).toBe(cfg.tie_word_embeddings);
      expect(base.config.numKvHeads).toBeLessThan(base.config.numHeads);
      expect(want).toHaveLength(ids.length);
    });

    it(`${name}: trainer logprobs of every token at every position match within ${TOL}`, async () => {
      const base = await loadBaseModel(dir);
      const V = base.vocabSize;
      const N = ids.length;
      const targets = Array.from({ length: N * V }, (_, i) => i % V);
      // A fresh LoRA adapter (B = 0) leaves the base model's outputs unchanged.
      const m = createLoraModel(base, { rank: 1 });
      const out = m.forward(
        [{ tokens: ids, lossFnInputs: { target_tokens: { data: targets, shape: [N, V], dtype: 'int64' } } }],
        'cross_entropy',
      );
      const lp = out.lossFnOutputs[0]!.logprobs!;
      expect(lp.shape).toEqual([N, V]);
      expect(maxAbsDiff(lp.data as Float32Array, want.flat())).toBeLessThan(TOL);
    });

    it(`${name}: sampler prompt logprobs and first decoded token match within ${TOL}`, async () => {
      const base = await loadBaseModel(dir);
      const V = base.vocabSize;
      const r = new Sampler(base, null, { weights: 'float32' }).sample(ids, {
        numSamples: 1,
        maxTokens: 1,
        temperature: 0,
        stop: [],
        topkPromptLogprobs: V,
      });
      const topk = r.topkPromptLogprobs!;
      expect(topk).toHaveLength(ids.length);
      expect(topk[0]).toBeNull();
      for (let i = 1; i < ids.length; i++) {
        // entry i: the distribution after tokens 0..i-1, i.e. the reference row i-1
        const row = new Float64Array(V).fill(Number.NaN);
        for (const [tok, lp] of topk[i]!) row[tok] = lp;
        expect(maxAbsDiff(row, want[i - 1]!), `prompt position ${i}`).toBeLessThan(TOL);
      }
      const last = want[ids.length - 1]!;
      const seq = r.sequences[0]!;
      expect(seq.tokens[0]).toBe(last.indexOf(Math.max(...last)));
      expect(Math.abs(seq.logprobs[0]! - Math.max(...last))).toBeLessThan(TOL);
    });
  }
});
