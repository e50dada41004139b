import { Sfc32Rng } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { countSudokuSolutions, randomFullGrid } from './internal/sudoku-grid.js';
import { Sudoku } from './sudoku.js';

function isValidFull(grid: number[][]): boolean {
  const n = grid.length;
  const b = Math.sqrt(n);
  const ok = (xs: number[]) =>
    [...xs].sort((x, y) => x - y).join() === Array.from({ length: n }, (_, i) => i + 1).join();
  for (let i = 0; i < n; i++) {
    if (!ok(grid[i]!) || !ok(grid.map((r) => r[i]!))) return false;
    const br = b * Math.floor(i / b);
    const bc = b * (i % b);
    const box: number[] = [];
    for (let r = br; r < br + b; r++) for (let c = bc; c < bc + b; c++) box.push(grid[r]![c]!);
    if (!ok(box)) return false;
  }
  return true;
}

describe('sudoku grids', () => {
  it('fills valid grids and counts solutions up to the limit', () => {
    const rng = new Sfc32Rng(1);
    const g = randomFullGrid(9, rng);
    expect(isValidFull(g)).toBe(true);
    expect(countSudokuSolutions(g)).toBe(1);
    const empty = Array.from({ length: 4 }, () => [0, 0, 0, 0]);
    expect(countSudokuSolutions(empty, 2)).toBe(2);
    expect(countSudokuSolutions(empty, 1000)).toBe(288);
    const clash = g.map((r) => [...r]);
    clash[0]![0] = clash[0]![1]!;
    expect(countSudokuSolutions(clash)).toBe(0);
  });
});

describe('Sudoku', () => {
  it('generates unique-solution puzzles and renders GEM grid', async () => {
    const env = new Sudoku({ scale: 4, clues: 10, maxTurns: 15 });
    const r = await env.reset(5);
    expect(r.observation.startsWith('You are playing A simple version of Sudoku.\n')).toBe(true);
    expect(isValidFull(env.solution)).toBe(true);
    expect(countSudokuSolutions(env.board)).toBe(1);
    const empties = env.board.flat().filter((v) => v === 0).length;
    expect(empties).toBeGreaterThan(0);
    expect(empties).toBeLessThanOrEqual(10);
    env.board = [
      [1, 0, 3, 4],
      [3, 4, 1, 2],
      [2, 1, 4, 3],
      [4, 3, 2, 0],
    ];
    expect(env.renderBoard()).toBe(
      [
        '   C1 C2   C3 C4  ',
        'R1  1  . |  3  4',
        'R2  3  4 |  1  2',
        '   - - - - - - ',
        'R3  2  1 |  4  3',
        'R4  4  3 |  2  .',
      ].join('\n'),
    );
  });

  it('pays 1/empty per right digit, refuses wrong, filled and out-of-range moves, wins when full', async () => {
    const env = new Sudoku({ scale: 9, clues: 50, maxTurns: 100 });
    const r = await env.reset(7);
    expect(r.observation.startsWith('You are playing  Sudoku.\n')).toBe(true);
    const empties: [number, number][] = [];
    env.board.forEach((row, i) => {
      row.forEach((v, j) => {
        if (v === 0) empties.push([i, j]);
      });
    });
    expect(empties.length).toBeGreaterThan(20);
    const filled = env.board.flat().findIndex((v) => v !== 0);
    const fr = Math.floor(filled / 9) + 1;
    const fc = (filled % 9) + 1;
    expect((await env.step(`\\boxed{${fr} ${fc} 1}`)).observation).toBe(
      `At turn 1, you tried to place 1 at R${fr} C${fc}, which is already filled. You cannot overwrite pre-filled cells.`,
    );
    expect((await env.step('\\boxed{10 1 1}')).observation).toBe(
      'At turn 2, you tried to place 1 at R10 C1, which is out of bounds.',
    );
    const [er, ec] = empties[0]!;
    const right = env.solution[er]![ec]!;
    const wrong = (right % 9) + 1;
    expect((await env.step(`\\boxed{${er + 1} ${ec + 1} ${wrong}}`)).observation).toBe(
      `At turn 3, you tried to place ${wrong} at R${er + 1} C${ec + 1}, which violates Sudoku rules.`,
    );
    let total = 0;
    let last = await env.step(`\\boxed{${er + 1} ${ec + 1} ${right}}`);
    expect(last.observation).toBe(`At turn 4, you placed ${right} at R${er + 1} C${ec + 1}, which is correct.`);
    expect(last.reward).toBeCloseTo(1 / empties.length, 12);
    total += last.reward;
    for (const [i, j] of empties.slice(1)) {
      last = await env.step(`\\boxed{${i + 1} ${j + 1} ${env.solution[i]![j]}}`);
      total += last.reward;
    }
    expect(last).toMatchObject({
      observation: 'Congratulations! You have completed the Sudoku puzzle!',
      terminated: true,
      truncated: false,
    });
    expect(total).toBeCloseTo(1, 10);
  });

  it('a comma-separated move is a format error', async () => {
    const env = new Sudoku({ scale: 4, clues: 10, maxTurns: 15 });
    await env.reset(1);
    expect(await env.step('\\boxed{1, 1, 2}')).toMatchObject({
      observation: 'You did not provide a valid guess.',
      reward: -0.1,
      terminated: true,
    });
  });
});
