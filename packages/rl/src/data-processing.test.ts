import { ModelInput, tensorToNumbers } from '@cookbook/core';
import { type Trajectory, TrajectoryGroup, type Transition } from '@cookbook/training';
import { describe, expect, it } from 'vitest';
import {
  assembleTrainingData,
  computeAdvantages,
  incorporateKlPenalty,
  removeConstantRewardGroups,
  removeMask,
  trajectoryToData,
  transformAdvantages,
} from './data-processing.js';

function tr(ob: number[], ac: number[], reward = 0, metrics: Record<string, number> = {}): Transition {
  return {
    ob: ModelInput.fromInts(ob),
    ac: { tokens: ac, maybeLogprobs: ac.map((_, i) => -(i + 1) / 10) },
    reward,
    episodeDone: false,
    metrics,
  };
}

function group(rewards: number[], finals?: number[]): TrajectoryGroup {
  const trajs: Trajectory[] = rewards.map((r) => ({
    transitions: [tr([1, 2], [3], r)],
    finalObservation: ModelInput.empty(),
  }));
  return new TrajectoryGroup(
    trajs,
    finals ?? rewards.map(() => 0),
    rewards.map(() => ({})),
  );
}

const nums = (d: ReturnType<typeof trajectoryToData>[number], k: string) => tensorToNumbers(d.lossFnInputs[k]!);

describe('advantages', () => {
  it('centres rewards per group (total = step rewards + group reward)', () => {
    const adv = computeAdvantages([group([1, 0, 0, 1]), group([0.5, 0.5], [1, 0])]);
    expect(adv[0]).toEqual([0.5, -0.5, -0.5, 0.5]);
    expect(adv[1]).toEqual([0.5, -0.5]);
  });

  it('drops constant-reward groups but keeps one when all are constant', () => {
    const a = group([1, 1]);
    const b = group([0, 1]);
    const c = group([0, 0]);
    expect(removeConstantRewardGroups([a, b, c])).toEqual([b]);
    expect(removeConstantRewardGroups([a, c])).toEqual([a]);
    expect(removeConstantRewardGroups([])).toEqual([]);
  });
});

