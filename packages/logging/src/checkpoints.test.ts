import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from './__fixtures__/test-utils.js';
import {
  appendCheckpointRecord,
  CHECKPOINTS_FILE,
  type CheckpointClient,
  checkpointName,
  getLastCheckpoint,
  readCheckpoints,
  saveCheckpoint,
  truncateMetricsFrom,
} from './checkpoints.js';
import { METRICS_FILE } from './metrics-logger.js';

const tmp = useTempDir();

/** A client whose saves resolve to fake paths and record their TTLs. */
function fakeClient(): CheckpointClient & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async saveState(name, options) {
      calls.push(`state ${name} ${options?.ttlSeconds ?? '-'}`);
      return { path: `tinker://run/weights/${name}` };
    },
    async saveWeightsForSampler(name, options) {
      calls.push(`sampler ${name} ${options?.ttlSeconds ?? '-'}`);
      return { path: `tinker://run/sampler_weights/${name}` };
    },
  };
}

describe('checkpoints.jsonl', () => {
  it('finds the last record with a state path and skips a truncated tail', () => {
    const dir = tmp();
    expect(getLastCheckpoint(dir)).toBeUndefined();
    writeFileSync(
      join(dir, CHECKPOINTS_FILE),
      `${JSON.stringify({ name: '000002', batch: 2, state_path: 'a' })}\n${JSON.stringify({ name: '000003', batch: 3, sampler_path: 's' })}\n{"name": "trunc`,
    );
    expect(readCheckpoints(dir)).toHaveLength(2);
    expect(getLastCheckpoint(dir)?.name).toBe('000002');
    expect(getLastCheckpoint(dir, 'sampler_path')?.name).toBe('000003');
    expect(checkpointName(42)).toBe('000042');
  });

  it('cuts a half-written last line before appending', () => {
    const dir = tmp();
    appendCheckpointRecord(dir, { name: '000001', step: 1, state_path: 'a' });
    appendFileSync(join(dir, CHECKPOINTS_FILE), '{"name": "000002", "sta');
    appendCheckpointRecord(dir, { name: '000003', step: 3, state_path: 'c' });
    expect(readCheckpoints(dir).map((r) => r.name)).toEqual(['000001', '000003']);
    expect(readFileSync(join(dir, CHECKPOINTS_FILE), 'utf8').endsWith('\n')).toBe(true);
  });

  it('saves state and sampler weights and records the loop state with the paths', async () => {
    const dir = tmp();
    const client = fakeClient();
    const rec = await saveCheckpoint(client, '000005', dir, { batch: 5, step: 5 }, { ttlSeconds: 60 });
    expect(rec).toEqual({
      name: '000005',
      batch: 5,
      step: 5,
      state_path: 'tinker://run/weights/000005',
      sampler_path: 'tinker://run/sampler_weights/000005',
    });
    expect(client.calls).toEqual(['state 000005 60', 'sampler 000005 60']);
    await saveCheckpoint(client, 'final', dir, { final: true }, { kind: 'state', ttlSeconds: null });
    expect(client.calls.at(-1)).toBe('state final -');
    expect(readCheckpoints(dir).map((r) => r.name)).toEqual(['000005', 'final']);
    expect(getLastCheckpoint(dir, 'sampler_path')?.name).toBe('000005');
  });
});

describe('truncateMetricsFrom', () => {
  it('drops rows at or past the step and a half-written tail', () => {
    const dir = tmp();
    expect(truncateMetricsFrom(dir, 0)).toBe(0);
    const path = join(dir, METRICS_FILE);
    writeFileSync(path, `${[0, 1, 2, 3].map((step) => JSON.stringify({ step, loss: step })).join('\n')}\n{"step": 4`);
    expect(truncateMetricsFrom(dir, 2)).toBe(2);
    expect(readFileSync(path, 'utf8')).toBe('{"step":0,"loss":0}\n{"step":1,"loss":1}\n');
    expect(truncateMetricsFrom(dir, 5)).toBe(0);
  });
});
