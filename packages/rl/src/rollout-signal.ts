/** What dynamic sampling asks of a rolled-out group: whether it carries signal, and what it cost. */
import type { TrajectoryGroup } from '@cookbook/training';

/** Whether a group's rollouts earned different total rewards (so its advantages are not all 0). */
export function hasSignal(group: TrajectoryGroup): boolean {
  const r = group.getTotalRewards();
  return r.some((x) => x !== r[0]);
}

/** The action tokens the group's rollouts sampled. */
export function actionTokens(group: TrajectoryGroup): number {
  return group.trajectories_G.reduce((b, t) => b + t.transitions.reduce((c, x) => c + x.ac.tokens.length, 0), 0);
}
