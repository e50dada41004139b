import { ConfigError } from '@cookbook/core';
import { getRenderer } from '@cookbook/renderers';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { PickEnv } from '../__fixtures__/pick-env.js';
import { make } from '../core/registry.js';
import type { GuessTheNumber } from '../games/guess-the-number.js';
import { getWrapperFns } from './factory.js';
import { EpisodeTrackingWrapper, ObservationWrapper } from './observation.js';

const renderer = getRenderer('qwen3', getTokenizer('local/qwen3-tiny'));

/** An easy GuessTheNumber whose target is below 5 (so `\boxed{5}` gets "lower"). */
async function lowTargetGame(): Promise<{ env: GuessTheNumber; seed: number; instructions: string }> {
  for (let seed = 0; ; seed++) {
    const env = make('game:GuessTheNumber-v0-easy') as GuessTheNumber;
    const r = await env.reset(seed);
    if (env.targetNumber < 5) return { env, seed, instructions: r.observation };
  }
}

describe('observation wrappers', () => {
  it('concat: the GEM example after \\boxed{5} on GuessTheNumber-v0-easy', async () => {
    const { seed, instructions } = await lowTargetGame();
    const env = new ObservationWrapper(make('game:GuessTheNumber-v0-easy'), { mode: 'concat' });
    const r0 = await env.reset(seed);
    expect(instructions.trimEnd().split('\n')).toHaveLength(6);
    expect(instructions.trimEnd().split('\n').at(-1)).toBe('Enter your first guess to start the game.');
    expect(r0.observation).toBe(`${instructions}Enter your next guess.`);
    const r1 = await env.step('I think \\boxed{5}');
    expect(r1.observation).toBe(
      `${instructions}At turn 1, you guessed 5, and the target number is lower than 5.\nEnter your next guess.`,
    );
    expect(r1.reward).toBe(0);
  });

  it('concat_with_action interleaves actions; parsed_action wins over the raw text', async () => {
    const env = new ObservationWrapper(new PickEnv(1), { mode: 'concat_with_action' });
    await env.reset(1);
    const secret = (env.unwrapped as PickEnv).secret;
    const wrong = secret === 1 ? 2 : 1;
    const r = await env.step(`\\boxed{${wrong}}`);
    expect(r.observation).toBe(
      `Guess a number between 1 and 3.\n\\boxed{${wrong}}\nAt turn 1, you guessed ${wrong}.\nEnter your next guess.`,
    );
  });

  it('concat_chat renders the history as a chat with the renderer; the suffix follows the generation prompt', async () => {
    const env = new ObservationWrapper(new PickEnv(2), { mode: 'concat_chat', renderer });
    const r0 = await env.reset(2);
    expect(r0.observation).toBe(
      '<|im_start|>user\nGuess a number between 1 and 3.<|im_end|>\n<|im_start|>assistant\nEnter your first guess.',
    );
    const secret = (env.unwrapped as PickEnv).secret;
    const wrong = secret === 3 ? 2 : 3;
    const r1 = await env.step(`\\boxed{${wrong}}`);
    expect(r1.observation).toContain(`<|im_start|>assistant\n`);
    expect(r1.observation).toContain(
      `\\boxed{${wrong}}<|im_end|>\n<|im_start|>user\nAt turn 1, you guessed ${wrong}.<|im_end|>`,
    );
    expect(r1.observation.endsWith('<|im_start|>assistant\nEnter your next guess.')).toBe(true);
  });

  it('concat_chat_on_reset renders only the reset observation as chat', async () => {
    const env = new ObservationWrapper(new PickEnv(3), { mode: 'concat_chat_on_reset', renderer });
    await env.reset(3);
    const r = await env.step('\\boxed{x}');
    expect(r.observation).toBe(
      '<|im_start|>user\nGuess a number between 1 and 3.<|im_end|>\n<|im_start|>assistant\n\\boxed{x}\nAt turn 1, you did not provide a valid guess.\nEnter your next guess.',
    );
    expect(r.reward).toBe(-0.1);
    expect(r.terminated).toBe(true);
  });

  it('chat modes need a renderer; unknown wrapper names are refused by name', () => {
    expect(() => new ObservationWrapper(new PickEnv(), { mode: 'concat_chat' })).toThrow(ConfigError);
    expect(() => getWrapperFns('concat,concat_chats', { renderer })).toThrow(
      /unknown env wrapper "concat_chats".*concat_chat/,
    );
    expect(() => getWrapperFns('search_tool')).toThrow(/search_collection=/);
    expect(getWrapperFns(' concat , episode_tracking ')).toHaveLength(2);
    expect(getWrapperFns('')).toHaveLength(0);
  });

  it('episode_tracking counts steps and rewards and reports the previous episode at reset', async () => {
    const env = new EpisodeTrackingWrapper(new PickEnv(4, 3));
    let info = (await env.reset(4)).info;
    expect(info).toMatchObject({ step_counter: 0, cumulative_rewards: 0, prev_ep_step_counter: 0 });
    const r1 = await env.step('no box');
    expect(r1.info).toMatchObject({ step_counter: 1, cumulative_rewards: -0.1 });
    info = (await env.reset()).info;
    expect(info).toMatchObject({ step_counter: 0, prev_ep_step_counter: 1, prev_ep_cumulative_rewards: -0.1 });
  });
});
