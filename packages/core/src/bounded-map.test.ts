import { describe, expect, it } from 'vitest';
import { BoundedMap } from './bounded-map.js';

describe('BoundedMap', () => {
  it('forgets the oldest key past its limit; re-setting a key keeps its place; touch makes it newest', () => {
    const m = new BoundedMap<string, number>(2);
    m.set('a', 1).set('b', 2).set('a', 10).set('c', 3);
    expect([...m]).toEqual([
      ['b', 2],
      ['c', 3],
    ]);
    expect(m.touch('b')).toBe(2);
    m.set('d', 4);
    expect([...m.keys()]).toEqual(['b', 'd']);
    expect(m.touch('zz')).toBeUndefined();
  });

  it('refuses a limit that is not a positive integer', () => {
    expect(() => new BoundedMap(0)).toThrow(/positive integer, got 0/);
    expect(() => new BoundedMap(1.5)).toThrow(/got 1.5/);
  });
});
