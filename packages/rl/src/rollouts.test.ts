import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initTrace } from '@cookbook/logging';
import type { Env } from '@cookbook/training';
import { describe, expect, it } from 'vitest';
import { CountingEnv, ListGroupBuilder, ScriptedPolicy } from './__fixtures__/fakes.js';
import { assembleTrainingData, computeAdvantages } from './data-processing.js';
import { doGroupRollout, doSingleRollout } from './rollouts.js';

describe('rollouts', () => {
  it('runs a multi-turn episode until done, recording each transition', async () => {
    const policy = new ScriptedPolicy([[5, 6]]);
    const traj = await doSingleRollout(policy, new CountingEnv([1, 2], 3, () => 1));
    expect(traj.transitions).toHaveLength(3);
    expect(traj.transitions.map((t) => t.ob.toInts())).toEqual([
      [1, 2],
      [1, 2, 5, 6, 101],
      [1, 2, 5, 6, 101, 5, 6, 102],
    ]);
    expect(traj.transitions.map((t) => t.reward)).toEqual([1, 1, 1]);
    expect(traj.transitions[2]!.episodeDone).toBe(true);
    expect(policy.calls[0]!.stop).toEqual([0]);
    // The extending observations merge into one datum.
    const { data_D } = assembleTrainingData(
      [await doGroupRollout(new ListGroupBuilder([() => new CountingEnv([1, 2], 3)]), policy)],
      [[0]],
    );
    expect(data_D).toHaveLength(1);
  });

  it('samples each turn with a seed derived from the group seed, the env and the turn; none without one', async () => {
    const seedsOf = async (seed?: number) => {
      const policy = new ScriptedPolicy([[5]]);
      const builder = new ListGroupBuilder([0, 1, 2].map(() => () => new CountingEnv([1], 2)));
      await doGroupRollout(builder, policy, seed === undefined ? {} : { seed });
      return policy.calls.map((c) => c.seed);
    };
    const a = await seedsOf(11);
    expect(a).toHaveLength(6);
    for (const s of a) expect(Number.isInteger(s) && s! >= 0 && s! < 2 ** 31).toBe(true);
    // Three envs × two turns: six different seeds; the same group seed gives the same ones.
    expect(new Set(a).size).toBe(6);
    expect([...a].sort()).toEqual([...(await seedsOf(11))].sort());
    expect(new Set([...a, ...(await seedsOf(12))]).size).toBe(12);
    expect(await seedsOf()).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it('bounds concurrency within a group and adds group rewards', async () => {
    let active = 0;
    let peak = 0;
    const slowEnv = (): Env => {
      const inner = new CountingEnv([1], 1, (a) => a[0]!);
      return {
        initialObservation: () => inner.initialObservation(),
        step: async (a) => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((r) => setTimeout(r, 5));
          active--;
          return inner.step(a);
        },
      };
    };
    const builder = new ListGroupBuilder([slowEnv, slowEnv, slowEnv, slowEnv]);
    const withGroup = Object.assign(builder, {
      computeGroupRewards: async () => [0, 1, 2, 3].map((r) => ({ reward: r, metrics: { bonus: r } })),
    });
    const policy = new ScriptedPolicy([[1], [2], [3], [4]]);
    const group = await doGroupRollout(withGroup, policy, { maxConcurrency: 2 });
    expect(peak).toBeLessThanOrEqual(2);
    expect(group.getTotalRewards()).toEqual([1, 3, 5, 7]);
    expect(computeAdvantages([group])[0]).toEqual([-3, -1, 1, 3]);
    expect(group.metrics_G[3]).toEqual({ bonus: 3 });
  });

  it('writes one transcript section per trajectory when a trace is active', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rl-rollouts-'));
    const path = join(dir, 'train.html');
    await initTrace('iteration 0', path, () =>
      doGroupRollout(
        new ListGroupBuilder([() => new CountingEnv([1], 1), () => new CountingEnv([1], 1)], 'toy'),
        new ScriptedPolicy([[2]]),
      ),
    );
    const html = readFileSync(path, 'utf8');
    expect(html).toContain('Trajectory 0');
    expect(html).toContain('Trajectory 1');
    expect(html).toContain('Rewards (toy)');
  });
});
