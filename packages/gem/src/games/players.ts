/**
 * Scripted players for warm starts and demonstrations: each reads the observation history of an episode (the
 * reset observation, then every step observation, as separate strings or already concatenated) and returns the
 * next action as a `\boxed{…}` string. They read only what a model sees, never the env's hidden state.
 *
 * Players of board games (Hangman's grid, Sudoku) read the LAST board in the text, which GEM puts in
 * `info.suffix`, not in the observation: pass `[...observations, info.suffix]`, or the output of a `concat`
 * observation wrapper (which appends the suffix).
 */
import { pyList } from '../core/boxed.js';
import { slide2048 } from './game-2048.js';
import { basicWordsOfLength } from './internal/en-basic-words.js';
import { historyText, lastBlock } from './internal/history.js';
import { game2048Move, minesweeperMove, slidingPuzzlePlan, sokobanPlan } from './internal/solvers.js';
import { countSudokuSolutions, type SudokuGrid, sudokuSafe } from './internal/sudoku-grid.js';
import { mastermindPegs } from './mastermind.js';
import { crosswordsPlayer, wordSearchPlayer } from './word-puzzle-players.js';
import { wordleFeedback } from './wordle.js';

export { crosswordsPlayer, wordSearchPlayer };

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

/** Every code of `length` digits from 1..`digits` (distinct digits unless `duplicates`), in lexicographic order. */
function allCodes(length: number, digits: number, duplicates: boolean): number[][] {
  const out: number[][] = [];
  const code: number[] = [];
  const rec = (): void => {
    if (code.length === length) {
      out.push([...code]);
      return;
    }
    for (let d = 1; d <= digits; d++) {
      if (!duplicates && code.includes(d)) continue;
      code.push(d);
      rec();
      code.pop();
    }
  };
  rec();
  return out;
}

/**
 * Mastermind by consistency: enumerates the codes the instructions allow and plays the first one (in
 * lexicographic order) that agrees with every black/white feedback so far. Solves 4 digits of 1..8 in about 6
 * guesses on average.
 */
export function mastermindPlayer(history: string | readonly string[]): string {
  const text = historyText(history);
  const length = Number(/guess the secret (\d+) digit code/.exec(text)?.[1] ?? 4);
  const digits = Number(/digits from 1 to (\d+)/.exec(text)?.[1] ?? 6);
  const duplicates = /Duplicate numbers are allowed/.test(text);
  const feedback: [number[], number, number][] = [];
  for (const m of text.matchAll(
    /you guessed \[([\d, ]+)\]\. This guess receives (\d+) black peg\(s\) and (\d+) white/g,
  )) {
    feedback.push([m[1]!.split(', ').map(Number), Number(m[2]), Number(m[3])]);
  }
  const tried = new Set(feedback.map(([g]) => pyList(g)));
  const fits = (code: number[]): boolean =>
    !tried.has(pyList(code)) &&
    feedback.every(([g, b, w]) => {
      const [b2, w2] = mastermindPegs(code, g);
      return b2 === b && w2 === w;
    });
  const pick = allCodes(length, digits, duplicates).find(fits) ?? Array.from({ length }, (_, i) => (i % digits) + 1);
  return `\\boxed{${pick.join(' ')}}`;
}

/**
 * Wordle over the Basic English list the secret comes from: keeps the words whose feedback would match every
 * `Feedback:` block so far and plays the first one not yet guessed.
 */
export function wordlePlayer(history: string | readonly string[]): string {
  const text = historyText(history);
  const length = Number(/guess the secret (\d+)-letter word/.exec(text)?.[1] ?? 5);
  const seen: [string, string][] = [];
  for (const m of text.matchAll(/Feedback:\n([A-Z]+)\n\[([^\]]*)\]/g)) {
    seen.push([m[1]!, m[2]!.replace(/[^GXY]/g, '')]);
  }
  const tried = new Set(seen.map(([g]) => g));
  const words = basicWordsOfLength(length).map((w) => w.toUpperCase());
  const pick =
    words.find((w) => !tried.has(w) && seen.every(([g, f]) => wordleFeedback(w, g).join('') === f)) ??
    words.find((w) => !tried.has(w)) ??
    'A'.repeat(length);
  return `\\boxed{${pick}}`;
}

