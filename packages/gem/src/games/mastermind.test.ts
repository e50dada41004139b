import { describe, expect, it } from 'vitest';
import { Mastermind, mastermindPegs } from './mastermind.js';

describe('mastermindPegs', () => {
  it('counts black pegs, then white pegs with multiplicity', () => {
    expect(mastermindPegs([1, 2, 3, 4], [1, 2, 3, 4])).toEqual([4, 0]);
    expect(mastermindPegs([1, 2, 3, 4], [4, 3, 2, 1])).toEqual([0, 4]);
    expect(mastermindPegs([1, 1, 2, 2], [1, 2, 1, 1])).toEqual([1, 2]);
    expect(mastermindPegs([1, 2, 3, 4], [5, 6, 5, 6])).toEqual([0, 0]);
  });
});

describe('Mastermind', () => {
  it('starts with the GEM instructions and no suffix in the reset info', async () => {
    const env = new Mastermind({ codeLength: 4, numNumbers: 8, maxTurns: 30 });
    const r = await env.reset(1);
    expect(r.info).toEqual({});
    expect(r.observation).toContain('You have to guess the secret 4 digit code within 30 turns.\n');
    expect(r.observation).toContain(
      'The code consists of digits from 1 to 8 (inclusive). Duplicate numbers are not allowed.\n',
    );
    expect(r.observation).toMatch(/for example, \\boxed\{\d \d \d \d\}\.\n/);
    expect(r.observation.endsWith('Enter your first guess to start the game.\n')).toBe(true);
    expect(new Set(env.secretCode).size).toBe(4);
  });

  it('pays each new best black count once, so a win totals 1.0', async () => {
    const env = new Mastermind({ codeLength: 2, numNumbers: 6, maxTurns: 10 });
    await env.reset(3);
    const [a, b] = env.secretCode as [number, number];
    const other = [1, 2, 3, 4, 5, 6].find((d) => d !== a && d !== b)!;
    const s1 = await env.step(`\\boxed{${a} ${other}}`);
    expect(s1.observation).toBe(
      `At turn 1, you guessed [${a}, ${other}]. This guess receives 1 black peg(s) and 0 white peg(s).`,
    );
    expect(s1.reward).toBe(0.5);
    expect(s1.info).toEqual({ suffix: 'Enter your guess.' });
    const s2 = await env.step(`\\boxed{${other} ${b}}`);
    expect(s2.reward).toBe(0);
    const s3 = await env.step(`\\boxed{${b} ${a}}`);
    expect(s3.observation).toBe(
      `At turn 3, you guessed [${b}, ${a}]. This guess receives 0 black peg(s) and 2 white peg(s).`,
    );
    const s4 = await env.step(`\\boxed{${a}   ${b}}`);
    expect(s4.observation).toBe(`Congratulations! You guessed the correct code [${a}, ${b}] in 4 turns.`);
    expect([s4.reward, s4.terminated, s4.truncated]).toEqual([0.5, true, false]);
  });

  it('marks wrong length, out-of-range digits and repeats invalid; commas are a format error', async () => {
    const env = new Mastermind({ codeLength: 2, numNumbers: 6, maxTurns: 10 });
    await env.reset(3);
    expect((await env.step('\\boxed{1 2 3}')).observation).toBe(
      'At turn 1, you guessed [1, 2, 3] which has 3 entries but the code has length 2.',
    );
    expect((await env.step('\\boxed{1 7}')).observation).toBe(
      'At turn 2, you guessed [1, 7], which has numbers outside the range 1 to 6.',
    );
    await env.step('\\boxed{5 6}');
    const rep = await env.step('\\boxed{5 6}');
    expect(rep.observation).toBe('At turn 4, you guessed [5, 6], which has been already guessed before.');
    expect([rep.reward, rep.terminated]).toEqual([0, false]);
    const comma = await env.step('\\boxed{1, 2}');
    expect(comma).toMatchObject({
      observation: 'At turn 5, you did not provide a valid guess.',
      reward: -0.1,
      terminated: true,
    });
  });

  it('random variant picks one of GEM settings', async () => {
    const env = new Mastermind({ codeLength: null, numNumbers: null });
    const seen = new Set<string>();
    for (let s = 0; s < 60; s++) {
      await env.reset(s);
      seen.add(`${env.codeLength},${env.numNumbers},${env.maxTurns}`);
    }
    expect([...seen].sort()).toEqual(['2,4,10', '4,6,20', '4,8,30']);
  });
});
