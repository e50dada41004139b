import { ConfigError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { PickEnv } from '../__fixtures__/pick-env.js';
import { makeVec, VectorEnv } from './vector-env.js';

const bad = '\\boxed{x}'; // a format error: reward -0.1, the episode ends

describe('VectorEnv', () => {
  it('same_step: a finished env returns the new episode’s first observation with the final reward and flags', async () => {
    const envs = [new PickEnv(0), new PickEnv(1)];
    const vec = new VectorEnv(envs);
    const r = await vec.reset(10);
    expect(r.observations).toEqual(['Guess a number between 1 and 3.', 'Guess a number between 1 and 3.']);
    const s = await vec.step([bad, '\\boxed{9}']);
    expect(s.rewards).toEqual([-0.1, 0]);
    expect(s.terminated).toEqual([true, false]);
    expect(s.observations[0]).toBe('Guess a number between 1 and 3.');
    expect(s.infos[0]).toEqual({ suffix: 'Enter your first guess.' });
    expect(envs[0]!.resets).toBe(2);
    expect(s.observations[1]).toBe('At turn 1, you guessed 9.');
  });

  it('next_step: the next call resets the finished env, ignores its action, and returns reward 0', async () => {
    const envs = [new PickEnv(0), new PickEnv(1)];
    const vec = new VectorEnv(envs, { autoresetMode: 'next_step' });
    await vec.reset();
    const s1 = await vec.step([bad, '\\boxed{9}']);
    expect(s1.observations[0]).toBe('At turn 1, you did not provide a valid guess.');
    expect(envs[0]!.resets).toBe(1);
    const s2 = await vec.step({ 0: '\\boxed{1}' });
    expect(s2.indices).toEqual([0]);
    expect(s2).toMatchObject({ rewards: [0], terminated: [false], truncated: [false] });
    expect(s2.observations[0]).toBe('Guess a number between 1 and 3.');
    expect(envs[0]!.resets).toBe(2);
    expect(envs[0]!.turn).toBe(0);
  });

  it('seeds env i with seed + i and reproduces episodes', async () => {
    const a = new VectorEnv([new PickEnv(), new PickEnv(), new PickEnv()]);
    const b = new VectorEnv([new PickEnv(), new PickEnv(), new PickEnv()]);
    await a.reset(100);
    await b.reset(100);
    const secrets = (v: VectorEnv) => v.envs.map((e) => (e as PickEnv).secret);
    expect(secrets(a)).toEqual(secrets(b));
    const single = new PickEnv();
    await single.reset(102);
    expect(single.secret).toBe(secrets(a)[2]);
  });

  it('refuses wrong action counts and indices', async () => {
    const vec = new VectorEnv([new PickEnv()]);
    await expect(vec.step(['a', 'b'])).rejects.toThrow(ConfigError);
    await expect(vec.step({ 3: 'a' })).rejects.toThrow(/out of range/);
    expect(() => new VectorEnv([])).toThrow(ConfigError);
  });

  it('makeVec makes registered games with their wrappers', async () => {
    const vec = makeVec(['game:GuessTheNumber-v0-easy', 'game:GuessTheNumber-v0-hard'], { seed: 5 });
    const r = await vec.reset(5);
    expect(r.observations[0]).toContain('between 1 and 10');
    expect(r.observations[1]).toContain('between 1 and 50');
  });
});
