/**
 * Sokoban (GEM `sokoban/sokoban.py`): push every box onto a target in a procedurally generated room.
 *
 * As in GEM: moving into a wall or off the grid, or pushing a box into a wall or another box, is invalid (0); other
 * moves pay 0; all boxes on targets wins 1.0; at the turn limit the reward is the fraction of boxes on targets.
 * Board symbols: `#` wall, `_` floor, `O` target, `√` box on target, `X` box, `P` player (also on a target).
 */
import { ConfigError } from '@cookbook/core';
import { z } from 'zod';
import type { ResetResult, StepResult } from '../core/env.js';
import { LanguageGameReward } from '../core/env.js';
import type { EnvOptions } from '../core/registry.js';
import { DELTA, DIRECTIONS, type Direction, lastDirection } from './internal/directions.js';
import { GameEnv } from './internal/game-env.js';
import { parseGameOptions, seedOpt } from './internal/options.js';
import { BOX, BOX_ON_TARGET, FLOOR, generateRoom, PLAYER, TARGET, WALL } from './internal/sokoban-room.js';

export const SokobanOptions = z.object({
  dimRoom: z
    .tuple([z.number().int().min(4).max(12), z.number().int().min(4).max(12)])
    .nullable()
    .default([6, 6])
    .describe('room rows and columns, border walls included; null = random variant'),
  numBoxes: z.number().int().min(1).max(8).nullable().default(3).describe('boxes (and targets); null = random'),
  maxTurns: z.number().int().min(1).nullable().default(100).describe('turn limit; null = random variant'),
  seed: seedOpt,
});

/** GEM's random-variant settings: (room, boxes, turns). */
const RANDOM_SETTINGS: readonly [[number, number], number, number][] = [
  [[6, 6], 2, 20],
  [[8, 8], 5, 50],
];

const SYMBOL: Record<number, string> = { 0: '#', 1: '_', 2: 'O', 3: '√', 4: 'X', 5: 'P' };

export class Sokoban extends GameEnv {
  dimRoom: [number, number];
  numBoxes: number;
  maxTurns: number;
  readonly isRandom: boolean;
  /** Walls, floor and targets (row-major). */
  fixed: Uint8Array = new Uint8Array();
  /** The current cells (row-major), boxes and player included. */
  state: Uint8Array = new Uint8Array();
  private player = 0;

  constructor(options: EnvOptions = {}) {
    const o = parseGameOptions('Sokoban', SokobanOptions, options);
    super(o.seed);
    this.isRandom = o.dimRoom === null || o.numBoxes === null || o.maxTurns === null;
    this.dimRoom = o.dimRoom ?? [6, 6];
    this.numBoxes = o.numBoxes ?? 3;
    this.maxTurns = o.maxTurns ?? 100;
    this.resetGame();
  }

  private get cols(): number {
    return this.dimRoom[1];
  }

  /** Symbols joined by spaces, one row per line, each ending in a newline. */
  renderBoard(): string {
    let out = '';
    for (let r = 0; r < this.dimRoom[0]; r++) {
      const row = Array.from(this.state.subarray(r * this.cols, (r + 1) * this.cols), (v) => SYMBOL[v]);
      out += `${row.join(' ')}\n`;
    }
    return out;
  }

  taskSuffix(): string {
    return `Here is the current board layout:\n${this.renderBoard()}\nEnter your move.`;
  }

  private instructions(): string {
    const example = this.sampleRandomAction();
    const move = /\{(\w+)\}/.exec(example)?.[1];
    return (
      'You are solving the Sokoban puzzle. You are the player and you need to push all boxes to targets.\n' +
      'When you are right next to a box, you can push it by moving in the same direction.\n' +
      'You cannot push a box through a wall or another box, and you cannot pull a box.\n' +
      `you have to complete the puzzle within ${this.maxTurns} turns.\n` +
      'On the board, objects are represented as:\n' +
      "- The player (you) appears as 'P'\n" +
      "- Walls are represented with '#'\n" +
      "- Boxes are marked as 'X'\n" +
      "- Empty goals are shown with 'O'\n" +
      "- Boxes on goals are visualized with '√'\n" +
      "- Empty floor is shown as '_'\n\n" +
      'To submit your move, type the command in \\boxed{}.\n' +
      `For example: ${example} to move ${move}.\n` +
      'Use logic and deduction to push all boxes onto the target positions!'
    );
  }

  protected resetGame(): ResetResult {
    if (this.isRandom) {
      const [dim, boxes, turns] = this.rng.choice(RANDOM_SETTINGS);
      this.dimRoom = [...dim];
      this.numBoxes = boxes;
      this.maxTurns = turns;
    }
    const [rows, cols] = this.dimRoom;
    const steps = Math.floor(1.7 * (rows + cols));
    // GEM: up to 50 calls of 1000 tries each.
    let room: ReturnType<typeof generateRoom>;
    for (let attempt = 0; attempt < 50 && room === undefined; attempt++) {
      room = generateRoom(rows, cols, this.numBoxes, steps, this.rng);
    }
    if (room === undefined) {
      throw new ConfigError(
        `Sokoban: could not generate a ${rows}x${cols} room with ${this.numBoxes} boxes after 50,000 tries; use fewer boxes or a larger room`,
        { key: 'numBoxes' },
      );
    }
    this.fixed = room.fixed.cells;
    this.state = room.state.cells;
    this.player = this.state.indexOf(PLAYER);
    this.turnCount = 0;
    return { observation: this.instructions(), info: this.info() };
  }

