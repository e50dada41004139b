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
import { CROSSWORD_ENTRIES } from './internal/crossword-clues.js';
import { basicWordsOfLength, EN_BASIC_WORDS } from './internal/en-basic-words.js';
import { game2048Move, minesweeperMove, slidingPuzzleMove, sokobanMove } from './internal/solvers.js';
import { countSudokuSolutions, type SudokuGrid, sudokuSafe } from './internal/sudoku-grid.js';
import { mastermindPegs } from './mastermind.js';
import { wordleFeedback } from './wordle.js';

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

/** The lines after the last `marker` in the text, up to the first blank line. */
function lastBlock(text: string, marker: string): string[] {
  const at = text.lastIndexOf(marker);
  if (at < 0) return [];
  const lines = text.slice(at + marker.length).split('\n');
  const end = lines.findIndex((l) => l.trim() === '');
  return end < 0 ? lines : lines.slice(0, end);
}

/**
 * The sliding puzzle: reads the last board shown and plays the first move of a shortest solution (IDA* with
 * Manhattan distance; 2x2 and 3x3 boards solve at once, 4x4 within a node budget, else any legal move).
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
  const move = slidingPuzzleMove(tiles, n, n <= 3 ? 5_000_000 : 300_000);
  if (move !== undefined) return `\\boxed{${move}}`;
  const blank = tiles.indexOf(0);
  const legal = [
    Math.floor(blank / n) < n - 1 ? 'up' : undefined,
    Math.floor(blank / n) > 0 ? 'down' : undefined,
    blank % n < n - 1 ? 'left' : undefined,
    blank % n > 0 ? 'right' : undefined,
  ].filter((m) => m !== undefined);
  return `\\boxed{${legal[0] ?? 'up'}}`;
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
  const move = sokobanMove({ cols, walls, targets, player, boxes });
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

/**
 * WordSearch: reads the last grid shown and looks across and down (both ways) for Basic English words of three
 * or more letters not yet claimed; plays the longest one not tried, else a random-looking straight segment.
 * Hardcore grids hide words the Basic English list lacks, so it finds fewer there.
 */
export function wordSearchPlayer(history: string | readonly string[]): string {
  const text = historyText(history);
  const grid = lastBlock(text, 'Current Board:\n')
    .slice(1)
    .filter((l) => /^R\d\d /.test(l))
    .map((l) => [...l.slice(4).matchAll(/[ [](.)[ \]] ?/g)].map((m) => m[1]!));
  const n = grid.length;
  if (n === 0) return '\\boxed{0 0 0 1}';
  const tried = new Set(
    [...text.matchAll(/coordinates \((\d+), (\d+)\) to \((\d+), (\d+)\)/g)].map((m) => m.slice(1, 5).join(' ')),
  );
  for (const m of text.matchAll(/you tried \((\d+), (\d+)\) to \((\d+), (\d+)\)/g)) tried.add(m.slice(1, 5).join(' '));
  const dictionary = new Set(EN_BASIC_WORDS.filter((w) => w.length >= 3).map((w) => w.toUpperCase()));
  const found: [number, string][] = [];
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < n; a++) {
      for (let b = a + 2; b < n; b++) {
        const across = grid[i]!.slice(a, b + 1).join('');
        const down = grid
          .slice(a, b + 1)
          .map((row) => row[i])
          .join('');
        const moves: [string, string, string][] = [
          [across, `${i} ${a} ${i} ${b}`, `${i} ${b} ${i} ${a}`],
          [down, `${a} ${i} ${b} ${i}`, `${b} ${i} ${a} ${i}`],
        ];
        for (const [word, fwd, back] of moves) {
          if (dictionary.has(word) && !tried.has(fwd) && !tried.has(back)) found.push([word.length, fwd]);
        }
      }
    }
  }
  found.sort((x, y) => y[0] - x[0]);
  if (found.length > 0) return `\\boxed{${found[0]![1]}}`;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) if (!tried.has(`${i} 0 ${i} ${j}`)) return `\\boxed{${i} 0 ${i} ${j}}`;
  }
  return '\\boxed{0 0 0 1}';
}

/**
 * Crosswords with the word bank as its vocabulary: maps each listed clue to its word, finds where that word fits
 * on the last grid shown (direction and length from the clue, letters already filled must agree), and fills the
 * first empty cell of the first word not yet complete. A model has to recall the words; this player knows them.
 */
export function crosswordsPlayer(history: string | readonly string[]): string {
  const text = historyText(history);
  const grid = lastBlock(text, 'Current Board:\n')
    .slice(1)
    .filter((l) => /^R\d\d /.test(l))
    .map((l) => [...l.slice(4).matchAll(/ (.) {2}/g)].map((m) => m[1]!));
  const n = grid.length;
  const clues = lastBlock(text, 'Here are the clues for the words you need to find:\n');
  const byClue = new Map(CROSSWORD_ENTRIES.map((e) => [e.clue, e.word.toUpperCase()]));
  const wrong = new Set(
    [...text.matchAll(/place ([A-Z]) at \((\d+), (\d+)\), but it is incorrect/g)].map((m) => `${m[2]},${m[3]},${m[1]}`),
  );
  const at = (r: number, c: number): string | undefined => grid[r]?.[c];
  for (const line of clues) {
    const m = /^\d+\. (.*) \((across|down)\): (\d+) letters$/.exec(line);
    const word = m ? byClue.get(m[1]!) : undefined;
    if (m === null || word === undefined) continue;
    const across = m[2] === 'across';
    const places: { cells: [number, number][]; clean: boolean }[] = [];
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const cells = [...word].map((_, i) => (across ? [r, c + i] : [r + i, c]) as [number, number]);
        const fits = cells.every(([a, b], i) => {
          const v = at(a, b);
          return (v === '_' || v === word[i]) && !wrong.has(`${a},${b},${word[i]}`);
        });
        if (!fits) continue;
        // A placement bounded by '.' (or the edge) at both ends is the likely one.
        const before = across ? at(r, c - 1) : at(r - 1, c);
        const after = across ? at(r, c + word.length) : at(r + word.length, c);
        places.push({ cells, clean: (before ?? '.') === '.' && (after ?? '.') === '.' });
      }
    }
    places.sort((x, y) => Number(y.clean) - Number(x.clean));
    for (const { cells } of places) {
      const open = cells.findIndex(([a, b]) => at(a, b) === '_');
      if (open >= 0) return `\\boxed{${cells[open]![0]} ${cells[open]![1]} ${word[open]}}`;
      break;
    }
  }
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (grid[r]![c] === '_') return `\\boxed{${r} ${c} E}`;
  return '\\boxed{0 0 E}';
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
