/**
 * Per-rollout JSON summaries (upstream `rollout_json_export`): one line per trajectory in
 * `iteration_XXXXXX/<split>_rollout_summaries.jsonl`, for analysis without parsing transcripts.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { TrajectoryGroup } from '@cookbook/training';

/** One line of a rollout summaries file. */
export interface RolloutSummary {
  schema_version: 1;
  split: string;
  iteration: number;
  group_idx: number;
  traj_idx: number;
  tags: string[];
  sampling_client_step: number;
  total_reward: number;
  final_reward: number;
  trajectory_metrics: Record<string, number>;
  final_ob_len: number;
  steps: {
    step_idx: number;
    ob_len: number;
    ac_len: number;
    reward: number;
    episode_done: boolean;
    metrics: Record<string, number>;
    logs: Record<string, string | number>;
  }[];
}

/** The summaries of a batch of groups. */
export function rolloutSummaries(
  groups_P: readonly TrajectoryGroup[],
  options: {
    split: string;
    iteration: number;
    tags_P?: readonly (string | undefined)[];
    samplerSteps_P?: readonly number[];
  },
): RolloutSummary[] {
  const out: RolloutSummary[] = [];
  groups_P.forEach((group, p) => {
    const totals = group.getTotalRewards();
    const tag = options.tags_P?.[p];
    group.trajectories_G.forEach((traj, g) => {
      out.push({
        schema_version: 1,
        split: options.split,
        iteration: options.iteration,
        group_idx: p,
        traj_idx: g,
        tags: tag === undefined ? [] : [tag],
        sampling_client_step: options.samplerSteps_P?.[p] ?? options.iteration,
        total_reward: totals[g]!,
        final_reward: group.finalRewards_G[g]!,
        trajectory_metrics: group.metrics_G[g] ?? {},
        final_ob_len: traj.finalObservation.length,
        steps: traj.transitions.map((t, i) => ({
          step_idx: i,
          ob_len: t.ob.length,
          ac_len: t.ac.tokens.length,
          reward: t.reward,
          episode_done: t.episodeDone,
          metrics: t.metrics,
          logs: t.logs ?? {},
        })),
      });
    });
  });
  return out;
}

/** Write summaries as JSONL (parent folders created). */
export function writeRolloutSummaries(path: string, summaries: readonly RolloutSummary[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, summaries.map((s) => JSON.stringify(s)).join('\n') + (summaries.length > 0 ? '\n' : ''));
}
