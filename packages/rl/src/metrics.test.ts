import { ModelInput } from '@cookbook/core';
import { type Trajectory, TrajectoryGroup } from '@cookbook/training';
import { describe, expect, it } from 'vitest';
import { trajectoryToData } from './data-processing.js';
import { computeKlSampleTrain, computeTrajectoryMetrics } from './metrics.js';

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
