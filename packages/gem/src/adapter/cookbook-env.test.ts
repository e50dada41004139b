/**
 * GEM games through `@cookbook/rl`'s own rollout code: the adapter's dataset is an rl `RLDataset` (checked by the
 * compiler here) and rl's `doGroupRollout` plays it; groups share one seeded game; demonstrations come from a player.
 */

import { type ModelInput, type StopCondition, type TokenCompleter, TrainingError } from '@cookbook/core';
import { getRenderer } from '@cookbook/renderers';
import { collectDemonstrations, doGroupRollout } from '@cookbook/rl';
import { getTokenizer } from '@cookbook/tokenizers';
import type { RLDataset } from '@cookbook/training';
import { describe, expect, it } from 'vitest';
import { make } from '../core/registry.js';
import { guessTheNumberPlayer } from '../games/players.js';
import { applyWrappers, getWrapperFns } from '../wrappers/factory.js';
import { GemRLDataset } from './cookbook-env.js';

const tokenizer = getTokenizer('local/qwen3-tiny');
const renderer = getRenderer('qwen3_disable_thinking', tokenizer);
const wrappers = getWrapperFns('concat');
const makeEnv = () => applyWrappers(make('game:GuessTheNumber-v0-easy'), wrappers);

/** A policy that plays bisection from the prompt text, answering as tokens. */
class BisectionPolicy implements TokenCompleter {
  prompts: string[] = [];
  async complete(modelInput: ModelInput, _stop: StopCondition) {
    const text = tokenizer.decode(modelInput.toInts());
    this.prompts.push(text);
    const tokens = tokenizer.encode(`${guessTheNumberPlayer(text)}<|im_end|>`);
    return { tokens, maybeLogprobs: tokens.map(() => -0.1) };
  }
}

describe('GEM games in @cookbook/rl', () => {
  it('rolls out a group with rl’s doGroupRollout: same game per group, rewards and turns as GEM gives them', async () => {
    const dataset: RLDataset = new GemRLDataset({
      makeEnv,
      renderer,
      template: 'qwen3_game',
      groupsPerBatch: 2,
      groupSize: 3,
      numBatches: 4,
      seed: 1,
      tag: 'guess_the_number',
    });
    expect(dataset.length).toBe(4);
    const builders = dataset.getBatch(0);
    expect(builders).toHaveLength(2);
    expect(builders[0]!.logtreeTag?.()).toBe('guess_the_number');
    const policy = new BisectionPolicy();
    const group = await doGroupRollout(builders[0]!, policy);
    expect(group.trajectories_G).toHaveLength(3);
    // Bisection always finds a target in 1..10 within 4 turns: total reward 1, the last step ends the episode.
    expect(group.getTotalRewards()).toEqual([1, 1, 1]);
    const turns = group.trajectories_G.map((t) => t.transitions.length);
    expect(new Set(turns).size).toBe(1);
    expect(group.trajectories_G[0]!.transitions.at(-1)!.episodeDone).toBe(true);
    expect(group.trajectories_G[0]!.transitions.at(-1)!.metrics).toMatchObject({ won: 1, format_error: 0 });
    expect(policy.prompts[0]).toMatch(/^<\|im_start\|>user\nYou are playing language games\./);
    expect(policy.prompts[0]).toContain('Enter your next guess.');
  });

  it('gives a format error −0.1 and ends the episode on an unparsable reply', async () => {
    const dataset = new GemRLDataset({ makeEnv, renderer, groupsPerBatch: 1, groupSize: 1, numBatches: 1 });
    const [env] = await dataset.getBatch(0)[0]!.makeEnvs();
    const first = await env!.initialObservation();
    expect(first.observation.length).toBeGreaterThan(50);
    const r = await env!.step(tokenizer.encode('I will not box it'));
    expect(r).toMatchObject({ reward: -0.1, episodeDone: true, metrics: { format_error: 1, won: 0 } });
    await expect(env!.step([1])).rejects.toThrow(/episode is over/);
    await expect(env!.step([1])).rejects.toThrow(TrainingError);
  });

  it('produces player demonstrations for rl’s warm start (one conversation per turn)', async () => {
    const dataset = new GemRLDataset({
      makeEnv,
      renderer,
      groupsPerBatch: 2,
      groupSize: 1,
      numBatches: 2,
      player: guessTheNumberPlayer,
    });
    const demos = await collectDemonstrations(dataset, 3);
    expect(demos).toHaveLength(3);
    expect(demos[0]![0]).toMatchObject({ role: 'user', trainable: false });
    expect(demos[0]![1]).toMatchObject({ role: 'assistant', content: '\\boxed{5}', trainable: true });
  });
});
