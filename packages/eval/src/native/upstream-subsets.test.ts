import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadNativeBenchmark } from './registry.js';
import { numpyPermutation, pythonShuffle } from './upstream-shuffle.js';

/** Written by `scripts/upstream-subsets.py` from Python, numpy and upstream's builders. */
interface SubsetsFixture {
  seed: number;
  python_shuffle: Record<string, number[]>;
  numpy_permutation: Record<string, number[]>;
  synthetic: Record<string, { rows: Record<string, unknown>[]; picked: Record<string, string[]> }>;
  samples: Record<string, string[]>;
}
const fixture = JSON.parse(
  readFileSync(new URL('./__fixtures__/upstream-subsets.json', import.meta.url), 'utf8'),
) as SubsetsFixture;
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

describe('upstream’s subset shuffles', () => {
  it('draws Python’s random.Random(42).shuffle order', () => {
    for (const [n, order] of Object.entries(fixture.python_shuffle)) {
      expect(pythonShuffle(range(Number(n)), fixture.seed).slice(0, 64), `n=${n}`).toEqual(order);
    }
  });

  it('refuses a seed Python would not take as given (negative or not a safe integer)', () => {
    expect(() => pythonShuffle([1, 2], -1)).toThrow(/seed must be a non-negative integer: -1/);
    expect(() => pythonShuffle([1, 2], 0.5)).toThrow(/seed must be a non-negative integer: 0.5/);
  });

  it('draws numpy’s default_rng(42).permutation (datasets’ Dataset.shuffle)', () => {
    for (const [n, order] of Object.entries(fixture.numpy_permutation)) {
      expect(numpyPermutation(Number(n), fixture.seed).slice(0, 64), `n=${n}`).toEqual(order);
    }
  });
});

describe('max_examples subsets', () => {
  /** The Hub rows service over the fixture's rows (`_config` names a row's config). */
  const hub = (rows: readonly Record<string, unknown>[], requested: string[]) =>
    (async (url: URL) => {
      const config = url.searchParams.get('config') ?? 'default';
      requested.push(`${config}@${url.searchParams.get('offset')}`);
      const offset = Number(url.searchParams.get('offset'));
      const length = Number(url.searchParams.get('length'));
      const mine = rows
        .filter((r) => (r._config ?? 'default') === config)
        .map(({ _config, ...row }) => ({ row }))
        .slice(offset, offset + length);
      return new Response(JSON.stringify({ rows: mine, features: [] }));
    }) as unknown as typeof fetch;

  for (const [name, { rows, picked }] of Object.entries(fixture.synthetic)) {
    it(`${name}: keeps the rows upstream keeps, in its order`, async () => {
      for (const [limit, ids] of Object.entries(picked)) {
        const requested: string[] = [];
        const b = await loadNativeBenchmark(name, { fetch: hub(rows, requested), maxRows: Number(limit) });
        expect(
          b.examples.map((e) => e.id),
          `max_examples=${limit}`,
        ).toEqual(ids);
      }
    });
  }

  it('picks upstream’s subset of each offline sample', async () => {
    for (const [name, ids] of Object.entries(fixture.samples)) {
      const b = await loadNativeBenchmark(`${name}:sample`, { maxRows: 2 });
      expect(
        b.examples.map((e) => e.id),
        name,
      ).toEqual(ids);
    }
  });

  it('takes the first rows of benchmarks upstream does not shuffle', async () => {
    const all = await loadNativeBenchmark('gsm8k:sample');
    const two = await loadNativeBenchmark('gsm8k:sample', { maxRows: 2 });
    expect(two.examples.map((e) => e.id)).toEqual(all.examples.slice(0, 2).map((e) => e.id));
  });
});
