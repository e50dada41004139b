import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Xoshiro128Rng } from '@cookbook/core';
import { SafetensorsFile } from '@cookbook/weights';
import { afterAll, describe, expect, it } from 'vitest';
import { FullModel } from './full-model.js';
import type { EngineDatum } from './losses.js';
import { randomModel } from './model/base-model.js';
import { dot, fdDirectional, randn, testAdam, tinyConfig } from './test-utils.js';

function ceData(V: number, seed: number, lengths: number[]): EngineDatum[] {
  const rng = new Xoshiro128Rng(seed);
  return lengths.map((n) => {
    const toks = Array.from({ length: n + 1 }, () => Math.floor(rng.next() * V));
    return {
      tokens: toks.slice(0, -1),
      lossFnInputs: {
        target_tokens: { data: toks.slice(1), dtype: 'int64' },
        weights: { data: Array.from({ length: n }, () => rng.next()), dtype: 'float32' },
      },
    };
  });
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('FullModel (full-parameter training of the layers)', () => {
  for (const [arch, tied] of [
    ['qwen3', true],
    ['llama', false],
    ['llama', true],
  ] as const) {
    it(`gradients of every weight, embedding included, match finite differences (${arch}, tied ${tied})`, () => {
      const m = new FullModel(randomModel(tinyConfig(arch, tied), 5, 'fd', null), { embedding: true });
      // non-trivial norms, so that their gradients are not all alike
      m.params.set(m.params.map((v, i) => v + 0.05 * Math.sin(i)));
      const data = ceData(61, 9, [7, 12, 5]);
      m.forwardBackward(data, 'cross_entropy');
      const g = m.grads.slice();
      m.grads.fill(0);
      for (let k = 0; k < 3; k++) {
        // small steps: the q/k norms make the loss strongly curved in the projections' scale
        const d = randn(m.params.length, 100 + k, 0.05);
        const fd = fdDirectional(
          m.params,
          d,
          () => m.forwardBackward(data, 'cross_entropy', undefined, false).metrics['loss:sum']!,
          3e-3,
        );
        expect(Math.abs(fd - dot(g, d))).toBeLessThan(2e-2 * Math.abs(fd) + 5e-3);
      }
      expect(m.grads.every((v) => v === 0)).toBe(true);
    });
  }

  it('a few dozen steps on a fixed batch drive the loss down; the layers file holds every trained tensor', () => {
    const base = randomModel(tinyConfig('qwen3', true), 5, 'fit', null);
    const m = new FullModel(base);
    const data = ceData(61, 3, [20, 20]);
    const first = m.forwardBackward(data, 'cross_entropy', undefined, false).metrics['loss:sum']!;
    for (let s = 0; s < 50; s++) {
      m.forwardBackward(data, 'cross_entropy');
      m.optimStep(testAdam(5e-2));
    }
    const last = m.forwardBackward(data, 'cross_entropy', undefined, false).metrics['loss:sum']!;
    expect(last).toBeLessThan(0.8 * first);
    const dir = mkdtempSync(join(tmpdir(), 'full-model-'));
    dirs.push(dir);
    const file = join(dir, 'layers.safetensors');
    m.saveLayers(file);
    const f = SafetensorsFile.open(file);
    try {
      expect(f.entries.has('model.embed_tokens.weight')).toBe(false);
      const q = f.read('model.layers.1.self_attn.q_proj.weight');
      expect(Array.from(q.data)).toEqual(Array.from(base.weights.layers[1]!.wQKV.subarray(0, q.data.length)));
      expect(Array.from(f.read('model.norm.weight').data)).toEqual(Array.from(base.weights.finalNorm));
    } finally {
      f.close();
    }
  });
});