  /**
   * Replaces the room with a board in the rendered format (`#`, `_`, `O`, `√`, `X`, `P`, space-separated, one row per
   * line) and restarts the turn count: for fixed levels and tests. The box count becomes the number of boxes drawn.
   * Throws {@link ConfigError} on a ragged board, an unknown symbol, or not exactly one player.
   */
  loadBoard(text: string): void {
    const rows = text
      .trim()
      .split('\n')
      .map((line) => line.trim().split(/\s+/));
    const cols = rows[0]?.length ?? 0;
    const code: Record<string, number> = { '#': WALL, _: FLOOR, O: TARGET, '√': BOX_ON_TARGET, X: BOX, P: PLAYER };
    const state = new Uint8Array(rows.length * cols);
    rows.forEach((row, r) => {
      if (row.length !== cols) {
        throw new ConfigError(`Sokoban board: row ${r + 1} has ${row.length} cells, expected ${cols}`, {
          key: 'board',
        });
      }
      row.forEach((sym, c) => {
        const v = code[sym];
        if (v === undefined)
          throw new ConfigError(`Sokoban board: unknown symbol "${sym}" at row ${r + 1}`, { key: 'board' });
        state[r * cols + c] = v;
      });
    });
    if (state.filter((v) => v === PLAYER).length !== 1) {
      throw new ConfigError('Sokoban board: needs exactly one player P', { key: 'board' });
    }
    this.dimRoom = [rows.length, cols];
    this.state = state;
    this.fixed = state.map((v) => (v === BOX_ON_TARGET ? TARGET : v === BOX || v === PLAYER ? FLOOR : v));
    this.numBoxes = state.filter((v) => v === BOX || v === BOX_ON_TARGET).length;
    this.player = state.indexOf(PLAYER);
    this.turnCount = 0;
  }

  /** The cell one step from `pos` toward `d`, or -1 off the grid. */
  private neighbour(pos: number, d: Direction): number {
    const [dr, dc] = DELTA[d];
    const r = Math.floor(pos / this.cols) + dr;
    const c = (pos % this.cols) + dc;
    return r < 0 || r >= this.dimRoom[0] || c < 0 || c >= this.cols ? -1 : r * this.cols + c;
  }

  /** Whether `d` runs into a wall or the edge, or pushes a box into a wall, a box or the edge. */
  private blocked(d: Direction): boolean {
    const to = this.neighbour(this.player, d);
    if (to < 0 || this.state[to] === WALL) return true;
    if (this.state[to] === BOX || this.state[to] === BOX_ON_TARGET) {
      const beyond = this.neighbour(to, d);
      return beyond < 0 || !(this.state[beyond] === FLOOR || this.state[beyond] === TARGET);
    }
    return false;
  }

  /** Boxes on targets. */
  boxesOnTargets(): number {
    return this.state.filter((v) => v === BOX_ON_TARGET).length;
  }

  protected stepGame(action: string): StepResult {
    this.turnCount += 1;
    const k = this.turnCount;
    const parsed = lastDirection(action, true);
    if (parsed === undefined) return this.formatError(`At turn ${k}, your submitted action is not valid.`);
    const move = parsed.direction;
    let observation: string;
    if (move === undefined) {
      // GEM raises here (its action list has no `rıght`); an invalid move is the answer that keeps the episode going.
      observation = `At turn ${k}, invalid move - cannot move to that position.`;
    } else if (this.blocked(move)) {
      observation = `At turn ${k}, you cannot move ${move} - you would collide with wall or other boxes!`;
    } else {
      const to = this.neighbour(this.player, move);
      const pushed = this.state[to] === BOX || this.state[to] === BOX_ON_TARGET;
      if (pushed) {
        const beyond = this.neighbour(to, move);
        this.state[beyond] = this.fixed[beyond] === TARGET ? BOX_ON_TARGET : BOX;
      }
      this.state[this.player] = this.fixed[this.player]!;
      this.state[to] = PLAYER;
      this.player = to;
      observation = `At turn ${k}, you ${pushed ? 'pushed a box while you ' : ''}moved ${move}.`;
      if (this.boxesOnTargets() === this.numBoxes) {
        return this.win('Congratulations! You have solved the Sokoban puzzle!', LanguageGameReward.success);
      }
    }
    return this.continueOrTimeout(
      observation,
      LanguageGameReward.internalStep,
      () => this.boxesOnTargets() / this.numBoxes,
    );
  }

  /** A move that is not blocked (any direction if all are). */
  sampleRandomAction(): string {
    const open = this.state.length > 0 ? DIRECTIONS.filter((d) => !this.blocked(d)) : [];
    return `\\boxed{${this.rng.choice(open.length > 0 ? open : DIRECTIONS)}}`;
  }
}
