import { type Message, ModelInput, type StopCondition, type TokenCompleter } from '@cookbook/core';
import { getRenderer } from '@cookbook/renderers';
import { doGroupRollout } from '@cookbook/rl';
import { getTokenizer } from '@cookbook/tokenizers';
import type { RLDataset, Trajectory } from '@cookbook/training';
import { describe, expect, it } from 'vitest';
import {
  PairwisePreferenceDataset,
  PairwisePreferenceGroupBuilder,
  tournamentPairs,
  tournamentRewards,
} from './pairwise-env.js';
import { preferShorter } from './preference-model.js';

const renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));
const prompt: Message[] = [{ role: 'user', content: 'Say something.' }];

describe('tournaments', () => {
  it('lists every ordered pair, or every pair once', () => {
    expect(tournamentPairs(3, 'all_pairs_both_ways')).toEqual([
      [0, 1],
      [0, 2],
      [1, 0],
      [1, 2],
      [2, 0],
      [2, 1],
    ]);
    expect(tournamentPairs(3, 'all_pairs_one_way')).toEqual([
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
  });

  it('rewards wins − losses per matchup, summing to zero', () => {
    // 0 beats 1 (A wins: −1), 2 beats 0 (B wins: +1), 1 and 2 tie.
    const r = tournamentRewards(
      3,
      [
        [0, 1],
        [0, 2],
        [1, 2],
      ],
      [-1, 1, 0],
    );
    expect(r).toEqual([0, -0.5, 0.5]);
    expect(r.reduce((a, b) => a + b, 0)).toBe(0);
  });
});

describe('PairwisePreferenceGroupBuilder', () => {
  it('rolls out single-turn envs and rewards the replies the judge prefers', async () => {
    const group = new PairwisePreferenceGroupBuilder({
      prompt,
      renderer,
      preferenceModel: preferShorter,
      groupSize: 3,
    });
    const envs = await group.makeEnvs();
    const replies = ['a fairly long reply', 'short', 'medium one'];
    const trajectories: Trajectory[] = [];
    for (const [i, env] of envs.entries()) {
      const ob = await env.initialObservation();
      expect(renderer.tokenizer.decode(ob.observation.toInts())).toContain('Say something.');
      const tokens = renderer.tokenizer.encode(`${replies[i]}<|im_end|>`);
      const step = await env.step(tokens);
      expect(step.episodeDone).toBe(true);
      expect(step.reward).toBe(0);
      trajectories.push({
        transitions: [
          {
            ob: ob.observation,
            ac: { tokens, maybeLogprobs: null } as never,
            reward: 0,
            episodeDone: true,
            metrics: {},
          },
        ],
        finalObservation: ModelInput.empty(),
      });
    }
    const rewards = await group.computeGroupRewards(trajectories);
    expect(rewards.map((r) => r.reward)).toEqual([-1, 1, 0]);
    expect(rewards[1]!.metrics).toEqual({ win_rate: 1, reply_chars: 5 });
    expect(group.logtreeTag()).toBe('preference');
    expect(
      () => new PairwisePreferenceGroupBuilder({ prompt, renderer, preferenceModel: preferShorter, groupSize: 1 }),
    ).toThrow(/group_size ≥ 2/);
  });

  it('serves batches of groups over the prompts', () => {
    const ds = new PairwisePreferenceDataset({
      prompts: [prompt, prompt],
      renderer,
      preferenceModel: preferShorter,
      groupSize: 2,
      groupsPerBatch: 3,
      numBatches: 4,
    });
    expect(ds.length).toBe(4);
    expect(ds.getBatch(3)).toHaveLength(3);
  });
});

/** Answers each prompt with the next of `replies`, as tokens ending in the stop token. */
class ScriptedPolicy implements TokenCompleter {
  prompts: string[] = [];
  constructor(private readonly replies: string[]) {}
  async complete(modelInput: ModelInput, _stop: StopCondition) {
    this.prompts.push(renderer.tokenizer.decode(modelInput.toInts()));
    const tokens = renderer.tokenizer.encode(`${this.replies[this.prompts.length - 1] ?? ''}<|im_end|>`);
    return { tokens, maybeLogprobs: tokens.map(() => -0.1) };
  }
}

describe('pairwise preferences in @cookbook/rl', () => {
  it('is an rl RLDataset whose groups rl’s doGroupRollout rewards by the tournament', async () => {
    // Typed as rl's RLDataset: the compiler checks the structural match that rl's `train` relies on.
    const dataset: RLDataset = new PairwisePreferenceDataset({
      prompts: [prompt],
      renderer,
      preferenceModel: preferShorter,
      groupSize: 3,
      groupsPerBatch: 1,
      numBatches: 2,
      tag: 'shorter',
    });
    const builder = dataset.getBatch(0)[0]!;
    expect(builder.logtreeTag?.()).toBe('shorter');
    const policy = new ScriptedPolicy(['a fairly long reply', 'short', 'medium one']);
    const group = await doGroupRollout(builder, policy, { maxConcurrency: 1 });
    expect(policy.prompts).toHaveLength(3);
    expect(policy.prompts[0]).toContain('Say something.');
    // Shortest beats both (+1), longest loses both (−1): rewards sum to zero within the group.
    expect(group.getTotalRewards()).toEqual([-1, 1, 0]);
    expect(group.metrics_G.map((m) => m.reply_chars)).toEqual([19, 5, 10]);
    const last = group.trajectories_G.map((t) => t.transitions.at(-1)!);
    expect(last.map((t) => [t.episodeDone, t.metrics.parse_error])).toEqual([
      [true, 0],
      [true, 0],
      [true, 0],
    ]);
  });
});
