/**
 * The GEM trainer's rollout log: one line per episode in `iteration_NNNNNN/train_rollout_summaries.jsonl`, in the
 * format the RL loop writes (upstream's fields: iteration, group/trajectory index, tags, rewards, one entry per turn
 * with its lengths, reward and end flag; ours: each turn's observation and action text, the action's per-token text
 * and sampler logprobs, and the turn's advantage after ReBN). Bounded per step by `writeRolloutLog`.
 */
import { join } from 'node:path';
import { iterationDir } from '@cookbook/core';
import { clipText, ROLLOUT_LOG_LIMITS, tokenTexts, writeRolloutLog } from '@cookbook/logging';
import type { Episode } from './collect.js';

/**
 * Writes step `step`'s episodes; `advantages` holds one advantage per transition, episodes in order (the trainer's
 * flattening). Returns how many lines were written.
 */
export function writeGemRolloutLog(
  logPath: string,
  step: number,
  envId: string,
  episodes: readonly Episode[],
  advantages: readonly number[],
  decode: (tokens: number[]) => string,
): number {
  let k = 0;
  const records = episodes.map((ep, e) => {
    const total = ep.transitions.reduce((a, t) => a + t.reward, 0);
    return {
      schema_version: 1,
      split: 'train',
      iteration: step,
      group_idx: e,
      traj_idx: 0,
      tags: [envId],
      sampling_client_step: step,
      total_reward: total,
      final_reward: 0,
      trajectory_metrics: {},
      final_ob_len: 0,
      steps: ep.transitions.map((t, i) => ({
        step_idx: i,
        ob_len: t.obsTokens.length,
        ac_len: t.actTokens.length,
        reward: t.reward,
        episode_done: t.done,
        metrics: {},
        logs: {},
        ob_text: clipText(ep.observations[i] ?? ''),
        ac_text: clipText(ep.actions[i] ?? ''),
        ac_token_texts: tokenTexts(t.actTokens, decode),
        ac_logprobs: t.actLogprobs.slice(0, ROLLOUT_LOG_LIMITS.maxTokenTexts),
        advantage: advantages[k++] ?? 0,
      })),
    };
  });
  return writeRolloutLog(join(logPath, iterationDir(step), 'train_rollout_summaries.jsonl'), records, { seed: step });
}
