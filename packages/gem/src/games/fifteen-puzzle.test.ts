import { describe, expect, it } from 'vitest';
import { FifteenPuzzle } from './fifteen-puzzle.js';

describe('FifteenPuzzle', () => {
  it('renders the board and moves the named tile into the blank', async () => {
    const env = new FifteenPuzzle({ numRows: 3, maxTurns: 20 });
    const r = await env.reset(5);
    expect(r.observation.startsWith('You are playing the 8-Puzzle game.\n')).toBe(true);
    env.board = [
      [1, 2, 3],
      [4, null, 6],
      [7, 5, 8],
    ];
    expect(env.taskSuffix()).toBe(
      'Here is the current board layout: \n 1  2  3\n 4 __  6\n 7  5  8\n\nEnter your move.',
    );
    const s = await env.step('\\boxed{up}');
    expect(s.observation).toBe('At turn 1, you made a valid move: up.\n');
    expect(s.reward).toBe(0);
    expect(env.board).toEqual([
      [1, 2, 3],
      [4, 5, 6],
      [7, null, 8],
    ]);
    expect((await env.step('\\boxed{up}')).observation).toBe(
      'At turn 2, you chose a move up that is outside the bounds of the board.',
    );
    const win = await env.step('\\boxed{left}');
    expect(win).toMatchObject({
      observation: 'Congratulations! You have solved the puzzle!',
      reward: 1,
      terminated: true,
      truncated: false,
    });
  });

  it('moves must be lower-case: \\boxed{Up} is a format error', async () => {
    const env = new FifteenPuzzle({ numRows: 2, maxTurns: 10 });
    await env.reset(1);
    expect(await env.step('\\boxed{Up}')).toMatchObject({
      observation: 'At turn 1, you did not provide a valid guess',
      reward: -0.1,
      terminated: true,
    });
  });

  it('pays the fraction of cells in place at the turn limit', async () => {
    const env = new FifteenPuzzle({ numRows: 2, maxTurns: 1 });
    await env.reset(1);
    env.board = [
      [null, 1],
      [3, 2],
    ];
    // `left` moves 1 into the blank: [1, __], [3, 2]; cells in place: 1 and 3.
    const s = await env.step('\\boxed{left}');
    expect(s).toMatchObject({
      observation: 'You have reached the maximum number of turns.',
      terminated: true,
      truncated: true,
    });
    expect(s.reward).toBeCloseTo(2 / 4, 12);
  });

  it('scrambles into a solvable permutation, both algorithms', async () => {
    for (const initAlgo of ['monte_carlo', 'pure_random'] as const) {
      const env = new FifteenPuzzle({ numRows: 4, maxTurns: 50, initAlgo });
      for (let seed = 0; seed < 20; seed++) {
        await env.reset(seed);
        const flat = env.board.flat();
        expect(flat.filter((t) => t !== null).sort((a, b) => a! - b!)).toEqual(
          Array.from({ length: 15 }, (_, i) => i + 1),
        );
        // Solvability on a 4x4: inversions + blank row counted from the bottom (1-based) is odd.
        const tiles = flat.filter((t): t is number => t !== null);
        let inv = 0;
        for (let i = 0; i < tiles.length; i++)
          for (let j = i + 1; j < tiles.length; j++) if (tiles[i]! > tiles[j]!) inv++;
        const blankRowFromBottom = 4 - Math.floor(flat.indexOf(null) / 4);
        expect((inv + blankRowFromBottom) % 2, `${initAlgo} seed ${seed}`).toBe(1);
      }
    }
  });

  it('the random variant works (GEM crashes there) and draws GEM sizes', async () => {
    const env = new FifteenPuzzle({ numRows: null, maxTurns: null });
    const seen = new Set<string>();
    for (let s = 0; s < 40; s++) {
      await env.reset(s);
      seen.add(`${env.numRows},${env.maxTurns}`);
      expect(env.board).toHaveLength(env.numRows);
    }
    expect([...seen].sort()).toEqual(['2,10', '3,20', '4,50']);
  });
});
