/**
 * Scripted players for warm starts and demonstrations: each reads the observation history of an episode (the
 * reset observation, then every step observation, as separate strings or already concatenated) and returns the
 * next action as a `\boxed{…}` string. They read only what a model sees, never the env's hidden state.
 */

/** Joins a history given as one string or a list of observations. */
function historyText(history: string | readonly string[]): string {
  return typeof history === 'string' ? history : history.join('\n');
}

/**
 * Bisection for GuessTheNumber: keeps the interval allowed by the range in the instructions and every
 * `higher`/`lower` hint, and guesses its midpoint (rounded down). Finds any target in ⌈log2(max - min + 1)⌉ guesses.
 */
export function guessTheNumberPlayer(history: string | readonly string[]): string {
  const text = historyText(history);
  const range = /guess the number between (\d+) and (\d+)/.exec(text);
  let lo = range ? Number(range[1]) : 1;
  let hi = range ? Number(range[2]) : 100;
  for (const m of text.matchAll(/you guessed (\d+), and the target number is (higher|lower) than \d+/g)) {
    const g = Number(m[1]);
    if (m[2] === 'higher') lo = Math.max(lo, g + 1);
    else hi = Math.min(hi, g - 1);
  }
  if (hi < lo) hi = lo;
  return `\\boxed{${Math.floor((lo + hi) / 2)}}`;
}

type Peg = 'A' | 'B' | 'C';

/** The next move of the optimal solution from any legal position: disks 1..n to `target`. */
function hanoiNext(pos: Map<number, Peg>, n: number, target: Peg): [Peg, Peg] | undefined {
  for (let d = n; d >= 1; d--) {
    const at = pos.get(d)!;
    if (at === target) continue;
    const spare = (['A', 'B', 'C'] as const).find((p) => p !== at && p !== target)!;
    for (let s = d - 1; s >= 1; s--) {
      if (pos.get(s) !== spare) return hanoiNext(pos, s, spare);
    }
    return [at, target];
  }
  return undefined;
}

/**
 * Optimal Tower of Hanoi: rebuilds the towers from the disk count in the instructions and every
 * `you moved disk d from tower X to tower Y` line, then plays the next move of the shortest solution to C
 * (2^n - 1 moves from the start; it also recovers from any legal position).
 */
export function towerOfHanoiPlayer(history: string | readonly string[]): string {
  const text = historyText(history);
  const n = Number(/Tower of Hanoi with (\d+) disks/.exec(text)?.[1] ?? 3);
  const pos = new Map<number, Peg>();
  for (let d = 1; d <= n; d++) pos.set(d, 'A');
  for (const m of text.matchAll(/you moved disk (\d+) from tower [ABC] to tower ([ABC])/g)) {
    pos.set(Number(m[1]), m[2] as Peg);
  }
  const move = hanoiNext(pos, n, 'C') ?? ['A', 'B'];
  return `\\boxed{${move[0]} ${move[1]}}`;
}
