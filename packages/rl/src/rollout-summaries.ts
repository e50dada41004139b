/**
 * Per-rollout JSON summaries (upstream `rollout_json_export`): one line per trajectory in
 * `iteration_XXXXXX/<split>_rollout_summaries.jsonl`, for analysis without parsing transcripts (and for the
 * dashboard's rollout view). Upstream's fields are kept as they are. Our additions, absent upstream: given a
 * `decode`, each step's observation and action text, the action's per-token text and sampler logprobs; the
 * trajectory's advantage; and a message-based env's conversation as structured turns (`messages`, in the shape of
 * upstream's logtree conversations). Writing is bounded per step (`writeRolloutLog`, `@cookbook/logging`).
 */
import {
  clipText,
  conversationRecord,
  type JsonableMessage,
  type RolloutLogOptions,
  tokenTexts,
  writeRolloutLog,
} from '@cookbook/logging';
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
    /** Ours: the observation as text (text-only observations; cut at the log's text limit). */
    ob_text?: string;
    /** Ours: the action as text. */
    ac_text?: string;
    /** Ours: each action token's text (decoded one by one). */
    ac_token_texts?: string[];
    /** Ours: the sampler's logprob of each action token. */
    ac_logprobs?: number[];
  }[];
  /** Ours: the trajectory's advantage (the same on each of its action tokens). */
  advantage?: number;
  /**
   * Ours: the conversation of a message-based env (tool use, multiplayer games) as structured turns, each message in
   * upstream's `message_to_jsonable` shape (its logtree's conversation messages): tool calls with name and arguments,
   * tool results as `role: "tool"` messages with `tool_call_id`.
   */
  messages?: JsonableMessage[];
  /** Ours: messages the conversation had when `messages` keeps only its first and last ones. */
  messages_total?: number;
  /** Ours: trajectories of this step before the log sampled them (set by {@link writeRolloutSummaries}). */
  rollouts_total?: number;
}

/** The text of some tokens (a tokenizer's `decode`). */
export type DecodeTokens = (tokens: number[]) => string;

/** The summaries of a batch of groups. */
export function rolloutSummaries(
  groups_P: readonly TrajectoryGroup[],
  options: {
    split: string;
    iteration: number;
    tags_P?: readonly (string | undefined)[];
    samplerSteps_P?: readonly number[];
    /** Adds the text fields (ours) when given. */
    decode?: DecodeTokens;
    /** Per group, per trajectory: the advantage to record (ours). */
    advantages_P_G?: readonly (readonly number[])[];
  },
): RolloutSummary[] {
  const decode = options.decode;
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
          ...(decode === undefined ? {} : stepText(decode, t.ob, t.ac.tokens, t.ac.maybeLogprobs)),
        })),
        ...(options.advantages_P_G?.[p]?.[g] === undefined ? {} : { advantage: options.advantages_P_G[p]![g]! }),
        ...(traj.messages === undefined ? {} : conversationRecord(traj.messages)),
      });
    });
  });
  return out;
}

/** The text fields of one step; an observation that is not text-only (images) gets no `ob_text`. */
function stepText(
  decode: DecodeTokens,
  ob: { toInts(): number[] },
  tokens: readonly number[],
  logprobs: readonly number[] | null | undefined,
): Pick<RolloutSummary['steps'][number], 'ob_text' | 'ac_text' | 'ac_token_texts' | 'ac_logprobs'> {
  let obText: string | undefined;
  try {
    obText = clipText(decode(ob.toInts()));
  } catch {
    obText = undefined;
  }
  const pieces = tokenTexts(tokens, decode);
  return {
    ...(obText === undefined ? {} : { ob_text: obText }),
    ac_text: clipText(decode([...tokens])),
    ac_token_texts: pieces,
    ...(logprobs ? { ac_logprobs: logprobs.slice(0, pieces.length) } : {}),
  };
}

/**
 * Write one step's summaries as JSONL (parent folders created, the file replaced atomically), at most
 * `options.maxPerStep` of them (a seeded sample past that, each line keeping `rollouts_total`).
 */
export function writeRolloutSummaries(
  path: string,
  summaries: readonly RolloutSummary[],
  options: RolloutLogOptions = {},
): void {
  writeRolloutLog(path, summaries as unknown as Record<string, unknown>[], options);
}
