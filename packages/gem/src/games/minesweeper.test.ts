import { ConfigError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { Minesweeper } from './minesweeper.js';

const easy = () => new Minesweeper({ rows: 5, cols: 5, numMines: 5, maxTurns: 25 });

describe('Minesweeper', () => {
  it('renders the hidden board and GEM instructions', async () => {
    const env = easy();
    const r = await env.reset(1);
    expect(r.observation.startsWith('You are playing the Minesweeper game.\n')).toBe(true);
    expect(r.observation).toMatch(/- \\boxed\{reveal (\d) (\d)\} to reveal the cell in Row \1, Column \2\.\n/);
    expect(r.info.suffix).toBe(
      'Here is the current board layout:\n    0  1  2  3  4\n 0  .  .  .  .  . \n 1  .  .  .  .  . \n 2  .  .  .  .  . \n 3  .  .  .  .  . \n 4  .  .  .  .  . \n\nEnter your guess.',
    );
    expect(env.minesPlaced).toBe(false);
  });

  it('places mines at the first reveal outside its 3x3 and flood-fills from a zero', async () => {
    for (let seed = 0; seed < 20; seed++) {
      const env = new Minesweeper({ rows: 8, cols: 8, numMines: 12, maxTurns: 64 });
      await env.reset(seed);
      const s = await env.step('\\boxed{REVEAL 3 4}');
      expect(s.observation).toBe('At turn 1, you successfully revealed cell (3, 4).');
      const mines = env.grid.flat().filter((v) => v === -1).length;
      expect(mines).toBe(12);
      for (let r = 2; r <= 4; r++) for (let c = 3; c <= 5; c++) expect(env.grid[r]![c]).not.toBe(-1);
      expect(env.grid[3]![4]).toBe(0);
      const opened = env.revealed.flat().filter(Boolean).length;
      expect(opened).toBeGreaterThanOrEqual(9);
      expect(s.reward).toBeCloseTo(opened / (64 - 12), 12);
      // Every revealed zero has all its neighbours revealed.
      for (let r = 0; r < 8; r++) {
        for (let c = 0; c < 8; c++) {
          if (!env.revealed[r]![c] || env.grid[r]![c] !== 0) continue;
          for (let dr = -1; dr <= 1; dr++) {
            for (let dc = -1; dc <= 1; dc++) {
              const nr = r + dr;
              const nc = c + dc;
              if (nr >= 0 && nr < 8 && nc >= 0 && nc < 8) expect(env.revealed[nr]![nc]).toBe(true);
            }
          }
        }
      }
    }
  });

  it('flags toggle, invalid moves cost 0, a mine ends the game with 0', async () => {
    const env = easy();
    await env.reset(2);
    await env.step('\\boxed{reveal 2 2}');
    const hiddenMine = (() => {
      for (let r = 0; r < 5; r++) for (let c = 0; c < 5; c++) if (env.grid[r]![c] === -1) return [r, c] as const;
      throw new Error('no mine');
    })();
    const [mr, mc] = hiddenMine;
    expect((await env.step(`\\boxed{flag ${mr} ${mc}}`)).observation).toBe(
      `At turn 2, you added a flag on cell (${mr}, ${mc}).`,
    );
    expect(env.taskSuffix()).toContain(' F ');
    expect((await env.step(`\\boxed{flag ${mr} ${mc}}`)).observation).toBe(
      `At turn 3, you removed a flag on cell (${mr}, ${mc}).`,
    );
    expect((await env.step('\\boxed{reveal 2 2}')).observation).toBe(
      'At turn 4, you chose to reveal cell (2, 2), which has already been revealed.',
    );
    expect((await env.step('\\boxed{flag 2 2}')).observation).toBe(
      'At turn 5, you chose to flag cell (2, 2), which has already been revealed.',
    );
    expect((await env.step('\\boxed{reveal 5 0}')).observation).toBe(
      'At turn 6, you chose cell (5, 0), which is outside the bounds of the grid.',
    );
    expect((await env.step('\\boxed{dig 0 0}')).observation).toBe(
      "At turn 7, you chose an invalid action 'dig'. Valid actions are 'reveal' or 'flag'.",
    );
    const boom = await env.step(`\\boxed{reveal ${mr} ${mc}}`);
    expect(boom).toMatchObject({
      observation: `Game over! You hit a mine at (${mr}, ${mc})`,
      reward: 0,
      terminated: true,
      truncated: false,
    });
  });

  it('wins only when every mine is flagged and every safe cell revealed; safe reveals sum to 1', async () => {
    const env = easy();
    await env.reset(3);
    let total = (await env.step('\\boxed{reveal 2 2}')).reward;
    const mines: [number, number][] = [];
    for (let r = 0; r < 5; r++) for (let c = 0; c < 5; c++) if (env.grid[r]![c] === -1) mines.push([r, c]);
    for (const [r, c] of mines.slice(1)) await env.step(`\\boxed{flag ${r} ${c}}`);
    let last = await env.step('\\boxed{flag 9 9}');
    for (let r = 0; r < 5; r++) {
      for (let c = 0; c < 5; c++) {
        if (env.grid[r]![c] !== -1 && !env.revealed[r]![c]) {
          last = await env.step(`\\boxed{reveal ${r} ${c}}`);
          total += last.reward;
        }
      }
    }
    expect(total).toBeCloseTo(1, 12);
    expect(last.terminated).toBe(false);
    const [r0, c0] = mines[0]!;
    await env.step(`\\boxed{flag ${r0} ${c0}}`);
    // Solved is only checked after a reveal: a repeated reveal is invalid and does not check it.
    const again = await env.step('\\boxed{reveal 2 2}');
    expect(again.terminated).toBe(false);
  });

  it('random variant: n in 5..8, floor(n^2/5) mines, n^2 turns; too many mines is refused', async () => {
    const env = new Minesweeper({ rows: null, cols: null, numMines: null, maxTurns: null });
    const seen = new Set<number>();
    for (let s = 0; s < 40; s++) {
      await env.reset(s);
      seen.add(env.rows);
      expect([env.cols, env.numMines, env.maxTurns]).toEqual([env.rows, Math.floor(env.rows ** 2 / 5), env.rows ** 2]);
    }
    expect([...seen].sort()).toEqual([5, 6, 7, 8]);
    expect(() => new Minesweeper({ rows: 4, cols: 4, numMines: 8 })).toThrow(ConfigError);
  });
});