/**
 * Hangman over the Basic English list: keeps the words that fit the last grid shown (`C00 C01 …` over the
 * letters) and the letters known to be absent; guesses the word once one candidate is left, else the unguessed
 * letter that most candidates contain.
 */
export function hangmanPlayer(history: string | readonly string[]): string {
  const text = historyText(history);
  const length = Number(/guess the (\d+)-letter word/.exec(text)?.[1] ?? 5);
  const guessed = new Set<string>();
  const absent = new Set<string>();
  for (const m of text.matchAll(/you (?:successfully )?guessed (?:a letter )?'([A-Z])'/g)) guessed.add(m[1]!);
  for (const m of text.matchAll(/guessed a letter '([A-Z])' that is not in/g)) absent.add(m[1]!);
  const wrongWords = new Set([...text.matchAll(/You guessed '([A-Z]{2,})' which is incorrect/g)].map((m) => m[1]!));
  let pattern: string[] | undefined;
  for (const m of text.matchAll(/C00[ C\d]*\n((?: {2}[A-Z_] )+)/g)) {
    pattern = [...m[1]!.matchAll(/ {2}([A-Z_]) /g)].map((x) => x[1]!);
  }
  const present = [...guessed].filter((c) => !absent.has(c));
  const fits = (w: string): boolean =>
    !wrongWords.has(w) &&
    (pattern !== undefined || present.every((c) => w.includes(c))) &&
    [...w].every((c, i) => {
      const shown = pattern?.[i];
      if (shown !== undefined && shown !== '_') return c === shown;
      return !absent.has(c) && !(pattern !== undefined && guessed.has(c));
    });
  const candidates = basicWordsOfLength(length)
    .map((w) => w.toUpperCase())
    .filter(fits);
  if (candidates.length === 1) return `\\boxed{${candidates[0]}}`;
  const counts = new Map<string, number>();
  for (const w of candidates) for (const c of new Set(w)) if (!guessed.has(c)) counts.set(c, (counts.get(c) ?? 0) + 1);
  const best = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
  const fallback = [...'ETAOINSHRDLCUMWFGYPBVKJXQZ'].find((c) => !guessed.has(c)) ?? 'E';
  return `\\boxed{${best ?? fallback}}`;
}

/** Solves a Sudoku grid in place by backtracking (cells in row-major order); false if it has no solution. */
function solveSudoku(grid: SudokuGrid): boolean {
  const n = grid.length;
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      if (grid[r]![c] !== 0) continue;
      for (let d = 1; d <= n; d++) {
        if (!sudokuSafe(grid, r, c, d)) continue;
        grid[r]![c] = d;
        if (solveSudoku(grid)) return true;
      }
      grid[r]![c] = 0;
      return false;
    }
  }
  return true;
}

/**
 * Sudoku: reads the last board shown (`R1  5  .  | …` rows), solves it (GEM's puzzles have one solution) and
 * fills the first empty cell. Plays `\boxed{1 1 1}` when no board is in the history.
 */
export function sudokuPlayer(history: string | readonly string[]): string {
  const text = historyText(history);
  const boards = text.split(/(?=\s{3}C1 )/);
  const rows = [...(boards[boards.length - 1] ?? '').matchAll(/^R\d+ (.*)$/gm)].map((m) =>
    m[1]!
      .replace(/\|/g, ' ')
      .trim()
      .split(/\s+/)
      .map((x) => (x === '.' ? 0 : Number(x))),
  );
  const n = rows.length;
  if ((n !== 4 && n !== 9) || rows.some((r) => r.length !== n)) return '\\boxed{1 1 1}';
  const grid = rows.map((r) => [...r]);
  if (countSudokuSolutions(grid, 1) === 0 || !solveSudoku(grid)) return '\\boxed{1 1 1}';
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) if (rows[r]![c] === 0) return `\\boxed{${r + 1} ${c + 1} ${grid[r]![c]}}`;
  }
  return '\\boxed{1 1 1}';
}

