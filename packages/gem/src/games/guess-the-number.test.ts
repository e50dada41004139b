import { ConfigError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { GuessTheNumber } from './guess-the-number.js';
import { GAME_SPECS } from './index.js';
import { guessTheNumberPlayer } from './players.js';

const easy = () => new GuessTheNumber({ minNumber: 1, maxNumber: 10, maxTurns: 4 });

describe('GuessTheNumber', () => {
  it('starts with GEM instructions and the suffix in info', async () => {
    const env = easy();
    const { observation, info } = await env.reset(3);
    const lines = observation.split('\n');
    expect(lines[0]).toBe('You are playing Guess The Number.');
    expect(lines[1]).toBe('You have to guess the number between 1 and 10 (inclusive) within 4 turns.');
    expect(lines[3]).toMatch(/for example, \\boxed\{\d+\}\.$/);
    expect(lines[5]).toBe('Enter your first guess to start the game.');
    expect(observation.endsWith('\n')).toBe(true);
    expect(info).toEqual({ suffix: 'Enter your next guess.' });
  });

  it('gives hints, wins with 1.0, and the last \\boxed{} counts', async () => {
    const env = easy();
    await env.reset(11);
    const t = env.targetNumber;
    const wrong = t === 10 ? 1 : 10;
    const s1 = await env.step(`maybe \\boxed{${t}}? no: \\boxed{${wrong}}`);
    const hint = wrong > t ? 'lower' : 'higher';
    expect(s1).toEqual({
      observation: `At turn 1, you guessed ${wrong}, and the target number is ${hint} than ${wrong}.`,
      reward: 0,
      terminated: false,
      truncated: false,
      info: { suffix: 'Enter your next guess.' },
    });
    const s2 = await env.step(`\\boxed{${t}}`);
    expect(s2.observation).toBe(`Congratulations! You guessed the correct number ${t} in 2 turns.`);
    expect([s2.reward, s2.terminated, s2.truncated]).toEqual([1, true, false]);
  });

  it('marks out-of-range and repeated guesses invalid (0, a turn spent)', async () => {
    const env = new GuessTheNumber({ minNumber: 1, maxNumber: 50, maxTurns: 7 });
    await env.reset(5);
    const t = env.targetNumber;
    const g = t === 1 ? 2 : 1;
    const s1 = await env.step('\\boxed{51}');
    expect(s1.observation).toBe('At turn 1, you guessed 51, which is outside the range specified.');
    expect(s1.reward).toBe(0);
    await env.step(`\\boxed{${g}}`);
    const s3 = await env.step(`\\boxed{${g}}`);
    expect(s3.observation).toBe(`At turn 3, you guessed ${g}, which has been already guessed before.`);
    expect([s3.reward, s3.terminated]).toEqual([0, false]);
  });

  it('ends on a format error with -0.1 (no box, a sign, or 0)', async () => {
    for (const bad of ['I guess 5', '\\boxed{-3}', '\\boxed{0}', '\\boxed{ 4}']) {
      const env = easy();
      await env.reset(1);
      const s = await env.step(bad);
      expect(s.observation).toBe('At turn 1, you did not provide a valid guess.');
      expect([s.reward, s.terminated, s.truncated]).toEqual([-0.1, true, false]);
    }
  });

  it('pays 1 - |g - t| / (max - min) at the turn limit, 0 if out of range; both flags set', async () => {
    const env = new GuessTheNumber({ minNumber: 1, maxNumber: 10, maxTurns: 2 });
    await env.reset(2);
    const t = env.targetNumber;
    const a = t === 1 ? 2 : 1;
    const b = t === 10 ? 9 : 10;
    await env.step(`\\boxed{${a}}`);
    const last = await env.step(`\\boxed{${b}}`);
    expect(last.observation).toBe('You have reached the maximum number of turns.');
    expect(last.reward).toBeCloseTo(1 - Math.abs(b - t) / 9, 12);
    expect([last.terminated, last.truncated]).toEqual([true, true]);

    await env.reset(2);
    await env.step(`\\boxed{${a}}`);
    const out = await env.step('\\boxed{99}');
    expect([out.reward, out.terminated, out.truncated]).toEqual([0, true, true]);
    // A format error on the last turn sets truncated too.
    await env.reset(2);
    await env.step(`\\boxed{${a}}`);
    expect(await env.step('no')).toMatchObject({ reward: -0.1, terminated: true, truncated: true });
  });

  it('reproduces an episode from a seed, independently of other envs', async () => {
    const a = new GuessTheNumber({ minNumber: null, maxNumber: null });
    const b = new GuessTheNumber({ minNumber: null, maxNumber: null });
    const r1 = await a.reset(42);
    await b.reset(7);
    const r2 = await b.reset(42);
    expect(r2.observation).toBe(r1.observation);
    expect(b.targetNumber).toBe(a.targetNumber);
  });

  it('random variant draws min in 1..10, max in min+5..min+50, turns ceil(sqrt(max-min))+1', async () => {
    const env = new GuessTheNumber({ minNumber: null, maxNumber: null });
    const mins = new Set<number>();
    for (let s = 0; s < 200; s++) {
      await env.reset(s);
      const span = env.maxNumber - env.minNumber;
      mins.add(env.minNumber);
      expect(env.minNumber).toBeGreaterThanOrEqual(1);
      expect(env.minNumber).toBeLessThanOrEqual(10);
      expect(span).toBeGreaterThanOrEqual(5);
      expect(span).toBeLessThanOrEqual(50);
      expect(env.maxTurns).toBe(Math.ceil(Math.sqrt(span)) + 1);
    }
    expect(mins.size).toBe(10);
  });

  it('rejects bad options with a ConfigError naming the key', () => {
    expect(() => new GuessTheNumber({ max_turns: 0 })).toThrow(ConfigError);
    expect(() => new GuessTheNumber({ max_turns: 0 })).toThrow(/maxTurns/);
    expect(() => new GuessTheNumber({ minNumber: 5, maxNumber: 5 })).toThrow(/maxNumber/);
  });

  it('the bisection player always wins the registered variants within the turn limit', async () => {
    for (const id of ['game:GuessTheNumber-v0-easy', 'game:GuessTheNumber-v0-hard', 'game:GuessTheNumber-v0-random']) {
      const spec = GAME_SPECS.find((s) => s.id === id)!;
      const env = spec.factory({ ...spec.defaults }) as GuessTheNumber;
      for (let seed = 0; seed < 30; seed++) {
        const history = [(await env.reset(seed)).observation];
        let done = false;
        let reward = 0;
        while (!done) {
          const s = await env.step(guessTheNumberPlayer(history));
          history.push(s.observation);
          done = s.terminated;
          reward = s.reward;
        }
        expect(reward, `${id} seed ${seed}`).toBe(1);
      }
    }
  });
});
