/**
 * RL from pairwise preferences (upstream `preference/preference_rl.py` / `PairwisePreferenceRLDatasetBuilder`):
 * a group holds `groupSize` rollouts of one prompt; after the group is rolled out, a preference model compares its
 * completions in a tournament (every ordered pair, or every unordered pair once) and each completion's reward is
 * wins − losses averaged over its matchups, so rewards lie in [−1, 1] and sum to zero within a group.
 *
 * The builders and the dataset implement the RL env protocol of `@cookbook/training` (`EnvGroupBuilder`,
 * `RLDataset`; the envs are its `EnvFromMessageEnv` over a one-turn message env): this package does not depend on
 * rl, and rl's `train` accepts a {@link PairwisePreferenceDataset} as its dataset (a test passes one to rl's own
 * rollout code).
 */
import { DataError, type Message, seededPermutation } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import {
  EnvFromMessageEnv,
  type EnvGroupBuilder,
  type GroupReward,
  type MessageEnv,
  type MessageStepResult,
  type RLDataset,
} from '@cookbook/training';
import type { PreferenceModel } from './preference-model.js';

/** Which pairs of a group the preference model compares. */
export type TournamentPattern = 'all_pairs_both_ways' | 'all_pairs_one_way';

/** The ordered matchups (i, j) of a group of `n`: i plays A, j plays B. */
export function tournamentPairs(n: number, pattern: TournamentPattern): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      if (pattern === 'all_pairs_one_way' && j < i) continue;
      out.push([i, j]);
    }
  }
  return out;
}

/**
 * Per completion: wins − losses averaged over its matchups, from the preference of each matchup (−1: A wins,
 * +1: B wins, 0: tie; fractional values count fractionally).
 */
export function tournamentRewards(
  n: number,
  pairs: readonly [number, number][],
  preferences: readonly number[],
): number[] {
  const score = new Array<number>(n).fill(0);
  const games = new Array<number>(n).fill(0);
  pairs.forEach(([a, b], k) => {
    const p = preferences[k] ?? 0;
    score[a] = score[a]! - p;
    score[b] = score[b]! + p;
    games[a] = games[a]! + 1;
    games[b] = games[b]! + 1;
  });
  return score.map((s, i) => (games[i]! === 0 ? 0 : s / games[i]!));
}

/** A one-turn message env that shows the prompt, keeps the reply, and gives no reward of its own. */
class PromptReplyEnv implements MessageEnv {
  reply: Message | undefined;
  constructor(private readonly prompt: Message[]) {}
  async initialMessages(): Promise<Message[]> {
    return [...this.prompt];
  }
  async step(reply: Message): Promise<MessageStepResult> {
    this.reply = reply;
    return { reward: 0, episodeDone: true, nextMessages: [] };
  }
}

/** Options of {@link PairwisePreferenceGroupBuilder}. */
export interface PairwisePreferenceGroupOptions {
  prompt: Message[];
  renderer: Renderer;
  preferenceModel: PreferenceModel;
  /** Rollouts of the prompt compared with each other (at least 2). */
  groupSize: number;
  /** Default `all_pairs_both_ways` (each pair in both orders, which cancels a position bias of the judge). */
  tournament?: TournamentPattern;
  /** Tag of the metrics (`env/<tag>/…`). Default `preference`. */
  tag?: string;
}

/** One prompt's group: `groupSize` single-turn envs, rewarded by a preference tournament among their replies. */
export class PairwisePreferenceGroupBuilder implements EnvGroupBuilder {
  private readonly options: PairwisePreferenceGroupOptions;
  private envs: PromptReplyEnv[] = [];

  constructor(options: PairwisePreferenceGroupOptions) {
    if (!Number.isInteger(options.groupSize) || options.groupSize < 2) {
      throw new DataError(`pairwise preferences need group_size ≥ 2, got ${options.groupSize}`, {
        field: 'group_size',
      });
    }
    this.options = options;
  }

  async makeEnvs(): Promise<EnvFromMessageEnv[]> {
    this.envs = Array.from({ length: this.options.groupSize }, () => new PromptReplyEnv(this.options.prompt));
    return this.envs.map((e) => new EnvFromMessageEnv(this.options.renderer, e));
  }

  async computeGroupRewards(trajectories_G: readonly unknown[]): Promise<GroupReward[]> {
    const n = trajectories_G.length;
    const replies = this.envs.map((e) => [e.reply ?? { role: 'assistant', content: '' }]);
    const pairs = tournamentPairs(n, this.options.tournament ?? 'all_pairs_both_ways');
    const preferences = await Promise.all(
      pairs.map(([a, b]) =>
        this.options.preferenceModel({
          promptConversation: this.options.prompt,
          completionA: replies[a]!,
          completionB: replies[b]!,
        }),
      ),
    );
    const rewards = tournamentRewards(n, pairs, preferences);
    const length = (m: Message[]) => (typeof m[0]?.content === 'string' ? m[0].content.length : 0);
    return rewards.map((reward, i) => ({
      reward,
      metrics: { win_rate: (reward + 1) / 2, reply_chars: length(replies[i]!) },
    }));
  }

  logtreeTag(): string {
    return this.options.tag ?? 'preference';
  }
}

/** Options of {@link PairwisePreferenceDataset}. */
export interface PairwisePreferenceDatasetOptions {
  prompts: readonly Message[][];
  renderer: Renderer;
  preferenceModel: PreferenceModel;
  groupSize: number;
  groupsPerBatch: number;
  /** Batches served (the prompts are cycled in a seeded order). */
  numBatches: number;
  tournament?: TournamentPattern;
  seed?: number;
  tag?: string;
}

/** Batches of pairwise-preference groups over a list of prompts (an `RLDataset`). */
export class PairwisePreferenceDataset implements RLDataset {
  readonly length: number;
  private readonly options: PairwisePreferenceDatasetOptions;
  private readonly order: number[];

  constructor(options: PairwisePreferenceDatasetOptions) {
    if (options.prompts.length === 0) throw new DataError('pairwise preference RL needs at least one prompt');
    this.options = options;
    this.length = options.numBatches;
    this.order = seededPermutation(options.prompts.length, options.seed ?? 0);
  }

  getBatch(index: number): PairwisePreferenceGroupBuilder[] {
    const { groupsPerBatch, prompts } = this.options;
    return Array.from({ length: groupsPerBatch }, (_, k) => {
      const i = this.order[(index * groupsPerBatch + k) % prompts.length]!;
      return new PairwisePreferenceGroupBuilder({
        prompt: prompts[i]!,
        renderer: this.options.renderer,
        preferenceModel: this.options.preferenceModel,
        groupSize: this.options.groupSize,
        ...(this.options.tournament ? { tournament: this.options.tournament } : {}),
        ...(this.options.tag ? { tag: this.options.tag } : {}),
      });
    });
  }
}
