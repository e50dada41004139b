import { pyLastMatch, pyLower, pyRegExp } from '../../core/python-text.js';

/** The four move words the sliding games (2048, FifteenPuzzle, Sokoban) accept. */
export const DIRECTIONS = ['up', 'down', 'left', 'right'] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** Row and column deltas of each direction. */
export const DELTA: Record<Direction, readonly [number, number]> = {
  up: [-1, 0],
  down: [1, 0],
  left: [0, -1],
  right: [0, 1],
};

const DIRECTION_PATTERN = pyRegExp(String.raw`\\boxed\{(up|down|left|right)\}`);
const DIRECTION_PATTERN_IGNORE_CASE = pyRegExp(String.raw`\\boxed\{(up|down|left|right)\}`, { ignoreCase: true });

/** A parsed move: the lower-cased word GEM echoes, and the direction it names (if it is one of the four). */
export interface ParsedMove {
  word: string;
  direction: Direction | undefined;
}

/**
 * The last `\boxed{up|down|left|right}` of `action`, lower-cased with Python's `str.lower()`. With `ignoreCase`
 * (Python's IGNORECASE) `RIGHT` matches, and so do `rıght` (dotless ı) and `rİght`, whose lower-case forms (`rıght`,
 * `ri̇ght`) are not direction words: GEM echoes them in its "invalid move" answer.
 */
export function lastDirection(action: string, ignoreCase: boolean): ParsedMove | undefined {
  const m = pyLastMatch(action, ignoreCase ? DIRECTION_PATTERN_IGNORE_CASE : DIRECTION_PATTERN);
  if (m === undefined) return undefined;
  const word = pyLower(m[1]!);
  return { word, direction: (DIRECTIONS as readonly string[]).includes(word) ? (word as Direction) : undefined };
}
