/**
 * The N-puzzle (GEM `fifteen_puzzle.py`): slide tiles into the blank until they read 1..N²-1 with the blank
 * bottom-right.
 *
 * As in GEM: the start is the goal scrambled by 100 random blank moves that never undo the previous one
 * ("monte_carlo"; "pure_random" = a shuffle with a parity fix); a direction names the tile's motion into the blank
 * (`up` = the tile below the blank moves up); the action must be lower-case; an impossible move is invalid (0);
 * solving pays 1.0; at the turn limit the reward gains the fraction of cells (blank included) already in place.
 * GEM's `-v0-random` crashes in its constructor (it squares the unset size); here it works and draws
 * (size, turns) from GEM's candidates at each reset.
 */
import { DataError } from '@cookbook/core';
import { z } from 'zod';
import type { ResetResult, StepResult } from '../core/env.js';
import { LanguageGameReward } from '../core/env.js';
import type { EnvOptions } from '../core/registry.js';
import { DIRECTIONS, type Direction, lastDirection } from './internal/directions.js';
import { GameEnv } from './internal/game-env.js';
import { parseGameOptions, seedOpt } from './internal/options.js';

export const FifteenPuzzleOptions = z.object({
  numRows: z.number().int().min(2).max(10).nullable().default(2).describe('board side N; null = random variant'),
  maxTurns: z.number().int().min(1).nullable().default(20).describe('turn limit; null = random variant'),
  initAlgo: z
    .enum(['monte_carlo', 'pure_random'])
    .default('monte_carlo')
    .describe('scramble: 100 random non-undoing blank moves, or a shuffle with a parity fix'),
  seed: seedOpt,
});

/** GEM's random-variant settings: (side, turns). */
const RANDOM_SETTINGS: readonly [number, number][] = [
  [2, 10],
  [3, 20],
  [4, 50],
];

/** Where the tile that moves into the blank sits, relative to the blank. */
const TILE_OFFSET: Record<Direction, readonly [number, number]> = {
  up: [1, 0],
  down: [-1, 0],
  left: [0, 1],
  right: [0, -1],
};
const OPPOSITE: Record<Direction, Direction> = { up: 'down', down: 'up', left: 'right', right: 'left' };

/** `null` is the blank. */
export type FifteenBoard = (number | null)[][];

export class FifteenPuzzle extends GameEnv {
  numRows: number;
  maxTurns: number;
  readonly isRandom: boolean;
  readonly initAlgo: 'monte_carlo' | 'pure_random';
  board: FifteenBoard = [];

  constructor(options: EnvOptions = {}) {
    const o = parseGameOptions('FifteenPuzzle', FifteenPuzzleOptions, options);
    super(o.seed);
    this.isRandom = o.numRows === null || o.maxTurns === null;
    this.numRows = o.numRows ?? 2;
    this.maxTurns = o.maxTurns ?? 10;
    this.initAlgo = o.initAlgo;
    this.resetGame();
  }

  private get greatest(): number {
    return this.numRows * this.numRows - 1;
  }

  private goal(): FifteenBoard {
    const n = this.numRows;
    return Array.from({ length: n }, (_, r) =>
      Array.from({ length: n }, (_, c) => (r * n + c === n * n - 1 ? null : r * n + c + 1)),
    );
  }

  private blank(board: FifteenBoard = this.board): [number, number] {
    for (let r = 0; r < board.length; r++) {
      const c = board[r]!.indexOf(null);
      if (c >= 0) return [r, c];
    }
    throw new DataError('board without a blank');
  }

  /** Directions possible on `board`. */
  legalMoves(board: FifteenBoard = this.board): Direction[] {
    const [r, c] = this.blank(board);
    return DIRECTIONS.filter((d) => {
      const [dr, dc] = TILE_OFFSET[d];
      return r + dr >= 0 && r + dr < this.numRows && c + dc >= 0 && c + dc < this.numRows;
    });
  }

  private apply(board: FifteenBoard, d: Direction): boolean {
    const [r, c] = this.blank(board);
    const [dr, dc] = TILE_OFFSET[d];
    const tr = r + dr;
    const tc = c + dc;
    if (tr < 0 || tr >= this.numRows || tc < 0 || tc >= this.numRows) return false;
    board[r]![c] = board[tr]![tc]!;
    board[tr]![tc] = null;
    return true;
  }

