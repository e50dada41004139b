/**
 * Minesweeper (GEM `minesweeper.py`): reveal every safe cell of a rows x cols board.
 *
 * As in GEM: mines are placed at the first reveal, uniformly on distinct cells outside that cell's 3x3
 * neighbourhood (so the first reveal is a 0 and flood-fills); revealing a mine (even a flagged one) ends the
 * episode with 0; a reveal pays `newly revealed / safe cells`; flags toggle for 0; the board counts as solved only
 * when every mine is flagged AND every safe cell revealed, checked after a reveal. Actions `\boxed{reveal r c}` /
 * `\boxed{flag r c}` (0-based; other verbs are invalid).
 */
import { ConfigError } from '@cookbook/core';
import { z } from 'zod';
import type { ResetResult, StepResult } from '../core/env.js';
import { LanguageGameReward } from '../core/env.js';
import { pyIndex, pyInt, pyLastMatch, pyLower, pyRegExp } from '../core/python-text.js';
import type { EnvOptions } from '../core/registry.js';
import { GameEnv } from './internal/game-env.js';
import { parseGameOptions, seedOpt } from './internal/options.js';

export const MinesweeperOptions = z.object({
  rows: z.number().int().min(3).max(30).nullable().default(8).describe('board rows; null = random variant'),
  cols: z.number().int().min(3).max(30).nullable().default(8).describe('board columns; null = random variant'),
  numMines: z.number().int().min(1).nullable().default(10).describe('mines; null = random variant'),
  maxTurns: z.number().int().min(1).nullable().default(20).describe('turn limit; null = random variant'),
  seed: seedOpt,
});

const ACTION = pyRegExp(String.raw`\\boxed{([a-zA-Z]+)\s(\d+)\s(\d+)}`);
const MINE = -1;
const NEIGHBOURS: readonly [number, number][] = [
  [-1, -1],
  [-1, 0],
  [-1, 1],
  [0, -1],
  [0, 1],
  [1, -1],
  [1, 0],
  [1, 1],
];

export class Minesweeper extends GameEnv {
  rows: number;
  cols: number;
  numMines: number;
  maxTurns: number;
  readonly isRandom: boolean;
  /** Mine counts per cell; -1 = mine. All 0 until the first reveal places the mines. */
  grid: number[][] = [];
  revealed: boolean[][] = [];
  flags: boolean[][] = [];
  private firstReveal = true;

  constructor(options: EnvOptions = {}) {
    const o = parseGameOptions('Minesweeper', MinesweeperOptions, options);
    super(o.seed);
    this.isRandom = o.rows === null || o.cols === null || o.numMines === null || o.maxTurns === null;
    this.rows = o.rows ?? 8;
    this.cols = o.cols ?? 8;
    this.numMines = o.numMines ?? 10;
    this.maxTurns = o.maxTurns ?? 20;
    if (!this.isRandom && this.numMines > this.rows * this.cols - 9) {
      throw new ConfigError(
        `Minesweeper: ${this.numMines} mines do not fit a ${this.rows}x${this.cols} board outside the first reveal's 3x3 (at most ${this.rows * this.cols - 9})`,
        { key: 'numMines' },
      );
    }
    this.resetGame();
  }

  /** Whether the mines are placed yet (they are at the first reveal). */
  get minesPlaced(): boolean {
    return !this.firstReveal;
  }

  /** Header of column indices, then `rr ` + ` . ` / ` F ` / ` n ` per cell; every line ends in a newline. */
  renderBoard(): string {
    let out = `   ${Array.from({ length: this.cols }, (_, c) => String(c).padStart(2)).join(' ')}\n`;
    for (let r = 0; r < this.rows; r++) {
      let line = `${String(r).padStart(2)} `;
      for (let c = 0; c < this.cols; c++) {
        if (this.revealed[r]![c]) line += this.grid[r]![c] === MINE ? ' * ' : ` ${this.grid[r]![c]} `;
        else if (this.flags[r]![c]) line += ' F ';
        else line += ' . ';
      }
      out += `${line}\n`;
    }
    return out;
  }

  taskSuffix(): string {
    return `Here is the current board layout:\n${this.renderBoard()}\nEnter your guess.`;
  }

  private example(verb: 'reveal' | 'flag'): [string, number, number] {
    const r = this.rng.int(0, this.rows - 1);
    const c = this.rng.int(0, this.cols - 1);
    return [`\\boxed{${verb} ${r} ${c}}`, r, c];
  }

  private instructions(): string {
    const [reveal, rr, rc] = this.example('reveal');
    const [flag, fr, fc] = this.example('flag');
    return (
      'You are playing the Minesweeper game.\n' +
      'The objective of the game is to reveal all cells that do not contain mines.\n' +
      'To make a move, you can either reveal a cell or place a flag on a suspected mine location using one of the following commands:\n' +
      "- 'reveal': Reveal the contents of a specific cell.\n" +
      "- 'flag': Place or remove a flag on a specific cell to mark it as a potential mine.\n" +
      'To submit your move, type the command followed by the row and column in \\boxed{}.\n' +
      'For example:\n' +
      `- ${reveal} to reveal the cell in Row ${rr}, Column ${rc}.\n` +
      `- ${flag} to place or remove a flag on the cell in Row ${fr}, Column ${fc}.\n` +
      "The current board layout is shown below. Cells that are unrevealed are represented by a dot ('.'), revealed numbers show the count of adjacent mines, and flagged cells are marked with an 'F'.\n" +
      'Use logic and deduction to avoid revealing cells with mines!\n' +
      'Be mindful not to choose revealed or flagged cells.\n'
    );
  }

