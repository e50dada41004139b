/**
 * Rollout limits for every multi-turn env (upstream `rl/rollout_limits.py` `RolloutLimits`): most turns, most tokens
 * of context (prompt + completion), most seconds per episode, and — for envs that run tools — most seconds per tool
 * call. A limit never throws: the episode ends gracefully, its last step carries metrics `truncated` (0/1) and
 * `truncated/<reason>` (0/1 for each reason, so their batch means are the share of episodes cut by each limit) and log
 * `truncation: <reason>` (in the rollout summaries' `steps[].logs` and the HTML transcript).
 *
 * {@link LimitedEnv} wraps any `Env` (a game, a GEM env, a message env); {@link withRolloutLimits} and
 * {@link limitDataset} wrap a group builder or a whole data set. The agent env (`AgentToolEnv`) enforces the same
 * limits itself, so it can still grade the final state of a truncated episode.
 *
 * Checks run after each step (between turns): a sampling call in progress is never cut, and an episode may overrun
 * `maxEpisodeSeconds` by one turn. Differences from upstream: no separate sampled-token, tool-call-count or per-turn
 * token budgets; `maxTotalTokens` is upstream's `max_trajectory_tokens`.
 */

import { ConfigError, type Message, ModelInput } from '@cookbook/core';
import { logText } from '@cookbook/logging';
import { z } from 'zod';
import type {
  Action,
  Env,
  EnvGroupBuilder,
  InitialObservation,
  Metrics,
  RLDataset,
  SampleStopReason,
  StepResult,
} from './env.js';

/** Why a limit ended an episode. */
export type TruncationReason = 'max_turns' | 'max_tokens' | 'timeout';

/** Every truncation reason, in the order the limits are checked. */
export const TRUNCATION_REASONS: readonly TruncationReason[] = ['max_turns', 'max_tokens', 'timeout'];

const positive = (description: string) => z.number().positive().nullable().default(null).describe(description);

/** The limits as a config schema (null = unlimited); recipes spread `.shape` into theirs. */
export const RolloutLimitsSchema = z.object({
  maxTurns: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('Rollout limit: most turns (sampling calls) per episode; null = unlimited'),
  maxTotalTokens: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe(
      'Rollout limit: most tokens of context per episode (the prompt plus completion of a turn, or the next prompt, ' +
        'which holds every earlier turn); null = unlimited',
    ),
  maxEpisodeSeconds: positive('Rollout limit: wall-clock seconds per episode, checked between turns; null = unlimited'),
  maxToolCallSeconds: positive(
    'Rollout limit: seconds a tool call may run before it is cut (tool envs); null = default',
  ),
});

/** Rollout limits; every field absent or null means unlimited. */
export interface RolloutLimits {
  maxTurns?: number | null;
  maxTotalTokens?: number | null;
  maxEpisodeSeconds?: number | null;
  maxToolCallSeconds?: number | null;
}

/** A clock in milliseconds (injected by tests). */
export type Clock = () => number;

/** Check a limits object: every set limit positive (turns and tokens integers). */
export function validateRolloutLimits(limits: RolloutLimits): void {
  for (const [key, v] of Object.entries(limits)) {
    if (v === undefined || v === null) continue;
    const integer = key === 'maxTurns' || key === 'maxTotalTokens';
    if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v) || (integer && !Number.isInteger(v))) {
      throw new ConfigError(
        `rollout limit ${key} must be a positive ${integer ? 'integer' : 'number'} or null, got ${v}`,
        {
          key,
        },
      );
    }
  }
}

/** Metrics of an episode's last step: `truncated` and one `truncated/<reason>` per reason. */
export function truncationMetrics(reason: TruncationReason | undefined): Metrics {
  const out: Metrics = { truncated: reason === undefined ? 0 : 1 };
  for (const r of TRUNCATION_REASONS) out[`truncated/${r}`] = r === reason ? 1 : 0;
  return out;
}

/** Counts one episode's turns, context and time against its limits. */
export class RolloutLimitTracker {
  readonly limits: RolloutLimits;
  private readonly clock: Clock;
  private startMs = 0;
  private turns = 0;

  constructor(limits: RolloutLimits, clock: Clock = Date.now) {
    validateRolloutLimits(limits);
    this.limits = limits;
    this.clock = clock;
  }

  /** Start the episode's clock. */
  start(): void {
    this.startMs = this.clock();
    this.turns = 0;
  }

  /** Turns recorded so far. */
  get turnCount(): number {
    return this.turns;
  }

