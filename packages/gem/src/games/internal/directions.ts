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

/** The last `\boxed{up|down|left|right}` of `action` (lower-cased), matching case-insensitively when asked. */
export function lastDirection(action: string, ignoreCase: boolean): Direction | undefined {
  const pattern = ignoreCase ? /\\boxed\{(up|down|left|right)\}/gi : /\\boxed\{(up|down|left|right)\}/g;
  let last: string | undefined;
  for (const m of action.matchAll(pattern)) last = m[1];
  return last === undefined ? undefined : (last.toLowerCase() as Direction);
}
