/**
 * Sokoban room generation as GEM does it (`sokoban/utils.py`, derived from gym-sokoban):
 *
 * 1. Topology: a random walk of `numSteps` steps from a random interior cell (direction re-drawn with p = 0.35),
 *    stamping one of five 3x3 floor masks at each step; the border is wall.
 * 2. The player, then `numBoxes` targets, on distinct random floor cells (GEM's corner check there never fires,
 *    because it tests the cell after marking it a target).
 * 3. Boxes start on their targets; reject the room if a box is frozen (GEM's `detect_frozen_deadlocks`).
 * 4. Reverse play: depth-first search (depth 300, at most 300,000 states) in which the player moves and may pull
 *    the box behind it; keep the first state of highest score = pulls on the path x total Manhattan displacement
 *    of the boxes from their targets, counting only states where every target is empty.
 * 5. Reject a score of 0 or a final box in a deadlock (GEM's corner test, quirks included); up to `tries` rooms.
 *
 * Cells: 0 wall, 1 floor, 2 target, 3 box on target, 4 box, 5 player.
 */
import type { Sfc32Rng } from '@cookbook/core';

export const WALL = 0;
export const FLOOR = 1;
export const TARGET = 2;
export const BOX_ON_TARGET = 3;
export const BOX = 4;
export const PLAYER = 5;

/** Row-major cells with their shape. */
export interface Room {
  rows: number;
  cols: number;
  cells: Uint8Array;
}

export interface GeneratedRoom {
  /** Walls, floor and targets only. */
  fixed: Room;
  /** The start: fixed plus boxes and the player. */
  state: Room;
}

const MOVES: readonly [number, number][] = [
  [-1, 0],
  [1, 0],
  [0, -1],
  [0, 1],
];

const MASKS: readonly (readonly number[])[] = [
  [0, 0, 0, 1, 1, 1, 0, 0, 0],
  [0, 1, 0, 0, 1, 0, 0, 1, 0],
  [0, 0, 0, 1, 1, 0, 0, 1, 0],
  [0, 0, 0, 1, 1, 0, 1, 1, 0],
  [0, 0, 0, 0, 1, 1, 0, 1, 0],
];

function topology(rows: number, cols: number, pChange: number, numSteps: number, rng: Sfc32Rng): Uint8Array {
  const level = new Uint8Array(rows * cols);
  let dir = rng.choice(MOVES);
  let r = rng.int(1, rows - 1);
  let c = rng.int(1, cols - 1);
  for (let s = 0; s < numSteps; s++) {
    if (rng.random() < pChange) dir = rng.choice(MOVES);
    r = Math.max(Math.min(r + dir[0], rows - 2), 1);
    c = Math.max(Math.min(c + dir[1], cols - 2), 1);
    const mask = rng.choice(MASKS);
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) if (mask[i * 3 + j]) level[(r - 1 + i) * cols + (c - 1 + j)] = FLOOR;
    }
  }
  for (let i = 0; i < rows; i++) {
    level[i * cols] = WALL;
    level[i * cols + cols - 1] = WALL;
  }
  for (let j = 0; j < cols; j++) {
    level[j] = WALL;
    level[(rows - 1) * cols + j] = WALL;
  }
  return level;
}

/** GEM's corner test: a non-target cell with 3+ walls, or 2 walls whose direction indices differ by 1 or 3. */
function isDeadlockCell(fixed: Uint8Array, rows: number, cols: number, pos: number): boolean {
  if (fixed[pos] === TARGET) return false;
  const r = Math.floor(pos / cols);
  const c = pos % cols;
  const walls: number[] = [];
  MOVES.forEach(([dr, dc], i) => {
    const nr = r + dr;
    const nc = c + dc;
    if (nr < 0 || nr >= rows || nc < 0 || nc >= cols || fixed[nr * cols + nc] === WALL) walls.push(i);
  });
  if (walls.length > 2) return true;
  if (walls.length === 2) {
    const diff = Math.abs(walls[0]! - walls[1]!);
    return diff === 1 || diff === 3;
  }
  return false;
}

/** A box that cannot be pushed in any direction (the push cell must be floor, target or the player). */
function hasFrozenBox(state: Uint8Array, rows: number, cols: number): boolean {
  const boxes: number[] = [];
  state.forEach((v, i) => {
    if (v === BOX || v === BOX_ON_TARGET) boxes.push(i);
  });
  if (boxes.length < 2) return false;
  for (const b of boxes) {
    const r = Math.floor(b / cols);
    const c = b % cols;
    const movable = MOVES.some(([dr, dc]) => {
      const nr = r + dr;
      const nc = c + dc;
      const pr = r - dr;
      const pc = c - dc;
      if (nr < 0 || nr >= rows || nc < 0 || nc >= cols || pr < 0 || pr >= rows || pc < 0 || pc >= cols) return false;
      const next = state[nr * cols + nc]!;
      const push = state[pr * cols + pc]!;
      return (next === FLOOR || next === TARGET) && (push === FLOOR || push === TARGET || push === PLAYER);
    });
    if (!movable) return true;
  }
  return false;
}

function hasDeadlock(state: Uint8Array, fixed: Uint8Array, rows: number, cols: number): boolean {
  for (let i = 0; i < state.length; i++) {
    if ((state[i] === BOX || state[i] === BOX_ON_TARGET) && isDeadlockCell(fixed, rows, cols, i)) return true;
  }
  return hasFrozenBox(state, rows, cols);
}

