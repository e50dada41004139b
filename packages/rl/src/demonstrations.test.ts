/**
 * Demonstrations are what the env would show and reward: replaying a demonstration's assistant turns through the
 * env reproduces its prompts token for token and earns the expert's reward.
 */

import { getTextContent, type Message } from '@cookbook/core';
import { getRenderer, type Renderer } from '@cookbook/renderers';
import { getTokenizer } from '@cookbook/tokenizers';
import type { Env, RLDataset } from '@cookbook/training';
import { beforeAll, describe, expect, it } from 'vitest';
import { collectDemonstrations } from './demonstrations.js';
import { GuessNumberDataset, GuessNumberGroupBuilder } from './envs/guess-number-env.js';
import { buildMathDatasets } from './envs/math-env.js';
import { ruleGameConversations, ruleMove, TicTacToeDataset, TicTacToeGroupBuilder } from './envs/tic-tac-toe-env.js';

let renderer: Renderer;
let reply: (text: string) => number[];

beforeAll(() => {
  const tok = getTokenizer('local/qwen3-tiny');
  renderer = getRenderer('qwen3_disable_thinking', tok);
  const imEnd = tok.convertTokenToId('<|im_end|>')!;
  reply = (text) => [...tok.encode(text), imEnd];
});

/** Plays `conversation`'s assistant turns in `env`; checks each prompt; returns the rewards. */
async function replay(env: Env, conversation: readonly Message[]): Promise<number[]> {
  const rewards: number[] = [];
  let { observation } = await env.initialObservation();
  for (let i = 0; i < conversation.length; i++) {
    const m = conversation[i]!;
    if (m.trainable !== true) continue;
    expect(m.role).toBe('assistant');
    expect(observation.toInts()).toEqual(renderer.buildGenerationPrompt(conversation.slice(0, i)).toInts());
    const step = await env.step(reply(String(m.content)));
    rewards.push(step.reward);
    observation = step.nextObservation;
    if (step.episodeDone) {
      expect(conversation.slice(i + 1).some((n) => n.trainable)).toBe(false);
    }
  }
  return rewards;
}

describe('demonstrations', () => {
  it('math problems: the reference response earns the full reward', async () => {
    for (const env of ['arithmetic', 'math'] as const) {
      const { train } = await buildMathDatasets({ env, renderer, batchSize: 3, groupSize: 2, numBatches: 2, seed: 5 });
      const demos = await collectDemonstrations(train, 5);
      expect(demos).toHaveLength(5);
      for (const [k, demo] of demos.entries()) {
        const builder = train.getBatch(Math.floor(k / 3))[k % 3]!;
        const [first] = await builder.makeEnvs();
        expect(await replay(first!, demo)).toEqual([1]);
      }
    }
  });

  it('guess the number: the bisection player wins within log2 of the range', async () => {
    for (const secret of [0, 7, 14]) {
      const builder = new GuessNumberGroupBuilder(secret, renderer, 1, { low: 0, high: 14, maxTurns: 4 });
      const [demo] = await builder.demonstrations();
      const [env] = await builder.makeEnvs();
      const rewards = await replay(env!, demo!);
      expect(rewards.at(-1)).toBe(1);
      expect(rewards.length).toBeLessThanOrEqual(4);
    }
    const demos = await collectDemonstrations(new GuessNumberDataset(renderer, 2, 4, 3, 1, { high: 15 }), 6);
    expect(new Set(demos.map((d) => JSON.stringify(d))).size).toBeGreaterThan(1);
  });

  it('guess the number: the inattentive player (epsilon) ignores the answers after its first guess, never before', async () => {
    const seconds = new Map<string, Set<number>>();
    for (let seed = 0; seed < 60; seed++) {
      const options = { low: 0, high: 3, maxTurns: 2, demonstrationEpsilon: 1 };
      const [demo] = await new GuessNumberGroupBuilder(seed % 4, renderer, 1, options, seed).demonstrations();
      const guesses = demo!.filter((m) => m.role === 'assistant').map((m) => Number(m.content));
      expect(guesses[0]).toBe(1); // the opening is bisection's
      const answer = demo!.filter((m) => m.role === 'user')[1]?.content;
      if (typeof answer === 'string') seconds.set(answer, (seconds.get(answer) ?? new Set()).add(guesses[1]!));
    }
    // With epsilon 1 the second guess comes from the whole range whatever the answer said.
    expect([...seconds.get('Too low')!].sort()).toEqual([0, 1, 2, 3]);
    expect([...seconds.get('Too high')!].sort()).toEqual([0, 1, 2, 3]);
  });

  it('tic-tac-toe: rule players make only legal moves, replayed seat by seat', async () => {
    const builder = new TicTacToeGroupBuilder(renderer, 1, 'self', 3);
    const [x, o] = await builder.demonstrations();
    const [envX, envO] = await builder.makeEnvs();
    const [rx, ro] = await Promise.all([replay(envX!, x!), replay(envO!, o!)]);
    const finalX = rx!.at(-1)!;
    const finalO = ro!.at(-1)!;
    expect([finalX, finalO].every((r) => r >= -1)).toBe(true); // nobody moved illegally
    expect(finalX + finalO).toBe(0);
    // Pure rule players never lose to each other: the game is drawn.
    const drawn = ruleGameConversations(11, { epsilon: 0 });
    expect(drawn[0]!.length + drawn[1]!.length).toBe(18);
    // The rule player wins when it can and blocks otherwise.
    expect(ruleMove(['X', 'X', null, 'O', 'O', null, null, null, null], 'X')).toBe(2);
    expect(ruleMove(['X', null, null, 'O', 'O', null, 'X', null, null], 'X')).toBe(5);
    const vsRandom = await collectDemonstrations(new TicTacToeDataset(renderer, 2, 2, 1, 'random', 0), 4);
    expect(vsRandom).toHaveLength(4); // Board observation: one conversation (prompt, move) per move, as the env shows each turn.
    const board = ruleGameConversations(11, { epsilon: 0, observation: 'board' });
    expect(board).toHaveLength(9);
    expect(board.every((c) => c.length === 2 && c[1]!.role === 'assistant')).toBe(true);
    expect(getTextContent(board[1]![0]!)).toContain('Available moves:');
  });

  it('says so when a dataset has no demonstrations', async () => {
    const empty: RLDataset = { length: 1, getBatch: () => [{ makeEnvs: async () => [] }] };
    await expect(collectDemonstrations(empty, 2)).rejects.toThrow(/produce no demonstrations/);
    await expect(collectDemonstrations(empty, 0)).rejects.toThrow(/positive integer/);
  });
});
