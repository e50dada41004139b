/**
 * Rollouts (upstream `rl/rollouts.py`: do_single_rollout, do_group_rollout). A group's environments run
 * concurrently up to a bound; group rewards are added once every trajectory is done. When an HTML transcript is
 * active (logtree), each trajectory gets its own section, so concurrent rollouts never interleave their text.
 */

import type { TokenCompleter } from '@cookbook/core';
import { deriveSeed, TrainingError } from '@cookbook/core';
import { logTable, scopeHeader } from '@cookbook/logging';
import {
  type Env,
  type EnvGroupBuilder,
  type GroupReward,
  type Trajectory,
  TrajectoryGroup,
  type Transition,
} from '@cookbook/training';
import { mapWithConcurrency } from './internal/concurrency.js';

/** Options of {@link doSingleRollout}. */
export interface SingleRolloutOptions {
  /** Stop after this many steps even if the env is not done (a guard against endless episodes). Default 1000. */
  maxTurns?: number;
  /**
   * Sampling seed of the trajectory: turn t samples with a seed derived from it and t, so a rollout is repeatable.
   * Omitted: the sampler picks each turn's seed (random).
   */
  seed?: number;
}

/** Run `policy` in `env` until the episode ends. */
export async function doSingleRollout(
  policy: TokenCompleter,
  env: Env,
  options: SingleRolloutOptions = {},
): Promise<Trajectory> {
  const maxTurns = options.maxTurns ?? 1000;
  const transitions: Transition[] = [];
  let { observation: ob, stopCondition: stop } = await env.initialObservation();
  for (let turn = 0; turn < maxTurns; turn++) {
    const ac =
      options.seed === undefined
        ? await policy.complete(ob, stop)
        : await policy.complete(ob, stop, { seed: deriveSeed(options.seed, turn) });
    const step = await env.step(ac.tokens);
    const transition: Transition = {
      ob,
      ac,
      reward: step.reward,
      episodeDone: step.episodeDone,
      metrics: step.metrics,
    };
    if (step.logs !== undefined) transition.logs = step.logs;
    transitions.push(transition);
    ob = step.nextObservation;
    stop = step.nextStopCondition;
    if (step.episodeDone) break;
  }
  const trajectory: Trajectory = { transitions, finalObservation: ob };
  // A message-based env's turns, as structured messages (tool calls and results), for the rollout log.
  const conversation = env.conversation;
  if (conversation !== undefined && conversation.length > 0) trajectory.messages = conversation.slice();
  return trajectory;
}

/** Options of {@link doGroupRollout}. */
export interface GroupRolloutOptions extends SingleRolloutOptions {
  /** Most environments of the group stepped at once. Default: all of them. */
  maxConcurrency?: number;
  /** Sampling seed of the group: environment i's trajectory gets a seed derived from it and i. */
  seed?: number;
}

/**
 * Roll out every environment of a group with `policy` (concurrently, bounded), then compute the group rewards.
 * Multi-agent builders whose envs wait on each other (self-play) need `maxConcurrency` ≥ the group size.
 */
export async function doGroupRollout(
  builder: EnvGroupBuilder,
  policy: TokenCompleter,
  options: GroupRolloutOptions = {},
): Promise<TrajectoryGroup> {
  const envs_G = await builder.makeEnvs();
  const limit = options.maxConcurrency ?? envs_G.length;
  const trajectories_G = await mapWithConcurrency(envs_G, limit, (env, i) =>
    scopeHeader(`Trajectory ${i}`, () =>
      doSingleRollout(policy, env, {
        ...options,
        ...(options.seed === undefined ? {} : { seed: deriveSeed(options.seed, i) }),
      }),
    ),
  );
  let groupRewards: GroupReward[];
  if (builder.computeGroupRewards !== undefined) {
    groupRewards = await builder.computeGroupRewards(trajectories_G, envs_G);
    if (groupRewards.length !== envs_G.length) {
      throw new TrainingError(`computeGroupRewards returned ${groupRewards.length} rewards for ${envs_G.length} envs`);
    }
  } else {
    groupRewards = envs_G.map(() => ({ reward: 0, metrics: {} }));
  }
  const group = new TrajectoryGroup(
    trajectories_G,
    groupRewards.map((g) => g.reward),
    groupRewards.map((g) => g.metrics),
  );
  const totals = group.getTotalRewards();
  logTable(
    trajectories_G.map((traj, i) => ({
      trajectory: i,
      steps: traj.transitions.length,
      step_rewards: traj.transitions.reduce((a, t) => a + t.reward, 0),
      group_reward: group.finalRewards_G[i],
      total_reward: totals[i],
    })),
    { caption: `Rewards${builder.logtreeTag ? ` (${builder.logtreeTag()})` : ''}` },
  );
  return group;
}
