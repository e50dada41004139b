/**
 * 2048 (GEM `game_2048.py`): slide and merge tiles on a 4x4 board until the target tile appears.
 *
 * As in GEM: a move that does not change the board is invalid (0); after a move, reaching a new best tile m
 * (capped at the target) pays `(log2 m - log2 best) / (log2 target - log2 initialMax)`, so reaching the target
 * totals 1.0; then a tile spawns (2 with p = 0.9, else 4) on a random empty cell; the target tile wins; a board
 * with no move left ends the episode without penalty.
 */
import { ConfigError } from '@cookbook/core';
import { z } from 'zod';
import type { ResetResult, StepResult } from '../core/env.js';
import type { EnvOptions } from '../core/registry.js';
import { DIRECTIONS, type Direction, lastDirection } from './internal/directions.js';
import { GameEnv } from './internal/game-env.js';
import { parseGameOptions, seedOpt } from './internal/options.js';

export const Game2048Options = z.object({
  targetTile: z
    .number()
    .int()
    .min(8)
    .nullable()
    .default(2048)
    .describe('tile that wins (a power of two); null = random'),
  maxTurns: z.number().int().min(1).nullable().default(1000).describe('turn limit; null = random variant'),
  boardSize: z.number().int().min(2).max(10).default(4).describe('board side'),
  seed: seedOpt,
});

/** GEM's random-variant settings: (target, turns). */
const RANDOM_SETTINGS: readonly [number, number][] = [
  [16, 20],
  [32, 30],
  [64, 50],
];

/** Slides one line toward index 0, merging each pair once. */
function slideLine(line: readonly number[]): number[] {
  const tiles = line.filter((x) => x !== 0);
  const out: number[] = [];
  for (let i = 0; i < tiles.length; i++) {
    if (i + 1 < tiles.length && tiles[i] === tiles[i + 1]) {
      out.push(tiles[i]! * 2);
      i++;
    } else out.push(tiles[i]!);
  }
  while (out.length < line.length) out.push(0);
  return out;
}

/** The board after a move (a new array; the input is unchanged). */
export function slide2048(board: readonly (readonly number[])[], move: Direction): number[][] {
  const n = board.length;
  const out = board.map((row) => [...row]);
  for (let i = 0; i < n; i++) {
    const idx = Array.from({ length: n }, (_, j) => j);
    // The cells of line i, listed from the side the tiles move toward.
    const cells: [number, number][] =
      move === 'left'
        ? idx.map((j) => [i, j])
        : move === 'right'
          ? idx.map((j) => [i, n - 1 - j])
          : move === 'up'
            ? idx.map((j) => [j, i])
            : idx.map((j) => [n - 1 - j, i]);
    const moved = slideLine(cells.map(([r, c]) => board[r]![c]!));
    cells.forEach(([r, c], j) => {
      out[r]![c] = moved[j]!;
    });
  }
  return out;
}

export class Game2048 extends GameEnv {
  targetTile: number;
  maxTurns: number;
  readonly boardSize: number;
  readonly isRandom: boolean;
  board: number[][] = [];
  private best = 0;
  private initialBest = 0;

  constructor(options: EnvOptions = {}) {
    const o = parseGameOptions('Game2048', Game2048Options, options);
    super(o.seed);
    this.isRandom = o.targetTile === null || o.maxTurns === null;
    this.targetTile = o.targetTile ?? 2048;
    this.maxTurns = o.maxTurns ?? 1000;
    this.boardSize = o.boardSize;
    if (!this.isRandom && (this.targetTile & (this.targetTile - 1)) !== 0) {
      throw new ConfigError(`Game2048: targetTile must be a power of two >= 8, got ${this.targetTile}`, {
        key: 'targetTile',
      });
    }
    this.resetGame();
  }

  /** The best tile so far (capped at the target) and the largest starting tile: the progress reward's scale. */
  get progress(): { best: number; initial: number } {
    return { best: this.best, initial: this.initialBest };
  }

