/**
 * The GEM trainer's rollout log: one line per episode in `iteration_NNNNNN/train_rollout_summaries.jsonl`, in the
 * format the RL loop writes (upstream's fields: iteration, group/trajectory index, tags, rewards, one entry per turn
 * with its lengths, reward and end flag; ours: each turn's observation and action text, the action's per-token text
 * and sampler logprobs, and the turn's advantage after ReBN; for a tool-wrapped env, the episode's turns as structured
 * messages — each tool call with its name and input, its result as a `tool` message). Bounded per step by
 * `writeRolloutLog`.
 */
import { join } from 'node:path';
import { iterationDir, type Message } from '@cookbook/core';
import { clipText, conversationRecord, ROLLOUT_LOG_LIMITS, tokenTexts, writeRolloutLog } from '@cookbook/logging';
import type { Episode } from './collect.js';

/** The argument name a GEM tool's input is logged under (its call's `arguments` JSON). */
const TOOL_ARGUMENT: Readonly<Record<string, string>> = { python: 'code', search: 'query' };

/**
 * An episode of a tool-wrapped env as messages: the first observation (user), then per turn the action (assistant,
 * with a `tool_calls` entry when the tool wrapper ran a call for it) followed by the call's result (`role: "tool"`)
 * or, when the action went to the env, the next observation (user). Undefined for an episode without tool calls.
 */
export function gemEpisodeMessages(ep: Episode): Message[] | undefined {
  if (ep.toolCalls === undefined) return undefined;
  const messages: Message[] = [{ role: 'user', content: ep.observations[0] ?? '' }];
  ep.actions.forEach((action, i) => {
    const call = ep.toolCalls?.[i];
    if (call === undefined) {
      messages.push({ role: 'assistant', content: action });
      const next = ep.observations[i + 1];
      if (next !== undefined) messages.push({ role: 'user', content: next });
      return;
    }
    const id = `call_${i}`;
    const args = JSON.stringify({ [TOOL_ARGUMENT[call.name] ?? 'input']: call.input });
    messages.push({
      role: 'assistant',
      content: action,
      tool_calls: [{ type: 'function', id, function: { name: call.name, arguments: args } }],
    });
    messages.push({ role: 'tool', tool_call_id: id, name: call.name, content: call.output });
  });
  return messages;
}

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
      ...conversationOf(ep),
    };
  });
  return writeRolloutLog(join(logPath, iterationDir(step), 'train_rollout_summaries.jsonl'), records, { seed: step });
}

function conversationOf(ep: Episode): ReturnType<typeof conversationRecord> | Record<string, never> {
  const messages = gemEpisodeMessages(ep);
  return messages === undefined ? {} : conversationRecord(messages);
}
