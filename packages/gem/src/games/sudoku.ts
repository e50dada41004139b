/**
 * Sudoku (GEM `sudoku.py`) on a 4x4 or 9x9 grid.
 *
 * As in GEM: `clues` is the number of cells the generator TRIES to blank (not the clues kept): it shuffles all
 * cells and blanks `clues` of them one by one, restoring any blank that would make the solution non-unique.
 * `\boxed{r c n}` (1-based, single spaces) must match the generated solution's digit; out-of-range, filled cells
 * and wrong digits are invalid (0); each right digit pays `1 / initially empty cells`; a full grid wins.
 */
import { ConfigError } from '@cookbook/core';
import { z } from 'zod';
import type { ResetResult, StepResult } from '../core/env.js';
import { LanguageGameReward } from '../core/env.js';
import { pyIndex, pyInt, pyLastMatch, pyRegExp } from '../core/python-text.js';
import type { EnvOptions } from '../core/registry.js';
import { GameEnv } from './internal/game-env.js';
import { parseGameOptions, seedOpt } from './internal/options.js';
import { countSudokuSolutions, randomFullGrid, type SudokuGrid, sudokuSafe } from './internal/sudoku-grid.js';

export const SudokuOptions = z.object({
  scale: z
    .union([z.literal(4), z.literal(9)])
    .nullable()
    .default(9)
    .describe('grid side, 4 or 9; null = random'),
  clues: z.number().int().min(0).nullable().default(30).describe('cells the generator tries to blank (GEM naming)'),
  maxTurns: z.number().int().min(1).nullable().default(100).describe('turn limit; null = random variant'),
  seed: seedOpt,
});

/** GEM's random-variant settings: (scale, clues, turns). */
const RANDOM_SETTINGS: readonly [4 | 9, number, number][] = [
  [4, 10, 15],
  [9, 50, 50],
];

const MOVE = pyRegExp(String.raw`\\boxed{(\d+)\s(\d+)\s(\d+)}`);

export class Sudoku extends GameEnv {
  scale: 4 | 9;
  clues: number;
  maxTurns: number;
  readonly isRandom: boolean;
  /** The generated solution. */
  solution: SudokuGrid = [];
  /** The puzzle as played (0 = empty). */
  board: SudokuGrid = [];
  private initialEmpty = 0;

  constructor(options: EnvOptions = {}) {
    const o = parseGameOptions('Sudoku', SudokuOptions, options);
    super(o.seed);
    this.isRandom = o.scale === null || o.clues === null || o.maxTurns === null;
    this.scale = o.scale ?? 9;
    this.clues = o.clues ?? 30;
    this.maxTurns = o.maxTurns ?? 100;
    if (!this.isRandom && this.clues > this.scale * this.scale) {
      throw new ConfigError(`Sudoku: clues (${this.clues}) exceeds the ${this.scale * this.scale} cells`, {
        key: 'clues',
      });
    }
    this.resetGame();
  }

  /** GEM's grid: `C1 C2  …` header, `R1 ` rows with `| ` between boxes, `- ` separator lines between bands. */
  renderBoard(): string {
    const n = this.scale;
    const b = Math.round(Math.sqrt(n));
    const header = `   ${Array.from({ length: n }, (_, j) => `C${j + 1}${(j + 1) % b === 0 ? '  ' : ''}`).join(' ')}`;
    const lines = [header];
    this.board.forEach((row, i) => {
      let s = `R${i + 1} `;
      row.forEach((v, j) => {
        s += ` ${v === 0 ? '.' : v} `;
        if ((j + 1) % b === 0 && j < n - 1) s += '| ';
      });
      lines.push(s.trim());
      if ((i + 1) % b === 0 && i < n - 1) lines.push(`   ${'- '.repeat(2 * (n - 1))}`);
    });
    return lines.join('\n');
  }

  taskSuffix(): string {
    return `Here is the current board layout:\n${this.renderBoard()}\nEnter your move.`;
  }

