import { ConfigError, Sfc32Rng } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { lastBoxed, pyList, pyRound } from './boxed.js';
import type { Env } from './env.js';
import { make, registerEnv } from './registry.js';

describe('Sfc32Rng', () => {
  it('reproduces a stream from its seed and differs across seeds', () => {
    const a = new Sfc32Rng(7);
    const b = new Sfc32Rng(7);
    const c = new Sfc32Rng(8);
    const xs = Array.from({ length: 20 }, () => a.int(1, 100));
    expect(Array.from({ length: 20 }, () => b.int(1, 100))).toEqual(xs);
    expect(Array.from({ length: 20 }, () => c.int(1, 100))).not.toEqual(xs);
  });

  it('draws every value of a small range, inside the bounds', () => {
    const r = new Sfc32Rng(1);
    const seen = new Set<number>();
    for (let i = 0; i < 500; i++) {
      const x = r.int(3, 6);
      expect(x).toBeGreaterThanOrEqual(3);
      expect(x).toBeLessThanOrEqual(6);
      seen.add(x);
    }
    expect([...seen].sort()).toEqual([3, 4, 5, 6]);
  });

  it('samples distinct items', () => {
    const s = new Sfc32Rng(3).sample([1, 2, 3, 4, 5], 5);
    expect([...s].sort()).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('parsing helpers', () => {
  it('takes the last \\boxed{} of a response', () => {
    expect(lastBoxed('I guess \\boxed{3} no, \\boxed{7}.')).toBe('7');
    expect(lastBoxed('no box here')).toBeUndefined();
  });

  it('prints lists and rounds as Python does', () => {
    expect(pyList([1, 2])).toBe('[1, 2]');
    expect(pyList(['G', 'X'])).toBe("['G', 'X']");
    expect([pyRound(4.5), pyRound(5.5), pyRound(16.5), pyRound(2.4), pyRound(-2.5)]).toEqual([4, 6, 16, 2, -2]);
  });
});

describe('registry', () => {
  it('merges registered defaults with the caller options and names near misses', () => {
    const made: Record<string, unknown>[] = [];
    const factory = (options: Record<string, unknown>): Env => {
      made.push(options);
      return {
        reset: async () => ({ observation: '', info: {} }),
        step: async () => ({ observation: '', reward: 0, terminated: true, truncated: false, info: {} }),
        sampleRandomAction: () => '\\boxed{1}',
      };
    };
    registerEnv('test:Core-v0', factory, { a: 1, b: 2 });
    const env = make('test:Core-v0', { b: 3 });
    expect(made[0]).toEqual({ a: 1, b: 3 });
    expect(env.envId).toBe('test:Core-v0');
    expect(() => registerEnv('test:Core-v0', factory)).toThrow(ConfigError);
    expect(() => make('test:Core-v1')).toThrow(/unknown env id "test:Core-v1"; did you mean "test:Core-v0"/);
  });
});
