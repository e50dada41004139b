import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clipText, sampleIndices, writeRolloutLog } from './rollout-log.js';

describe('rollout log', () => {
  it('keeps every index up to the bound, a seeded sorted sample of distinct indices past it', () => {
    expect(sampleIndices(5, 8, 1)).toEqual([0, 1, 2, 3, 4]);
    const a = sampleIndices(1000, 50, 7);
    expect(a).toHaveLength(50);
    expect(new Set(a).size).toBe(50);
    expect([...a].sort((x, y) => x - y)).toEqual(a);
    expect(a.every((i) => i >= 0 && i < 1000)).toBe(true);
    expect(sampleIndices(1000, 50, 7)).toEqual(a);
    expect(sampleIndices(1000, 50, 8)).not.toEqual(a);
    // Not just the first 50: the sample spreads over the whole step.
    expect(Math.max(...a)).toBeGreaterThan(500);
  });

  it('writes at most maxPerStep lines, each with the count before sampling, replacing the file', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'rollout-log-')), 'iteration_000003', 'train_rollout_summaries.jsonl');
    const records = Array.from({ length: 40 }, (_, i) => ({ traj_idx: i }));
    expect(writeRolloutLog(path, records, { maxPerStep: 10, seed: 3 })).toBe(10);
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(10);
    expect(lines.every((l) => l.rollouts_total === 40)).toBe(true);
    expect(writeRolloutLog(path, records.slice(0, 3), { maxPerStep: 10 })).toBe(3);
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(3);
  });

  it('cuts long text and says how much', () => {
    expect(clipText('abc', 5)).toBe('abc');
    expect(clipText('abcdefgh', 5)).toBe('abcde… [3 more characters not logged]');
  });
});
