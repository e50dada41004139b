/**
 * Action parsing shared by the games: GEM reads the LAST `\boxed{…}` in the whole response.
 */

import { ConfigError } from '@cookbook/core';

const BOXED = /\\boxed\{([^{}]*)\}/g;

/** The content of the last `\boxed{…}` (no nested braces), or `undefined` when there is none. */
export function lastBoxed(text: string): string | undefined {
  let last: string | undefined;
  for (const m of text.matchAll(BOXED)) last = m[1];
  return last;
}

/** Every match of `pattern` (which must have the `g` flag); the last one wins in GEM. */
export function lastMatch(text: string, pattern: RegExp): RegExpMatchArray | undefined {
  if (!pattern.global) throw new ConfigError('lastMatch: pattern needs the g flag');
  let last: RegExpMatchArray | undefined;
  for (const m of text.matchAll(pattern)) last = m;
  return last;
}

/** Python's `str()` of a list of numbers or strings, as GEM observations print them: `[1, 2]`, `['G', 'X']`. */
export function pyList(items: readonly (string | number | bigint)[]): string {
  return `[${items.map((x) => (typeof x === 'string' ? `'${x}'` : String(x))).join(', ')}]`;
}

/** Python's `round()` (banker's rounding: 4.5 → 4, 5.5 → 6). */
export function pyRound(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