describe('datum assembly', () => {
  it('shifts by one: observation tokens have mask 0, action tokens carry logprobs and the advantage', () => {
    const traj: Trajectory = { transitions: [tr([1, 2, 3], [7, 8])], finalObservation: ModelInput.empty() };
    const [d, ...rest] = trajectoryToData(traj, 0.25);
    expect(rest).toHaveLength(0);
    expect(d!.modelInput.toInts()).toEqual([1, 2, 3, 7]);
    expect(nums(d!, 'target_tokens')).toEqual([2, 3, 7, 8]);
    expect(nums(d!, 'mask')).toEqual([0, 0, 1, 1]);
    expect(nums(d!, 'advantages')).toEqual([0, 0, 0.25, 0.25]);
    expect(nums(d!, 'logprobs').map((x) => Math.round(x * 10) / 10)).toEqual([0, 0, -0.1, -0.2]);
  });

  it('merges a multi-turn trajectory whose observations extend each other into one datum', () => {
    const traj: Trajectory = {
      transitions: [tr([1, 2], [3]), tr([1, 2, 3, 4, 5], [6, 7])],
      finalObservation: ModelInput.empty(),
    };
    const data = trajectoryToData(traj, -1);
    expect(data).toHaveLength(1);
    const d = data[0]!;
    expect(d.modelInput.toInts()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(nums(d, 'target_tokens')).toEqual([2, 3, 4, 5, 6, 7]);
    expect(nums(d, 'mask')).toEqual([0, 1, 0, 0, 1, 1]);
    expect(nums(d, 'advantages')).toEqual([0, -1, 0, 0, -1, -1]);
  });

  it('starts a new datum when an observation does not extend the previous one', () => {
    const traj: Trajectory = {
      transitions: [tr([1, 2], [3]), tr([9, 9, 4], [5])],
      finalObservation: ModelInput.empty(),
    };
    const data = trajectoryToData(traj, 1);
    expect(data).toHaveLength(2);
    expect(data[0]!.modelInput.toInts()).toEqual([1, 2]);
    expect(nums(data[0]!, 'target_tokens')).toEqual([2, 3]);
    expect(data[1]!.modelInput.toInts()).toEqual([9, 9, 4]);
    expect(nums(data[1]!, 'target_tokens')).toEqual([9, 4, 5]);
    expect(nums(data[1]!, 'mask')).toEqual([0, 0, 1]);
  });

  it('masks turns flagged parse_error_masked', () => {
    const traj: Trajectory = {
      transitions: [tr([1], [2], 0, { parse_error_masked: 1 })],
      finalObservation: ModelInput.empty(),
    };
    const d = trajectoryToData(traj, 1)[0]!;
    expect(nums(d, 'mask')).toEqual([0]);
    expect(nums(d, 'advantages')).toEqual([0]);
  });

  it('refuses actions without logprobs', () => {
    const traj: Trajectory = {
      transitions: [{ ob: ModelInput.fromInts([1]), ac: { tokens: [2] }, reward: 0, episodeDone: true, metrics: {} }],
      finalObservation: ModelInput.empty(),
    };
    expect(() => trajectoryToData(traj, 1)).toThrow(/logprobs/);
  });

  it('assembles every trajectory of every group with metadata, every tensor aligned', () => {
    const groups = [group([1, 0]), group([0, 0, 1])];
    const { data_D, metadata_D } = assembleTrainingData(groups, computeAdvantages(groups));
    expect(data_D).toHaveLength(5);
    expect(metadata_D).toEqual([
      { groupIdx: 0, trajIdx: 0 },
      { groupIdx: 0, trajIdx: 1 },
      { groupIdx: 1, trajIdx: 0 },
      { groupIdx: 1, trajIdx: 1 },
      { groupIdx: 1, trajIdx: 2 },
    ]);
    for (const d of data_D) {
      for (const t of Object.values(d.lossFnInputs)) expect(tensorToNumbers(t)).toHaveLength(d.modelInput.length);
    }
    expect(nums(data_D[0]!, 'advantages')).toEqual([0, 0.5]);
    expect(Object.keys(removeMask(data_D[0]!).lossFnInputs).sort()).toEqual([
      'advantages',
      'logprobs',
      'target_tokens',
    ]);
  });
});

describe('KL penalty', () => {
  it('adds coef·(mean diff − diff) on action tokens only', async () => {
    const traj: Trajectory = { transitions: [tr([1, 2], [3, 4])], finalObservation: ModelInput.empty() };
    const data = trajectoryToData(traj, 0);
    // sampler logprobs: -0.1, -0.2 on the action; reference gives -0.3 everywhere.
    const reference = {
      computeLogprobs: async (p: ModelInput) => [
        null,
        ...p
          .toInts()
          .slice(1)
          .map(() => -0.3),
      ],
    };
    const m = await incorporateKlPenalty(data, reference, 2);
    // diffs: 0.2, 0.1 → mean 0.15; advantages += 2·(0.15 − diff) → −0.1, +0.1
    expect(m.kl_policy_base).toBeCloseTo(0.15, 6);
    const adv = nums(data[0]!, 'advantages');
    expect(adv[0]).toBe(0);
    expect(adv[1]).toBeCloseTo(-0.1, 6);
    expect(adv[2]).toBeCloseTo(0.1, 6);
  });
});

describe('transformAdvantages (the diagnostic control)', () => {
  it('negates or zeroes every advantage and leaves none untouched', () => {
    const adv = computeAdvantages([group([1, 0, 0, 1]), group([0, 0, 1, 0])]);
    expect(transformAdvantages(adv, 'none')).toBe(adv);
    expect(transformAdvantages(adv, 'negate')).toEqual([
      [-0.5, 0.5, 0.5, -0.5],
      [0.25, 0.25, -0.75, 0.25],
    ]);
    expect(
      transformAdvantages(adv, 'zero')
        .flat()
        .every((a) => Object.is(a, 0)),
    ).toBe(true);
    expect(transformAdvantages([[0]], 'negate')[0]![0]).toBe(0);
    expect(Object.is(transformAdvantages([[0]], 'negate')[0]![0], -0)).toBe(false);
  });
});