  protected resetGame(): ResetResult {
    if (this.isRandom) {
      const n = this.rng.int(5, 8);
      this.rows = n;
      this.cols = n;
      this.numMines = Math.floor((n * n) / 5);
      this.maxTurns = n * n;
    }
    const blank = <T>(v: T): T[][] => Array.from({ length: this.rows }, () => new Array<T>(this.cols).fill(v));
    this.grid = blank(0);
    this.revealed = blank(false);
    this.flags = blank(false);
    this.firstReveal = true;
    this.turnCount = 0;
    return { observation: this.instructions(), info: this.info() };
  }

  private inBounds(r: number, c: number): boolean {
    return r >= 0 && r < this.rows && c >= 0 && c < this.cols;
  }

  private placeMines(safeRow: number, safeCol: number): void {
    const candidates: [number, number][] = [];
    for (let r = 0; r < this.rows; r++) {
      for (let c = 0; c < this.cols; c++) {
        if (Math.abs(r - safeRow) > 1 || Math.abs(c - safeCol) > 1) candidates.push([r, c]);
      }
    }
    for (const [r, c] of this.rng.sample(candidates, this.numMines)) this.grid[r]![c] = MINE;
    for (let r = 0; r < this.rows; r++) {
      for (let c = 0; c < this.cols; c++) {
        if (this.grid[r]![c] === MINE) continue;
        this.grid[r]![c] = NEIGHBOURS.filter(
          ([dr, dc]) => this.inBounds(r + dr, c + dc) && this.grid[r + dr]![c + dc] === MINE,
        ).length;
      }
    }
  }

  /** Breadth-first reveal; zero cells open their unrevealed, unflagged neighbours. Returns cells revealed. */
  private flood(row: number, col: number): number {
    const queue: [number, number][] = [[row, col]];
    this.revealed[row]![col] = true;
    let count = 1;
    for (let i = 0; i < queue.length; i++) {
      const [r, c] = queue[i]!;
      if (this.grid[r]![c] !== 0) continue;
      for (const [dr, dc] of NEIGHBOURS) {
        const nr = r + dr;
        const nc = c + dc;
        if (this.inBounds(nr, nc) && !this.revealed[nr]![nc] && !this.flags[nr]![nc]) {
          this.revealed[nr]![nc] = true;
          count++;
          queue.push([nr, nc]);
        }
      }
    }
    return count;
  }

  private solved(): boolean {
    for (let r = 0; r < this.rows; r++) {
      for (let c = 0; c < this.cols; c++) {
        const mine = this.grid[r]![c] === MINE;
        if (mine ? !this.flags[r]![c] : !this.revealed[r]![c]) return false;
      }
    }
    return true;
  }

  protected stepGame(action: string): StepResult {
    this.turnCount += 1;
    const k = this.turnCount;
    const last = pyLastMatch(action, ACTION);
    const rowBig = last === undefined ? undefined : pyInt(last[2]!);
    const colBig = last === undefined ? undefined : pyInt(last[3]!);
    if (last === undefined || rowBig === undefined || colBig === undefined) {
      return this.formatError(`At turn ${k}, you did not provide a valid guess.`);
    }
    const verb = pyLower(last[1]!);
    const row = pyIndex(rowBig, this.rows) ?? -1;
    const col = pyIndex(colBig, this.cols) ?? -1;
    let observation: string;
    let reward: number = LanguageGameReward.invalidAction;
    if (row < 0 || col < 0) {
      observation = `At turn ${k}, you chose cell (${rowBig}, ${colBig}), which is outside the bounds of the grid.`;
    } else if (verb === 'reveal') {
      if (this.firstReveal) {
        this.placeMines(row, col);
        this.firstReveal = false;
      }
      if (this.grid[row]![col] === MINE) {
        return this.lose(`Game over! You hit a mine at (${row}, ${col})`, LanguageGameReward.fail);
      }
      if (this.revealed[row]![col] || this.flags[row]![col]) {
        observation = `At turn ${k}, you chose to reveal cell (${row}, ${col}), which has already been revealed.`;
      } else {
        reward = this.flood(row, col) / (this.rows * this.cols - this.numMines);
        observation = `At turn ${k}, you successfully revealed cell (${row}, ${col}).`;
        if (this.solved())
          return this.win('Congratulations! You have successfully cleared the Minesweeper board.', reward);
      }
    } else if (verb === 'flag') {
      if (this.revealed[row]![col]) {
        observation = `At turn ${k}, you chose to flag cell (${row}, ${col}), which has already been revealed.`;
      } else {
        this.flags[row]![col] = !this.flags[row]![col];
        observation = `At turn ${k}, you ${this.flags[row]![col] ? 'added' : 'removed'} a flag on cell (${row}, ${col}).`;
        reward = LanguageGameReward.internalStep;
      }
    } else {
      observation = `At turn ${k}, you chose an invalid action '${verb}'. Valid actions are 'reveal' or 'flag'.`;
    }
    return this.continueOrTimeout(observation, reward);
  }

  /** Mostly a reveal (9 in 10, as GEM) of a hidden unflagged cell, else a flag on a hidden cell. */
  sampleRandomAction(): string {
    const hidden: [number, number][] = [];
    for (let r = 0; r < this.rows; r++) {
      for (let c = 0; c < this.cols; c++) if (!this.revealed[r]![c]) hidden.push([r, c]);
    }
    const unflagged = hidden.filter(([r, c]) => !this.flags[r]![c]);
    const reveal = unflagged.length > 0 && this.rng.int(0, 9) < 9;
    const pool = reveal ? unflagged : hidden.length > 0 ? hidden : [[0, 0] as [number, number]];
    const [r, c] = this.rng.choice(pool);
    return `\\boxed{${reveal ? 'reveal' : 'flag'} ${r} ${c}}`;
  }
}
