/**
 * Sudoku grids for the Sudoku game: a random full grid by randomized backtracking (cells in row-major order,
 * candidate digits shuffled, as GEM), and a solution counter with a limit (bitmask candidates, fewest-candidates
 * cell first: the count is the same whatever the search order, just faster).
 */
import type { Sfc32Rng } from '@cookbook/core';

/** 0 = empty. */
export type SudokuGrid = number[][];

function boxSide(scale: number): number {
  return Math.round(Math.sqrt(scale));
}

/** Whether `num` can go at (row, col) without repeating in its row, column or box. */
export function sudokuSafe(grid: SudokuGrid, row: number, col: number, num: number): boolean {
  const n = grid.length;
  const b = boxSide(n);
  for (let i = 0; i < n; i++) {
    if (grid[row]![i] === num || grid[i]![col] === num) return false;
  }
  const r0 = b * Math.floor(row / b);
  const c0 = b * Math.floor(col / b);
  for (let r = r0; r < r0 + b; r++) for (let c = c0; c < c0 + b; c++) if (grid[r]![c] === num) return false;
  return true;
}

/** A uniformly-shuffled backtracking fill of an empty `scale` x `scale` grid. */
export function randomFullGrid(scale: number, rng: Sfc32Rng): SudokuGrid {
  const grid: SudokuGrid = Array.from({ length: scale }, () => new Array<number>(scale).fill(0));
  const fill = (cell: number): boolean => {
    if (cell === scale * scale) return true;
    const row = Math.floor(cell / scale);
    const col = cell % scale;
    const digits = rng.shuffle(Array.from({ length: scale }, (_, i) => i + 1));
    for (const d of digits) {
      if (sudokuSafe(grid, row, col, d)) {
        grid[row]![col] = d;
        if (fill(cell + 1)) return true;
        grid[row]![col] = 0;
      }
    }
    return false;
  };
  fill(0);
  return grid;
}

/** The number of solutions of `grid`, counting no further than `limit`. */
export function countSudokuSolutions(grid: SudokuGrid, limit = 2): number {
  const n = grid.length;
  const b = boxSide(n);
  const full = (1 << (n + 1)) - 2;
  const rows = new Array<number>(n).fill(0);
  const cols = new Array<number>(n).fill(0);
  const boxes = new Array<number>(n).fill(0);
  const empty: number[] = [];
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const v = grid[r]![c]!;
      if (v === 0) {
        empty.push(r * n + c);
        continue;
      }
      const bit = 1 << v;
      const bx = b * Math.floor(r / b) + Math.floor(c / b);
      if ((rows[r]! | cols[c]! | boxes[bx]!) & bit) return 0;
      rows[r]! |= bit;
      cols[c]! |= bit;
      boxes[bx]! |= bit;
    }
  }
  let found = 0;
  const popcount = (x: number): number => {
    let k = 0;
    for (let y = x; y; y &= y - 1) k++;
    return k;
  };
  const search = (remaining: number[]): void => {
    if (found >= limit) return;
    if (remaining.length === 0) {
      found++;
      return;
    }
    let bestIdx = 0;
    let bestMask = 0;
    let bestCount = n + 1;
    for (let i = 0; i < remaining.length; i++) {
      const cell = remaining[i]!;
      const r = Math.floor(cell / n);
      const c = cell % n;
      const mask = full & ~(rows[r]! | cols[c]! | boxes[b * Math.floor(r / b) + Math.floor(c / b)]!);
      const k = popcount(mask);
      if (k < bestCount) {
        bestCount = k;
        bestIdx = i;
        bestMask = mask;
        if (k <= 1) break;
      }
    }
    if (bestCount === 0) return;
    const cell = remaining[bestIdx]!;
    const rest = remaining.filter((_, i) => i !== bestIdx);
    const r = Math.floor(cell / n);
    const c = cell % n;
    const bx = b * Math.floor(r / b) + Math.floor(c / b);
    for (let m = bestMask; m && found < limit; m &= m - 1) {
      const bit = m & -m;
      rows[r]! |= bit;
      cols[c]! |= bit;
      boxes[bx]! |= bit;
      search(rest);
      rows[r]! &= ~bit;
      cols[c]! &= ~bit;
      boxes[bx]! &= ~bit;
    }
  };
  search(empty);
  return found;
}
