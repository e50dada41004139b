import { ConfigError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { Hangman } from './hangman.js';

describe('Hangman', () => {
  it('renders the grid in the suffix and reveals every occurrence of a letter', async () => {
    const env = new Hangman({ wordLength: 7, maxTurns: 20 });
    const r = await env.reset(6);
    expect(r.observation.startsWith('You are playing Hangman.\n')).toBe(true);
    expect(r.observation).toContain('guess the 7-letter word');
    expect(r.observation.endsWith('2. You have to win within 20 turns.\n\n')).toBe(true);
    expect(r.info.suffix).toBe(
      'Here is the current state of the Hangman grid:\nC00 C01 C02 C03 C04 C05 C06\n  _   _   _   _   _   _   _ \n\nEnter your guess.',
    );
    const secret = env.secretWord;
    const letter = secret[1]!;
    const count = [...secret].filter((c) => c === letter).length;
    const s = await env.step(`\\boxed{${letter.toLowerCase()}}`);
    expect(s.observation).toBe(`At turn 1, you successfully guessed a letter '${letter}' that is in the secret word.`);
    expect(s.reward).toBeCloseTo((0.5 * count) / 7, 12);
    const row = [...secret].map((c) => `  ${c === letter ? c : '_'} `).join('');
    expect(s.info.suffix).toBe(
      `Here is the current state of the Hangman grid:\nC00 C01 C02 C03 C04 C05 C06\n${row}\n\nEnter your guess.`,
    );
    const again = await env.step(`\\boxed{${letter}}`);
    expect(again.observation).toBe(`At turn 2, you guessed '${letter}', which has been already guessed before.`);
    expect(again.reward).toBe(0);
  });

  it('pays 0.5 * hidden fraction + 0.5 for the right word; wrong words cost 0', async () => {
    const env = new Hangman({ wordLength: 3, maxTurns: 10 });
    await env.reset(4);
    const secret = env.secretWord;
    const missing = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'].find((c) => !secret.includes(c))!;
    expect((await env.step(`\\boxed{${missing}}`)).observation).toBe(
      `At turn 1, you guessed a letter '${missing}' that is not in the secret word.`,
    );
    expect((await env.step('\\boxed{ZZZZ}')).observation).toBe(
      "At turn 2, You guessed 'ZZZZ' which is of length 4, but the secret word is of length 3.",
    );
    const wrong = secret === 'ZZZ' ? 'QQQ' : 'ZZZ';
    expect(await env.step(`\\boxed{${wrong}}`)).toMatchObject({
      observation: `At turn 3, You guessed '${wrong}' which is incorrect.`,
      reward: 0,
      terminated: false,
    });
    await env.step(`\\boxed{${secret[0]}}`);
    const hidden = [...secret].filter((c) => c !== secret[0]).length / 3;
    const win = await env.step(`\\boxed{${secret.toLowerCase()}}`);
    expect(win.observation).toBe(`Congratulations! You guessed the word '${secret}' correctly!`);
    expect(win.reward).toBeCloseTo(0.5 * hidden + 0.5, 12);
    expect([win.terminated, win.truncated]).toEqual([true, false]);
  });

  it('revealing every letter does not win; the turn limit ends it', async () => {
    const env = new Hangman({ wordLength: 3, maxTurns: 4 });
    await env.reset(10);
    const letters = [...new Set(env.secretWord)];
    let total = 0;
    let last = await env.step(`\\boxed{${letters[0]}}`);
    total += last.reward;
    for (const l of letters.slice(1)) {
      last = await env.step(`\\boxed{${l}}`);
      total += last.reward;
    }
    expect(total).toBeCloseTo(0.5, 12);
    expect(last.terminated).toBe(false);
    while (!last.terminated) last = await env.step('\\boxed{Q}');
    expect(last.observation).toBe('You have reached the maximum number of turns.');
    expect(last.truncated).toBe(true);
  });

  it('a format error says so and ends the episode', async () => {
    const env = new Hangman({ wordLength: 5 });
    await env.reset(1);
    expect(await env.step('\\boxed{a b}')).toMatchObject({
      observation: 'You did not provide a valid guess.',
      reward: -0.1,
      terminated: true,
    });
  });

  it('random variant uses GEM settings; hardcore draws long-list words', async () => {
    const env = new Hangman({ wordLength: null });
    const seen = new Set<string>();
    for (let s = 0; s < 40; s++) {
      await env.reset(s);
      seen.add(`${env.wordLength},${env.maxTurns}`);
    }
    expect([...seen].sort()).toEqual(['3,10', '5,15', '7,20']);
    const hard = new Hangman({ hardcore: true, wordLength: 9 });
    await hard.reset(3);
    expect(hard.secretWord).toMatch(/^[A-Z]{9}$/);
    expect(() => new Hangman({ wordLength: 40 })).toThrow(ConfigError);
    expect(() => new Hangman({ hardcore: 'yes' })).toThrow(/hardcore/);
  });
});
