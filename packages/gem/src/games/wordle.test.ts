import { describe, expect, it } from 'vitest';
import { basicWordsOfLength } from './internal/en-basic-words.js';
import { Wordle, wordleFeedback } from './wordle.js';

describe('wordleFeedback', () => {
  it('marks greens first, then yellows leftmost while letters remain', () => {
    expect(wordleFeedback('APPLE', 'PAPER')).toEqual(['Y', 'Y', 'G', 'Y', 'X']);
    expect(wordleFeedback('ABBEY', 'BBBBB')).toEqual(['X', 'G', 'G', 'X', 'X']);
    expect(wordleFeedback('CAT', 'TAC')).toEqual(['Y', 'G', 'Y']);
  });
});

describe('Wordle', () => {
  it('uses the Basic English words GEM filters (counts by length)', () => {
    expect([3, 4, 5].map((n) => basicWordsOfLength(n).length)).toEqual([90, 241, 192]);
  });

  it('pays 0.5/length per new green and 0.5 on the win', async () => {
    const env = new Wordle({ wordLength: 3, maxTurns: 15 });
    await env.reset(8);
    const secret = env.secretWord;
    const first = `${secret[0]}QQ`;
    const s1 = await env.step(`\\boxed{${first.toLowerCase()}}`);
    const fb = wordleFeedback(secret, first);
    expect(s1.observation).toBe(`At turn 1, you guessed ${first}\nFeedback:\n${first}\n['${fb.join("', '")}']`);
    expect(s1.reward).toBeCloseTo(0.5 / 3, 12);
    expect(s1.info).toEqual({ suffix: 'Enter your guess.' });
    const s2 = await env.step(`\\boxed{${secret[0]} ${secret.slice(1)}}`);
    expect(s2.observation).toBe(`Congratulations! You guessed the secret word ${secret} in 2 turns.`);
    expect(s2.reward).toBeCloseTo((2 * 0.5) / 3 + 0.5, 12);
    expect([s2.terminated, s2.truncated]).toEqual([true, false]);
  });

  it('marks wrong length and repeats invalid; digits are a format error', async () => {
    const env = new Wordle({ wordLength: 5, maxTurns: 25 });
    await env.reset(2);
    expect((await env.step('\\boxed{ab}')).observation).toBe(
      'At turn 1, you guessed AB which has 2 letters but the secret word has 5 letters.',
    );
    await env.step('\\boxed{qqqqz}');
    const rep = await env.step('\\boxed{QQQQZ}');
    expect(rep.observation).toBe('At turn 3, you guessed QQQQZ, which has been already guessed before.');
    expect(rep.reward).toBe(0);
    expect(await env.step('\\boxed{12345}')).toMatchObject({ reward: -0.1, terminated: true, truncated: false });
  });

  it('random variant draws length 3..5 with 5 * length turns', async () => {
    const env = new Wordle({ wordLength: null });
    const seen = new Set<number>();
    for (let s = 0; s < 40; s++) {
      await env.reset(s);
      expect(env.maxTurns).toBe(5 * env.wordLength);
      expect(env.secretWord).toHaveLength(env.wordLength);
      seen.add(env.wordLength);
    }
    expect([...seen].sort()).toEqual([3, 4, 5]);
  });
});