/** Moves of plans found by the search players, keyed by position, so one search serves a whole episode. */
const planCache = new Map<string, string>();

function remember(key: string, move: string): void {
  if (planCache.size >= 100_000) planCache.clear();
  planCache.set(key, move);
}

/**
 * The sliding puzzle: reads the last board shown and plays the first move of a shortest solution (IDA* with
 * Manhattan distance; 2x2 and 3x3 boards solve at once, 4x4 within a small node budget, else a greedy move).
 */
export function fifteenPuzzlePlayer(history: string | readonly string[]): string {
  const rows = lastBlock(historyText(history), 'Here is the current board layout: \n').map((l) =>
    l
      .trim()
      .split(/\s+/)
      .map((t) => (t === '__' ? 0 : Number(t))),
  );
  const n = rows.length;
  if (n < 2 || rows.some((r) => r.length !== n || r.some((t) => Number.isNaN(t)))) return '\\boxed{up}';
  const tiles = rows.flat();
  const key = `15|${tiles.join(',')}`;
  let move = planCache.get(key);
  if (move === undefined) {
    const plan = slidingPuzzlePlan(tiles, n, n <= 3 ? 5_000_000 : 50_000);
    if (plan !== undefined && plan.length > 0) {
      // Remember the move for every position along the plan, so later turns need no search.
      const board = [...tiles];
      for (const m of plan) {
        remember(`15|${board.join(',')}`, m);
        const blank = board.indexOf(0);
        const to = blank + (m === 'up' ? n : m === 'down' ? -n : m === 'left' ? 1 : -1);
        board[blank] = board[to]!;
        board[to] = 0;
      }
      move = plan[0];
    }
  }
  if (move !== undefined) return `\\boxed{${move}}`;
  // No plan within budget (large boards): the legal move that most lowers the tiles' total Manhattan distance,
  // never undoing the previous move.
  const previous = [...historyText(history).matchAll(/you made a valid move: (\w+)\./g)].pop()?.[1];
  const undo: Record<string, string> = { up: 'down', down: 'up', left: 'right', right: 'left' };
  const blank = tiles.indexOf(0);
  let best: string | undefined;
  let bestH = Number.POSITIVE_INFINITY;
  for (const [m, offset, ok] of [
    ['up', n, Math.floor(blank / n) < n - 1],
    ['down', -n, Math.floor(blank / n) > 0],
    ['left', 1, blank % n < n - 1],
    ['right', -1, blank % n > 0],
  ] as const) {
    if (!ok || (previous !== undefined && undo[previous] === m)) continue;
    const next = [...tiles];
    next[blank] = next[blank + offset]!;
    next[blank + offset] = 0;
    const h = next.reduce((sum, t, i) => {
      if (t === 0) return sum;
      return sum + Math.abs(Math.floor(i / n) - Math.floor((t - 1) / n)) + Math.abs((i % n) - ((t - 1) % n));
    }, 0);
    if (h < bestH) {
      bestH = h;
      best = m;
    }
  }
  return `\\boxed{${best ?? 'up'}}`;
}

/**
 * Sokoban: reads the last board shown and plays the first move of a shortest solution found by breadth-first
 * search (a target hidden under the player is inferred from the box count); any open move when the search
 * budget runs out.
 */
