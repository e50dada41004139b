import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelInput } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import {
  CHECKPOINTS_FILE,
  checkLogDir,
  checkpointName,
  getLastCheckpoint,
  loadCheckpointRecords,
} from './checkpoints.js';
import { trajectoryToData } from './data-processing.js';
import { computeKlSampleTrain, computeTrajectoryMetrics } from './metrics.js';
import { type Trajectory, TrajectoryGroup } from './types.js';

function traj(ob: number[], ac: number[], reward: number, metrics: Record<string, number> = {}): Trajectory {
  return {
    transitions: [
      {
        ob: ModelInput.fromInts(ob),
        ac: { tokens: ac, maybeLogprobs: ac.map(() => -1) },
        reward,
        episodeDone: true,
        metrics,
      },
    ],
    finalObservation: ModelInput.empty(),
  };
}

describe('trajectory metrics', () => {
  it('reports env/all and per-tag metrics when a tag is a strict subset', () => {
    const g1 = new TrajectoryGroup(
      [traj([1, 2], [3], 1, { format: 1 }), traj([1, 2], [3, 4], 0, { format: 0 })],
      [0, 0],
      [{}, {}],
    );
    const g2 = new TrajectoryGroup([traj([1], [3], 1), traj([1], [3], 1)], [0, 0], [{ bonus: 2 }, { bonus: 4 }]);
    const m = computeTrajectoryMetrics([g1, g2], ['math', 'arith']);
    expect(m['env/all/reward/total']).toBe(0.75);
    expect(m['env/all/ac_tokens_per_turn']).toBe(1.25);
    expect(m['env/all/total_episodes']).toBe(4);
    expect(m['env/all/format']).toBe(0.5);
    expect(m['env/all/bonus']).toBe(3);
    expect(m['env/all/by_group/frac_mixed']).toBe(0.5);
    expect(m['env/all/by_group/frac_all_good']).toBe(0.5);
    expect(m['env/math/reward/total']).toBe(0.5);
    expect(m['env/arith/reward/total']).toBe(1);
    expect(computeTrajectoryMetrics([g1], ['math'])['env/math/reward/total']).toBeUndefined();
  });

  it('sampler-vs-learner KL on action tokens only', () => {
    const data = trajectoryToData(traj([1, 2], [3, 4], 1), 1); // sampler lp −1 on both action tokens
    const m = computeKlSampleTrain(data, [[-5, -1.5, -0.5]]);
    // action positions are 1 and 2: d = 0.5, −0.5
    expect(m['optim/kl_sample_train_v1']).toBeCloseTo(0);
    expect(m['optim/kl_sample_train_v2']).toBeCloseTo(0.125);
    expect(m['optim/entropy']).toBeCloseTo(1);
  });
});

describe('checkpoints and log dirs', () => {
  it('finds the last record with a state path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rl-ckpt-'));
    expect(getLastCheckpoint(dir)).toBeUndefined();
    writeFileSync(
      join(dir, CHECKPOINTS_FILE),
      `${JSON.stringify({ name: '000002', batch: 2, state_path: 'a' })}\n${JSON.stringify({ name: '000003', batch: 3, sampler_path: 's' })}\n{"name": "trunc`,
    );
    expect(loadCheckpointRecords(dir)).toHaveLength(2);
    expect(getLastCheckpoint(dir)?.name).toBe('000002');
    expect(getLastCheckpoint(dir, 'sampler_path')?.name).toBe('000003');
    expect(checkpointName(42)).toBe('000042');
  });

  it('applies behavior_if_log_dir_exists', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'rl-logdir-')), 'run');
    expect(await checkLogDir(dir, 'raise')).toBe('fresh');
    mkdirSync(dir);
    await expect(checkLogDir(dir, 'raise')).rejects.toThrow(/already exists/);
    expect(await checkLogDir(dir, 'resume')).toBe('resume');
    expect(await checkLogDir(dir, 'delete')).toBe('fresh');
    expect(existsSync(dir)).toBe(false);
  });
});