/** Fixed pseudo-random 32-bit words for Zobrist hashing of room states (independent of the env's RNG). */
function zobristTable(size: number, salt: number): Uint32Array {
  const table = new Uint32Array(size * 6);
  let x = (0x9e3779b9 ^ salt) >>> 0;
  for (let i = 0; i < table.length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    table[i] = x;
  }
  return table;
}

/**
 * Reverse play from the solved state; returns the best start found and its score. The search mutates one state
 * and undoes each move (children all start from their parent's state, as GEM's copies do) and identifies
 * explored states by a 53-bit Zobrist hash instead of GEM's serialised array.
 */
function reversePlay(start: Uint8Array, fixed: Uint8Array, cols: number): { state: Uint8Array; score: number } {
  const targets: number[] = [];
  fixed.forEach((v, i) => {
    if (v === TARGET) targets.push(i);
  });
  const numTargets = targets.length;
  const zHi = zobristTable(start.length, 1);
  const zLo = zobristTable(start.length, 2);
  const state = start.slice();
  let hi = 0;
  let lo = 0;
  state.forEach((v, i) => {
    hi ^= zHi[i * 6 + v]!;
    lo ^= zLo[i * 6 + v]!;
  });
  const set = (i: number, v: number): void => {
    const old = state[i]!;
    hi ^= zHi[i * 6 + old]! ^ zHi[i * 6 + v]!;
    lo ^= zLo[i * 6 + old]! ^ zLo[i * 6 + v]!;
    state[i] = v;
  };
  const dist = (a: number, b: number): number =>
    Math.abs(Math.floor(a / cols) - Math.floor(b / cols)) + Math.abs((a % cols) - (b % cols));
  const boxOf = targets.slice();
  let displacement = 0;
  const explored = new Set<number>();
  let bestScore = -1;
  let best = start;
  let player = state.indexOf(PLAYER);
  // GEM passes the parent's `last_pull` down unchanged, so its "box swaps" count every pull on the path.
  const dfs = (pulls: number, ttlIn: number): void => {
    const ttl = ttlIn - 1;
    if (ttl <= 0 || explored.size >= 300_000) return;
    const key = (hi >>> 0) * 0x200000 + (lo >>> 11);
    if (explored.has(key)) return;
    let emptyTargets = 0;
    for (const t of targets) if (state[t] === TARGET) emptyTargets++;
    const score = emptyTargets === numTargets ? pulls * displacement : 0;
    if (score > bestScore) {
      bestScore = score;
      best = state.slice();
    }
    explored.add(key);
    for (const [dr, dc] of MOVES) {
      const step = dr * cols + dc;
      const from = player;
      const to = from + step;
      // A blocked move leaves the state as it is: GEM's child is then an explored state and returns at once.
      if (state[to] !== FLOOR && state[to] !== TARGET) continue;
      const behind = from - step;
      const pull = state[behind] === BOX || state[behind] === BOX_ON_TARGET;
      const savedBehind = state[behind]!;
      set(from, fixed[from]!);
      set(to, PLAYER);
      player = to;
      let k = -1;
      if (pull) {
        set(from, BOX_ON_TARGET);
        set(behind, fixed[behind]!);
        k = boxOf.indexOf(behind);
        if (k >= 0) {
          displacement += dist(from, targets[k]!) - dist(behind, targets[k]!);
          boxOf[k] = from;
        }
      }
      dfs(pulls + (pull ? 1 : 0), ttl);
      if (pull) {
        if (k >= 0) {
          boxOf[k] = behind;
          displacement -= dist(from, targets[k]!) - dist(behind, targets[k]!);
        }
        set(behind, savedBehind);
      }
      set(to, fixed[to]!);
      set(from, PLAYER);
      player = from;
    }
  };
  dfs(0, 300);
  return { state: best, score: bestScore };
}

/**
 * One room, or `undefined` after `tries` rejected attempts. `numSteps` is GEM's `int(1.7 * (rows + cols))` when
 * called by the game.
 */
export function generateRoom(
  rows: number,
  cols: number,
  numBoxes: number,
  numSteps: number,
  rng: Sfc32Rng,
  tries = 1000,
): GeneratedRoom | undefined {
  for (let t = 0; t < tries; t++) {
    const room = topology(rows, cols, 0.35, numSteps, rng);
    const floor: number[] = [];
    room.forEach((v, i) => {
      if (v === FLOOR) floor.push(i);
    });
    if (floor.length <= numBoxes + 1) continue;
    room[rng.choice(floor)] = PLAYER;
    for (let b = 0; b < numBoxes; b++) {
      const free: number[] = [];
      room.forEach((v, i) => {
        if (v === FLOOR) free.push(i);
      });
      room[rng.choice(free)] = TARGET;
    }
    const fixed = room.map((v) => (v === PLAYER ? FLOOR : v));
    const state = room.map((v) => (v === TARGET ? BOX : v));
    if (hasDeadlock(state, fixed, rows, cols)) continue;
    const played = reversePlay(state, fixed, cols);
    const start = played.state.map((v) => (v === BOX_ON_TARGET ? BOX : v));
    if (played.score > 0 && !hasDeadlock(start, fixed, rows, cols)) {
      return { fixed: { rows, cols, cells: fixed }, state: { rows, cols, cells: start } };
    }
  }
  return undefined;
}
