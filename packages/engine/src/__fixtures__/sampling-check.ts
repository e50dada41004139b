// Shared by the sampler-distribution tests: the transformers fixture and a statistical check of seeded draws.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { Xoshiro128Rng } from '@cookbook/core';
import { TokenPicker } from '../token-picker.js';

interface WarperCase {
  row: number;
  temperature: number;
  top_k: number;
  top_p: number;
  probs: number[];
}

/** `logits-warpers.json` (written by `scripts/logits-warpers-fixture.py` with transformers' logits processors). */
export const WARPERS = JSON.parse(readFileSync(new URL('./logits-warpers.json', import.meta.url), 'utf8')) as {
  rows: number[][];
  cases: WarperCase[];
};

/** The fixture's case for one row and setting. */
export function warperCase(row: number, temperature: number, topK: number, topP: number): WarperCase {
  const c = WARPERS.cases.find(
    (x) => x.row === row && x.temperature === temperature && x.top_k === topK && x.top_p === topP,
  );
  if (c === undefined) throw new Error(`no fixture case for row ${row}, T ${temperature}, k ${topK}, p ${topP}`);
  return c;
}

/**
 * Draws `n` tokens with `pick` (seeded) from the fixture's row and checks every token's frequency against the
 * fixture's probability: within 5 standard deviations plus 1/n (a false failure has odds below one in a million per
 * token), and a token of probability 0 never drawn.
 */
export function expectDrawsMatch(c: WarperCase, n: number, seed: number): void {
  const row = Float32Array.from(WARPERS.rows[c.row]!);
  const V = row.length;
  const picker = new TokenPicker();
  const rng = new Xoshiro128Rng(seed);
  const counts = new Float64Array(V);
  for (let i = 0; i < n; i++) counts[picker.pick(row, V, c.temperature, c.top_k, c.top_p, rng)]!++;
  const off: string[] = [];
  for (let v = 0; v < V; v++) {
    const q = c.probs[v]!;
    const f = counts[v]! / n;
    const bound = 5 * Math.sqrt((q * (1 - q)) / n) + 1 / n;
    if (Math.abs(f - q) > bound) off.push(`token ${v}: drawn ${f.toFixed(4)}, expected ${q.toFixed(4)} ± ${bound.toFixed(4)}`);
  }
  expect(off, `T ${c.temperature}, top_k ${c.top_k}, top_p ${c.top_p}`).toEqual([]);
}

/** The settings every draw check covers: temperatures either side of 1, alone and with top-k / top-p. */
export const DRAW_SETTINGS: [number, number, number][] = [
  [0.5, 0, 1],
  [1.5, 0, 1],
  [0.5, 5, 1],
  [1.5, 5, 1],
  [0.5, 0, 0.7],
  [1.5, 0, 0.9],
  [0.5, 8, 0.6],
  [1.5, 10, 0.8],
];