  private instructions(): string {
    const s = this.scale;
    return (
      `You are playing ${s === 4 ? 'A simple version of' : ''} Sudoku.\n` +
      `Each row is numbered from 1 to ${s}, and each column is also numbered from 1 to ${s}.\n` +
      `Empty cells are represented by '.', and pre-filled cells contain digits from 1 to ${s}.\n\n` +
      `Your objective is to fill the empty cells in the ${s}x${s} grid with digits from 1 to ${s} such that:\n` +
      `1. Each row contains all digits from 1 to ${s} without repetition.\n` +
      `2. Each column contains all digits from 1 to ${s} without repetition.\n` +
      `3. Each of the nine ${s}x${s} subgrids contains all digits from 1 to ${s} without repetition.\n\n` +
      'Rules and Instructions:\n' +
      '1. **Do not overwrite** the initial numbers provided in the grid.\n' +
      "2. **Only fill** empty cells represented by '.'.\n" +
      "3. You may respond in any manner you prefer, but ensure that your response includes the format of '\\boxed{row column number}', e.g. \\boxed{1 1 5}.\n" +
      '4. **Ensure** that your move does not violate Sudoku rules. Invalid moves, including overwriting pre-filled cells and placing two numbers in one row/col/sub-grid will result in penalties.\n' +
      'The history of your moves will be appended as you play more rounds. Use the history of your move to improve your decision making by avoiding the moves you have tried. Good luck!\n\n'
    );
  }

  protected resetGame(): ResetResult {
    if (this.isRandom) [this.scale, this.clues, this.maxTurns] = this.rng.choice(RANDOM_SETTINGS);
    const n = this.scale;
    this.solution = randomFullGrid(n, this.rng);
    const puzzle = this.solution.map((row) => [...row]);
    const cells = this.rng.shuffle(Array.from({ length: n * n }, (_, i) => i));
    for (let i = 0; i < Math.min(this.clues, n * n); i++) {
      const cell = cells.pop()!;
      const r = Math.floor(cell / n);
      const c = cell % n;
      const kept = puzzle[r]![c]!;
      puzzle[r]![c] = 0;
      if (countSudokuSolutions(puzzle, 2) !== 1) puzzle[r]![c] = kept;
    }
    this.board = puzzle;
    this.initialEmpty = puzzle.flat().filter((v) => v === 0).length;
    this.turnCount = 0;
    return { observation: this.instructions(), info: this.info() };
  }

  protected stepGame(action: string): StepResult {
    this.turnCount += 1;
    const k = this.turnCount;
    const last = pyLastMatch(action, MOVE);
    const parsed = last === undefined ? [] : [last[1]!, last[2]!, last[3]!].map(pyInt);
    if (parsed.length !== 3 || parsed.some((x) => x === undefined)) {
      return this.formatError('You did not provide a valid guess.');
    }
    const [rowBig, colBig, numBig] = parsed as [bigint, bigint, bigint];
    const n = this.scale;
    // 1-based: index = value - 1 must lie in [0, n).
    const [row, col, num] = [rowBig, colBig, numBig].map((x) => (pyIndex(x - 1n, n) ?? -1) + 1) as [
      number,
      number,
      number,
    ];
    let observation: string;
    let reward: number = LanguageGameReward.invalidAction;
    const where = `${numBig} at R${rowBig} C${colBig}`;
    if (row === 0 || col === 0 || num === 0) {
      observation = `At turn ${k}, you tried to place ${where}, which is out of bounds.`;
    } else if (this.board[row - 1]![col - 1] !== 0) {
      observation = `At turn ${k}, you tried to place ${where}, which is already filled. You cannot overwrite pre-filled cells.`;
    } else if (this.solution[row - 1]![col - 1] === num) {
      this.board[row - 1]![col - 1] = num;
      reward = 1 / this.initialEmpty;
      observation = `At turn ${k}, you placed ${where}, which is correct.`;
      if (this.board.every((r) => r.every((v) => v !== 0))) {
        return this.win('Congratulations! You have completed the Sudoku puzzle!', reward);
      }
    } else {
      observation = `At turn ${k}, you tried to place ${where}, which violates Sudoku rules.`;
    }
    return this.continueOrTimeout(observation, reward);
  }

  /** A digit for an empty cell that breaks no row/column/box rule on the current board (may still be wrong). */
  sampleRandomAction(): string {
    const n = this.scale;
    const empty: [number, number][] = [];
    this.board.forEach((row, r) => {
      row.forEach((v, c) => {
        if (v === 0) empty.push([r, c]);
      });
    });
    if (empty.length === 0) return `\\boxed{1 1 ${this.rng.int(1, n)}}`;
    const [r, c] = this.rng.choice(empty);
    const safe = Array.from({ length: n }, (_, i) => i + 1).filter((d) => sudokuSafe(this.board, r, c, d));
    return `\\boxed{${r + 1} ${c + 1} ${safe.length > 0 ? this.rng.choice(safe) : this.rng.int(1, n)}}`;
  }
}
