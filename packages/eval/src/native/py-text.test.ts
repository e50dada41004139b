/**
 * Python's string semantics as the IFBench checkers need them, against what CPython 3 gives for the same calls
 * (`'aaaa'.count('aa')`, `'héllo'[-3:5]`, `re.match(r'^abc$', 'abc\n')`, …).
 */
import { describe, expect, it } from 'vitest';
import { matchPy, pyCount, pySlice } from './py-text.js';

describe("Python's str.count, slicing and re.match", () => {
  it('counts non-overlapping occurrences, and an empty needle at every position', () => {
    expect(pyCount('aaaa', 'aa')).toBe(2);
    expect(pyCount('abc', '')).toBe(4);
    expect(pyCount('a🎉b', '')).toBe(4);
    expect(pyCount('abc', 'x')).toBe(0);
  });

  it('slices by code points, with negative and out-of-range indices', () => {
    expect(pySlice('héllo', -3, 5)).toBe('llo');
    expect(pySlice('abc', -10, 2)).toBe('ab');
    expect(pySlice('abc', 1, 10)).toBe('bc');
    expect(pySlice('a🎉b', 1, 2)).toBe('🎉');
    expect(pySlice('abc', -1, -5)).toBe('');
  });

  it('lets `$` match before one final newline, as re.match does', () => {
    expect(matchPy(/^abc$/u, 'abc\n')).toBe(true);
    expect(matchPy(/^abc$/u, 'abc\n\n')).toBe(false);
    expect(matchPy(/^abc$/u, 'abcd')).toBe(false);
  });
});
