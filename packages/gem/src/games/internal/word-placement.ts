/**
 * The crossword-style placement WordSearch and Crosswords share (GEM, adapted from TextArena): words longest
 * first on a square grid of side round(1.5 * longest) (Python rounding); the first word centred in its
 * direction; each next word at a random valid crossing with a placed word (it must run across a `down` word or
 * down an `across` one), else at the first free position scanning rows then columns; a word that fits nowhere is
 * dropped. Letters may overlap only where they agree.
 */

import type { Sfc32Rng } from '@cookbook/core';
import { pyRound } from '../../core/boxed.js';

export type WordDirection = 'across' | 'down';

export interface WordPlacement {
  row: number;
  col: number;
  direction: WordDirection;
}

/** `.` marks an empty cell. */
export type LetterGrid = string[][];

function canPlace(grid: LetterGrid, word: string, direction: WordDirection, row: number, col: number): boolean {
  const n = grid.length;
  if (direction === 'across' ? col + word.length > n : row + word.length > n) return false;
  for (let i = 0; i < word.length; i++) {
    const cell = direction === 'across' ? grid[row]![col + i]! : grid[row + i]![col]!;
    if (cell !== '.' && cell !== word[i]) return false;
  }
  return true;
}

function place(grid: LetterGrid, word: string, direction: WordDirection, row: number, col: number): void {
  for (let i = 0; i < word.length; i++) {
    if (direction === 'across') grid[row]![col + i] = word[i]!;
    else grid[row + i]![col] = word[i]!;
  }
}

/**
 * Places `words` (already sorted longest first) with their `directions`; returns the grid (`.` where empty) and
 * the placements in placing order.
 */
export function placeWords(
  words: readonly string[],
  directions: ReadonlyMap<string, WordDirection>,
  rng: Sfc32Rng,
): { grid: LetterGrid; placed: Map<string, WordPlacement> } {
  const size = pyRound(Math.max(...words.map((w) => w.length)) * 1.5);
  const grid: LetterGrid = Array.from({ length: size }, () => new Array<string>(size).fill('.'));
  const placed = new Map<string, WordPlacement>();
  for (const word of words) {
    const dir = directions.get(word)!;
    let done = false;
    if (placed.size === 0) {
      const row = dir === 'across' ? Math.floor(size / 2) : Math.floor((size - word.length) / 2);
      const col = dir === 'across' ? Math.floor((size - word.length) / 2) : Math.floor(size / 2);
      if (canPlace(grid, word, dir, row, col)) {
        place(grid, word, dir, row, col);
        placed.set(word, { row, col, direction: dir });
        done = true;
      }
    } else {
      const options: WordPlacement[] = [];
      for (const [other, p] of placed) {
        for (let i = 0; i < word.length; i++) {
          for (let j = 0; j < other.length; j++) {
            if (word[i] !== other[j]) continue;
            const cand: WordPlacement =
              p.direction === 'across'
                ? { row: p.row - i, col: p.col + j, direction: 'down' }
                : { row: p.row + j, col: p.col - i, direction: 'across' };
            if (cand.direction !== dir) continue;
            if (cand.row < 0 || cand.row >= size || cand.col < 0 || cand.col >= size) continue;
            if (canPlace(grid, word, cand.direction, cand.row, cand.col)) options.push(cand);
          }
        }
      }
      rng.shuffle(options);
      const pick = options[0];
      if (pick !== undefined) {
        place(grid, word, pick.direction, pick.row, pick.col);
        placed.set(word, pick);
        done = true;
      }
    }
    for (let row = 0; row < size && !done; row++) {
      for (let col = 0; col < size && !done; col++) {
        if (canPlace(grid, word, dir, row, col)) {
          place(grid, word, dir, row, col);
          placed.set(word, { row, col, direction: dir });
          done = true;
        }
      }
    }
  }
  return { grid, placed };
}

/** The start and end cells of a placement. */
export function wordEnds(word: string, p: WordPlacement): [number, number, number, number] {
  return p.direction === 'across'
    ? [p.row, p.col, p.row, p.col + word.length - 1]
    : [p.row, p.col, p.row + word.length - 1, p.col];
}
