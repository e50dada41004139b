/**
 * The RL vocabulary (upstream `rl/types.py`): single-use environments, groups of environments whose rollouts are
 * compared against each other, datasets of such groups, and the trajectories a policy produces in them.
 */

import type { Message, ModelInput, StopCondition, TokensWithLogprobs } from '@cookbook/core';
import { TrainingError } from '@cookbook/core';
import type { TruncationReason } from './rollout-limits.js';

/** An action: the token ids the policy sampled. */
export type Action = number[];

/** An observation: the prompt the policy sees. */
export type Observation = ModelInput;

/** Scalar metrics attached to a step, a trajectory or a group. */
export type Metrics = Record<string, number>;

/** Free-form per-step values shown in transcripts and rollout summaries. */
export type Logs = Record<string, string | number>;

/** Why a sampled action ended: a stop sequence / EOS, or the token limit. */
export type SampleStopReason = 'stop' | 'length';

/** The first observation of an episode and where sampling must stop. */
export interface InitialObservation {
  observation: Observation;
  stopCondition: StopCondition;
}

/** What an environment returns for one action. */
export interface StepResult {
  /** Immediate reward of this step. */
  reward: number;
  /** True when the episode is over; `nextObservation` is then the final observation. */
  episodeDone: boolean;
  nextObservation: Observation;
  nextStopCondition: StopCondition;
  metrics: Metrics;
  logs?: Logs;
}

/**
 * A single-use environment: one episode, no reset. Make a fresh one per rollout (through an
 * {@link EnvGroupBuilder}).
 */
export interface Env {
  initialObservation(): Promise<InitialObservation>;
  step(action: Action, extra?: { stopReason?: SampleStopReason }): Promise<StepResult>;
  /**
   * Called when a wrapper (a rollout limit) ends the episode after a step the env itself did not end; `step` is not
   * called again. Optional: envs that share state with other envs of their group (self-play seats waiting for each
   * other) implement it to end the shared episode, so the others are not left waiting.
   */
  truncate?(reason: TruncationReason): void;
  /**
   * The episode's conversation as structured messages (roles, tool calls with their arguments, tool results), for
   * envs built on messages. Optional: a rollout copies it into {@link Trajectory.messages} when the episode ends, and
   * the rollout log writes it, so a tool call is logged as a call, not only as text inside the model's reply.
   */
  readonly conversation?: readonly Message[] | undefined;
}

/** One step of a trajectory: what was observed, what was sampled, and what it earned. */
export interface Transition {
  ob: Observation;
  ac: TokensWithLogprobs;
  reward: number;
  episodeDone: boolean;
  metrics: Metrics;
  logs?: Logs;
}

/** A whole episode. */
export interface Trajectory {
  transitions: Transition[];
  finalObservation: Observation;
  /** The env's conversation when the episode ended ({@link Env.conversation}), when it has one. */
  messages?: readonly Message[];
}

/** A reward (and metrics) given to one trajectory after the whole group was rolled out. */
export interface GroupReward {
  reward: number;
  metrics: Metrics;
}

/**
 * Makes the environments of one group. Their rollouts share a baseline (the group mean reward), so a group
 * usually holds several copies of one problem, or the players of one game.
 */
export interface EnvGroupBuilder {
  makeEnvs(): Promise<Env[]>;
  /**
   * Rewards that need the whole group (pairwise preferences, multi-agent games), added to each trajectory's step
   * rewards. Default: none (0 each).
   */
  computeGroupRewards?(trajectories_G: readonly Trajectory[], envs_G: readonly Env[]): Promise<GroupReward[]>;
  /** A short tag naming the environment kind: metrics are also reported under `env/<tag>/` and transcripts show it. */
  logtreeTag?(): string;
  /**
   * Expert conversations for this group's task, as the policy would see them (the reference answer, a scripted
   * player's game), to warm-start a model that cannot do the task yet (see `collectDemonstrations`). Default: none.
   */
  demonstrations?(): Promise<Message[][]>;
}

/** The rollouts of one group, with the group-level rewards. */
export class TrajectoryGroup {
  readonly trajectories_G: Trajectory[];
  readonly finalRewards_G: number[];
  readonly metrics_G: Metrics[];

  constructor(trajectories_G: Trajectory[], finalRewards_G: number[], metrics_G: Metrics[]) {
    if (finalRewards_G.length !== trajectories_G.length || metrics_G.length !== trajectories_G.length) {
      throw new TrainingError(
        `TrajectoryGroup: ${trajectories_G.length} trajectories but ${finalRewards_G.length} final rewards and ${metrics_G.length} metric sets`,
      );
    }
    this.trajectories_G = trajectories_G;
    this.finalRewards_G = finalRewards_G;
    this.metrics_G = metrics_G;
  }

  /** Per trajectory: the sum of its step rewards plus its group reward. */
  getTotalRewards(): number[] {
    return this.trajectories_G.map((traj, i) => {
      let total = this.finalRewards_G[i]!;
      for (const t of traj.transitions) total += t.reward;
      return total;
    });
  }
}

/** A dataset of group builders, served in batches. */
export interface RLDataset {
  /** The builders of batch `index` (0-based). */
  getBatch(index: number): EnvGroupBuilder[];
  /** Number of batches. */
  readonly length: number;
}

/** Builds the training dataset and, optionally, a test dataset evaluated every `eval_every` steps. */
export type RLDatasetBuilder = () => Promise<{ train: RLDataset; test?: RLDataset }>;