  /** Permutation parity (blank as a tile) plus the blank's Manhattan distance from the top-left, mod 2. */
  private parity(board: FifteenBoard): number {
    const tiles = board.flat().map((t) => t ?? this.greatest + 1);
    let swaps = 0;
    for (let i = 0; i < tiles.length; i++) {
      while (tiles[i] !== i + 1) {
        const j = tiles[i]! - 1;
        [tiles[i], tiles[j]] = [tiles[j]!, tiles[i]!];
        swaps++;
      }
    }
    const [r, c] = this.blank(board);
    return (swaps + r + c) % 2;
  }

  private scramble(): FifteenBoard {
    const n = this.numRows;
    if (this.initAlgo === 'pure_random') {
      const tiles: (number | null)[] = [...Array.from({ length: this.greatest }, (_, i) => i + 1), null];
      this.rng.shuffle(tiles);
      const board = Array.from({ length: n }, (_, r) => tiles.slice(r * n, r * n + n));
      if (this.parity(board) !== this.parity(this.goal())) {
        const [a, b] = this.rng.sample(
          Array.from({ length: this.greatest }, (_, i) => i + 1),
          2,
        );
        const ia = tiles.indexOf(a!);
        const ib = tiles.indexOf(b!);
        const rowA = board[Math.floor(ia / n)]!;
        const rowB = board[Math.floor(ib / n)]!;
        [rowA[ia % n], rowB[ib % n]] = [rowB[ib % n]!, rowA[ia % n]!];
      }
      return board;
    }
    const board = this.goal();
    let previous: Direction | undefined;
    for (let i = 0; i < 100; i++) {
      const options = this.legalMoves(board).filter((d) => previous === undefined || d !== OPPOSITE[previous]);
      const d = this.rng.choice(options);
      this.apply(board, d);
      previous = d;
    }
    return board;
  }

  /** Rows of `__` (blank) or the number right-aligned in 2, joined by spaces, each ending in a newline. */
  renderBoard(): string {
    return this.board
      .map((row) => `${row.map((t) => (t === null ? '__' : String(t).padStart(2))).join(' ')}\n`)
      .join('');
  }

  taskSuffix(): string {
    return `Here is the current board layout: \n${this.renderBoard()}\nEnter your move.`;
  }

  private instructions(): string {
    const g = this.greatest;
    return (
      `You are playing the ${g}-Puzzle game.\n` +
      `You have to arrange the numbered tiles in ascending order from 1 to ${g}, with the empty space located in the bottom-right corner.\n` +
      'To make a move, you can slide a tile into the empty space (represented by a double underscore, e.g. __) by using one of the following commands:\n' +
      "- 'up': Move the tile below the empty space up.\n" +
      "- 'down': Move the tile above the empty space down.\n" +
      "- 'left': Move the tile to the right of the empty space left.\n" +
      "- 'right': Move the tile to the left of the empty space right.\n" +
      "To submit your move, type the direction (e.g., 'up', 'down', 'left', or 'right') in \\boxed{...}.\n" +
      'The current board layout is shown below\n' +
      'Use logic and planning to solve the puzzle.\n'
    );
  }

  protected resetGame(): ResetResult {
    if (this.isRandom) [this.numRows, this.maxTurns] = this.rng.choice(RANDOM_SETTINGS);
    this.board = this.scramble();
    this.turnCount = 0;
    return { observation: this.instructions(), info: this.info() };
  }

  private matchingCells(): number {
    const goal = this.goal().flat();
    return this.board.flat().filter((t, i) => t === goal[i]).length;
  }

  protected stepGame(action: string): StepResult {
    this.turnCount += 1;
    const k = this.turnCount;
    // Case-sensitive in GEM: only the four lower-case words parse, so a parsed word is always a direction.
    const move = lastDirection(action, false)?.direction;
    if (move === undefined) return this.formatError(`At turn ${k}, you did not provide a valid guess`);
    let observation: string;
    if (!this.apply(this.board, move)) {
      observation = `At turn ${k}, you chose a move ${move} that is outside the bounds of the board.`;
    } else {
      if (this.matchingCells() === this.greatest + 1) {
        return this.win('Congratulations! You have solved the puzzle!', LanguageGameReward.success);
      }
      observation = `At turn ${k}, you made a valid move: ${move}.\n`;
    }
    return this.continueOrTimeout(observation, 0, () => this.matchingCells() / (this.greatest + 1));
  }

  /** A possible move (GEM's returns an unboxed word; this one is a valid action). */
  sampleRandomAction(): string {
    return `\\boxed{${this.rng.choice(this.legalMoves())}}`;
  }
}