  /** Seconds since {@link start}. */
  elapsedSeconds(): number {
    return (this.clock() - this.startMs) / 1000;
  }

  /**
   * Record a finished turn (`promptTokens` + `completionTokens`) whose episode goes on with a next prompt of
   * `nextPromptTokens`; returns the first limit it reached, or undefined.
   */
  afterTurn(promptTokens: number, completionTokens: number, nextPromptTokens: number): TruncationReason | undefined {
    this.turns++;
    const { maxTurns, maxTotalTokens, maxEpisodeSeconds } = this.limits;
    if (maxTurns != null && this.turns >= maxTurns) return 'max_turns';
    if (maxTotalTokens != null && Math.max(promptTokens + completionTokens, nextPromptTokens) >= maxTotalTokens) {
      return 'max_tokens';
    }
    if (maxEpisodeSeconds != null && this.elapsedSeconds() >= maxEpisodeSeconds) return 'timeout';
    return undefined;
  }
}

/**
 * An env whose episodes end at the given limits (see the module comment). When a limit ends an episode the inner env
 * is told (`Env.truncate`), so envs that share a game with others can end it for them.
 */
export class LimitedEnv implements Env {
  readonly inner: Env;
  private readonly tracker: RolloutLimitTracker;
  private promptTokens = 0;

  constructor(inner: Env, limits: RolloutLimits, clock?: Clock) {
    this.inner = inner;
    this.tracker = new RolloutLimitTracker(limits, clock);
  }

  /** The inner env's conversation (see {@link Env.conversation}). */
  get conversation(): readonly Message[] | undefined {
    return this.inner.conversation;
  }

  async initialObservation(): Promise<InitialObservation> {
    this.tracker.start();
    const first = await this.inner.initialObservation();
    this.promptTokens = first.observation.length;
    return first;
  }

  async step(action: Action, extra?: { stopReason?: SampleStopReason }): Promise<StepResult> {
    const result = await this.inner.step(action, extra);
    const reason = result.episodeDone
      ? undefined
      : this.tracker.afterTurn(this.promptTokens, action.length, result.nextObservation.length);
    this.promptTokens = result.nextObservation.length;
    if (reason === undefined) {
      // An env that reports its own truncation (a self-play seat whose opponent was cut) keeps its report.
      return result.episodeDone
        ? { ...result, metrics: { ...truncationMetrics(undefined), ...result.metrics } }
        : result;
    }
    this.inner.truncate?.(reason);
    logText(
      `Episode truncated: ${reason} (${this.tracker.turnCount} turns, ${this.tracker.elapsedSeconds().toFixed(1)}s)`,
    );
    return {
      ...result,
      episodeDone: true,
      nextObservation: ModelInput.empty(),
      metrics: { ...result.metrics, ...truncationMetrics(reason) },
      logs: { ...(result.logs ?? {}), truncation: reason },
    };
  }
}

/**
 * A group builder whose envs are {@link LimitedEnv}s. Group rewards, tags and demonstrations are the inner builder's
 * (its `computeGroupRewards` gets its own envs back).
 */
export function withRolloutLimits(builder: EnvGroupBuilder, limits: RolloutLimits, clock?: Clock): EnvGroupBuilder {
  validateRolloutLimits(limits);
  const wrapped: EnvGroupBuilder = {
    async makeEnvs() {
      return (await builder.makeEnvs()).map((env) => new LimitedEnv(env, limits, clock));
    },
  };
  const groupRewards = builder.computeGroupRewards;
  if (groupRewards !== undefined) {
    wrapped.computeGroupRewards = (trajectories, envs) =>
      groupRewards.call(
        builder,
        trajectories,
        envs.map((e) => (e instanceof LimitedEnv ? e.inner : e)),
      );
  }
  if (builder.logtreeTag !== undefined) wrapped.logtreeTag = builder.logtreeTag.bind(builder);
  if (builder.demonstrations !== undefined) wrapped.demonstrations = builder.demonstrations.bind(builder);
  return wrapped;
}

/** A data set whose every group builder is wrapped by {@link withRolloutLimits}. */
export function limitDataset(dataset: RLDataset, limits: RolloutLimits, clock?: Clock): RLDataset {
  validateRolloutLimits(limits);
  return {
    get length() {
      return dataset.length;
    },
    getBatch: (index) => dataset.getBatch(index).map((b) => withRolloutLimits(b, limits, clock)),
  };
}
