import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheUsage, formatBytes, pruneCache } from './cache.js';
import { serviceRootWithRuns } from './testing.js';

const DAY = 86_400_000;
const NOW = Date.parse('2026-06-01T00:00:00Z');

/** A root with runs `a` (oldest), `b`, `c` (newest) of 3000, 2000 and 1000 bytes. */
function root(): string {
  return serviceRootWithRuns('cache-', NOW);
}

describe('the service root on disk', () => {
  it('lists runs most recently used first with their sizes', async () => {
    const dir = root();
    const usage = await cacheUsage(dir);
    expect(usage.runs.map((r) => r.runId)).toEqual(['s2:train:0', 's1:train:1', 's1:train:0']);
    expect(usage.totalBytes).toBeGreaterThanOrEqual(6000);
    expect(usage.runs[0]!.baseModel).toBe('local/qwen3-tiny');
    expect((await cacheUsage(join(dir, 'missing'))).runs).toEqual([]);
  });

  it('prunes least recently used runs until under the size cap, whole runs only', async () => {
    const dir = root();
    const usage = await cacheUsage(dir);
    const { removed } = await pruneCache(dir, { maxBytes: usage.totalBytes - 2500, now: NOW });
    expect(removed.map((r) => r.runId)).toEqual(['s1:train:0']);
    expect(readdirSync(join(dir, 'runs')).sort()).toEqual([
      encodeURIComponent('s1:train:1'),
      encodeURIComponent('s2:train:0'),
    ]);
  });

  it('prunes by age, never touches a run used in the last hour, and cleans up an interrupted prune', async () => {
    const dir = root();
    mkdirSync(join(dir, 'runs', '.pruning-left-over'));
    const { removed } = await pruneCache(dir, { maxAgeDays: 7, now: NOW });
    expect(removed.map((r) => r.runId).sort()).toEqual(['s1:train:0', 's1:train:1']);
    expect(existsSync(join(dir, 'runs', '.pruning-left-over'))).toBe(false);
    const recent = await pruneCache(dir, { maxBytes: 0, now: NOW - 2 * DAY + 60_000 });
    expect(recent.removed).toEqual([]);
  });

  it('formats sizes', () => {
    expect([formatBytes(512), formatBytes(1_234_567), formatBytes(5.4e9)]).toEqual(['512 B', '1.2 MB', '5.4 GB']);
  });
});
