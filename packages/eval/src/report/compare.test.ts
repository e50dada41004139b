import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arithmeticBenchmark, FakeSampler, renderer } from '../__fixtures__/fake-sampler.js';
import { runBenchmarks } from '../runner/run-benchmarks.js';
import { compareResults, comparisonText, writeComparison } from './compare.js';

async function evalWith(respond: (q: number) => boolean, evalStore: string | null = null): Promise<string> {
  const logPath = mkdtempSync(join(tmpdir(), 'eval-cmp-'));
  await runBenchmarks(
    { logPath, modelName: 'fake', behaviorIfLogDirExists: 'delete', evalStore },
    {
      benchmarks: [arithmeticBenchmark(4)],
      samplingClient: new FakeSampler((users) => {
        const m = /What is (\d+) \+ (\d+)/.exec(users[0]!)!;
        const q = Number(m[1]) - 2;
        return respond(q) ? String(Number(m[1]) + Number(m[2])) : 'no idea';
      }),
      renderer,
      progress: false,
      log: () => undefined,
    },
  );
  return logPath;
}

describe('comparison', () => {
  it('reports per-benchmark deltas and the examples that flipped', async () => {
    const a = await evalWith((q) => q === 0 || q === 1);
    const b = await evalWith((q) => q === 1 || q === 2 || q === 3);
    const c = compareResults(a, b);
    expect(c.benchmarks).toHaveLength(1);
    expect(c.benchmarks[0]!.delta.score).toBeCloseTo(0.25);
    expect(c.benchmarks[0]!.delta.num_correct).toBe(1);
    expect(c.flipped.map((f) => [f.id, f.direction])).toEqual([
      ['arith/q0', 'lost'],
      ['arith/q2', 'gained'],
      ['arith/q3', 'gained'],
    ]);
    expect(comparisonText(c)).toMatch(/arith\s+0\.5000\s+0\.7500\s+\+0\.2500/);
    const out = mkdtempSync(join(tmpdir(), 'eval-cmp-out-'));
    const html = readFileSync(writeComparison(c, out), 'utf8');
    expect(html).toContain('arith/q2');
    expect(JSON.parse(readFileSync(join(out, 'compare.json'), 'utf8')).flipped).toHaveLength(3);
  });

  it('compares a cookbook eval folder with an upstream-layout folder (an eval store run)', async () => {
    const a = await evalWith((q) => q === 0 || q === 1);
    const store = mkdtempSync(join(tmpdir(), 'eval-cmp-store-'));
    await evalWith((q) => q === 1 || q === 2 || q === 3, store);
    const [runId] = readdirSync(join(store, 'runs'));
    const b = join(store, 'runs', runId!);
    const c = compareResults(a, b);
    expect(c.benchmarks[0]!.delta.score).toBeCloseTo(0.25);
    expect(c.flipped.map((f) => [f.id, f.direction])).toEqual([
      ['arith/q0', 'lost'],
      ['arith/q2', 'gained'],
      ['arith/q3', 'gained'],
    ]);
    // Upstream-only copy of a cookbook folder (no results.json): read through its <benchmark>/ folders.
    const upstreamOnly = mkdtempSync(join(tmpdir(), 'eval-cmp-up-'));
    cpSync(join(a, 'arith'), join(upstreamOnly, 'arith'), { recursive: true });
    expect(compareResults(upstreamOnly, a).benchmarks[0]!.delta).toMatchObject({ score: 0, num_correct: 0 });
  });

  it('refuses a folder of unknown format, pointing an eval store root to its runs', () => {
    const empty = mkdtempSync(join(tmpdir(), 'eval-cmp-empty-'));
    expect(() => compareResults(empty, empty)).toThrow(
      `${empty}: unknown eval folder format: expected results.json (a cookbook eval log_path) or <benchmark>/result.json folders (upstream's layout)`,
    );
    writeFileSync(join(empty, 'runs.jsonl'), '');
    expect(() => compareResults(empty, empty)).toThrow(/this is an eval store: give one of its runs, .*runs\/<run_id>/);
    mkdirSync(join(empty, 'x'));
    writeFileSync(join(empty, 'x', 'result.json'), '{"score": "high"}');
    expect(() => compareResults(empty, empty)).toThrow(
      `${join(empty, 'x', 'result.json')}, field "score": expected a number`,
    );
  });
});