export function sokobanPlayer(history: string | readonly string[]): string {
  const rows = lastBlock(historyText(history), 'Here is the current board layout:\n').map((l) => l.trim().split(' '));
  const cols = rows[0]?.length ?? 0;
  const cells = rows.flat();
  if (cols === 0 || rows.some((r) => r.length !== cols) || !cells.includes('P')) return '\\boxed{up}';
  const player = cells.indexOf('P');
  const boxes = cells.flatMap((v, i) => (v === 'X' || v === '√' ? [i] : []));
  const targets = new Set(cells.flatMap((v, i) => (v === 'O' || v === '√' ? [i] : [])));
  if (targets.size < boxes.length) targets.add(player);
  const walls = cells.map((v) => v === '#');
  const room = `sokoban|${cols}|${walls.map(Number).join('')}|${[...targets].sort((a, b) => a - b).join(',')}`;
  const key = (p: number, b: readonly number[]): string => `${room}|${p}|${[...b].sort((x, y) => x - y).join(',')}`;
  let move = planCache.get(key(player, boxes));
  // A room whose search ran out of budget is not searched again (each search can cost seconds).
  if (move === undefined && !planCache.has(`${room}|failed`)) {
    const plan = sokobanPlan({ cols, walls, targets, player, boxes }, 600_000);
    if (plan === undefined) remember(`${room}|failed`, '');
    // Remember the move for every position along the plan, so later turns need no search.
    for (const step of plan ?? []) remember(key(step.player, step.boxes), step.move);
    move = plan?.[0]?.move;
  }
  if (move !== undefined) return `\\boxed{${move}}`;
  const open = (
    [
      ['up', -cols],
      ['down', cols],
      ['left', -1],
      ['right', 1],
    ] as const
  ).find(([, d]) => !walls[player + d] && !boxes.includes(player + d));
  return `\\boxed{${open?.[0] ?? 'up'}}`;
}

/**
 * Minesweeper: reads the last board shown; reveals the centre first, then makes single-cell deductions (reveal
 * around satisfied numbers, flag when the hidden neighbours must all be mines), else reveals the hidden cell with
 * the least estimated risk. GEM only declares a win at a reveal made once every mine is flagged, so it assumes
 * GEM's mine count, floor(cells / 5) (every registered variant), to keep the last safe cell for last.
 */
export function minesweeperPlayer(history: string | readonly string[]): string {
  const block = lastBlock(historyText(history), 'Here is the current board layout:\n');
  const view = block.slice(1).map((line) => {
    const cells: number[] = [];
    for (let i = 3; i + 2 <= line.length; i += 3) {
      const ch = line[i + 1]!;
      cells.push(ch === '.' ? -1 : ch === 'F' ? -2 : Number(ch));
    }
    return cells;
  });
  if (view.length === 0 || view[0]!.length === 0) return '\\boxed{reveal 0 0}';
  const mines = Math.floor((view.length * view[0]!.length) / 5);
  return `\\boxed{${minesweeperMove(view, mines)}}`;
}

/**
 * 2048: reads the last board shown and plays the move that leaves the most empty cells (one-ply greedy, keeping
 * the big tile in the bottom-left corner). Reaches 64 within 50 turns on most boards.
 */
export function game2048Player(history: string | readonly string[]): string {
  const rows = lastBlock(historyText(history), 'Current board:\n')
    .filter((l) => /^[\s.\d]+$/.test(l))
    .map((l) =>
      l
        .trim()
        .split(/\s+/)
        .map((t) => (t === '.' ? 0 : Number(t))),
    );
  const n = rows.length;
  if (n < 2 || rows.some((r) => r.length !== n)) return '\\boxed{down}';
  return `\\boxed{${game2048Move(rows, slide2048)}}`;
}

/** A scripted player: the episode's observations (plus the latest `info.suffix`) in, a `\boxed{…}` action out. */
export type GamePlayer = (history: string | readonly string[]) => string;

/** The scripted player of each game, keyed by the game's name in its env id (`game:<name>-v0-…`). */
export const GAME_PLAYERS: Readonly<Record<string, GamePlayer>> = {
  GuessTheNumber: guessTheNumberPlayer,
  Mastermind: mastermindPlayer,
  Minesweeper: minesweeperPlayer,
  Wordle: wordlePlayer,
  Hangman: hangmanPlayer,
  Sudoku: sudokuPlayer,
  TowerofHanoi: towerOfHanoiPlayer,
  Game2048: game2048Player,
  FifteenPuzzle: fifteenPuzzlePlayer,
  Sokoban: sokobanPlayer,
  WordSearch: wordSearchPlayer,
  Crosswords: crosswordsPlayer,
};

/** The scripted player for an env id such as `game:Wordle-v0-hard`, or `undefined` for other envs. */
export function gamePlayer(envId: string): GamePlayer | undefined {
  const name = /^game:(\w+)-v0/.exec(envId)?.[1];
  return name === undefined ? undefined : GAME_PLAYERS[name];
}