  /** Cells right-aligned in 4 (`   .` for empty), joined by spaces. */
  renderBoard(): string {
    return this.board.map((row) => row.map((x) => (x === 0 ? '   .' : String(x).padStart(4))).join(' ')).join('\n');
  }

  taskSuffix(): string {
    return `Current board:\n${this.renderBoard()}\nEnter your move.`;
  }

  private instructions(): string {
    return (
      'You are playing 2048.\n' +
      `Your goal is to reach the ${this.targetTile} tile by sliding and merging tiles.\n` +
      `You have ${this.maxTurns} turns maximum.\n\n` +
      'Rules:\n' +
      '- When two tiles with the same number touch, they merge into one tile with double the value.\n' +
      '- After each move, a new tile (2 or 4) appears in a random empty spot.\n' +
      "- You can move tiles in four directions: 'up', 'down', 'left', 'right'.\n\n" +
      'To submit your move, type the direction in \\boxed{...}.\n' +
      `For example: ${this.sampleRandomAction()}\n\n`
    );
  }

  private spawnTile(): void {
    const empty: [number, number][] = [];
    this.board.forEach((row, r) => {
      row.forEach((x, c) => {
        if (x === 0) empty.push([r, c]);
      });
    });
    if (empty.length === 0) return;
    const [r, c] = this.rng.choice(empty);
    this.board[r]![c] = this.rng.random() < 0.9 ? 2 : 4;
  }

  private maxTile(): number {
    return Math.max(...this.board.flat());
  }

  private changes(move: Direction): boolean {
    const next = slide2048(this.board, move);
    return next.some((row, r) => row.some((x, c) => x !== this.board[r]![c]));
  }

  protected resetGame(): ResetResult {
    if (this.isRandom) [this.targetTile, this.maxTurns] = this.rng.choice(RANDOM_SETTINGS);
    this.board = Array.from({ length: this.boardSize }, () => new Array<number>(this.boardSize).fill(0));
    this.turnCount = 0;
    this.spawnTile();
    this.spawnTile();
    this.best = this.maxTile();
    this.initialBest = this.best;
    return { observation: this.instructions(), info: this.info() };
  }

  protected stepGame(action: string): StepResult {
    this.turnCount += 1;
    const k = this.turnCount;
    const parsed = lastDirection(action, true);
    if (parsed === undefined) {
      return this.formatError(`At turn ${k}, you did not provide a valid move. Please use \\boxed{direction} format.`);
    }
    const move = parsed.direction;
    let observation: string;
    let reward = 0;
    // A word that lower-cases to no direction (`rıght`) changes nothing in GEM either.
    if (move === undefined || !this.changes(move)) {
      observation = `At turn ${k}, you chose move '${parsed.word}' which doesn't change the board state. Try a different direction.`;
    } else {
      this.board = slide2048(this.board, move);
      const m = Math.min(this.maxTile(), this.targetTile);
      if (m > this.best) {
        reward = (Math.log2(m) - Math.log2(this.best)) / (Math.log2(this.targetTile) - Math.log2(this.initialBest));
        this.best = m;
      }
      this.spawnTile();
      if (this.best >= this.targetTile) {
        return this.win(`Congratulations! You reached the ${this.targetTile} tile in ${k} turns!`, reward);
      }
      if (DIRECTIONS.every((d) => !this.changes(d))) return this.lose('Game over! No more moves possible.', reward);
      observation = `At turn ${k}, you moved ${move}`;
    }
    return this.continueOrTimeout(
      observation,
      reward,
      () => reward,
      `You have reached the maximum number of turns (${this.maxTurns}).`,
    );
  }

  /** A move that changes the board (any direction if none does). */
  sampleRandomAction(): string {
    const useful = this.board.length > 0 ? DIRECTIONS.filter((d) => this.changes(d)) : [];
    return `\\boxed{${this.rng.choice(useful.length > 0 ? useful : DIRECTIONS)}}`;
  }
}
