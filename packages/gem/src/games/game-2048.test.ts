import { ConfigError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { Game2048, slide2048 } from './game-2048.js';

describe('slide2048', () => {
  it('merges each pair once, from the side the tiles move toward', () => {
    const b = [
      [2, 2, 2, 2],
      [4, 0, 4, 8],
      [2, 2, 4, 0],
      [0, 0, 0, 2],
    ];
    expect(slide2048(b, 'left')).toEqual([
      [4, 4, 0, 0],
      [8, 8, 0, 0],
      [4, 4, 0, 0],
      [2, 0, 0, 0],
    ]);
    expect(slide2048(b, 'right')).toEqual([
      [0, 0, 4, 4],
      [0, 0, 8, 8],
      [0, 0, 4, 4],
      [0, 0, 0, 2],
    ]);
    const col = [
      [2, 0, 0, 0],
      [2, 0, 0, 0],
      [2, 0, 0, 0],
      [0, 0, 0, 0],
    ];
    expect(slide2048(col, 'up').map((r) => r[0])).toEqual([4, 2, 0, 0]);
    expect(slide2048(col, 'down').map((r) => r[0])).toEqual([0, 0, 2, 4]);
  });
});

describe('Game2048', () => {
  it('starts with two tiles and renders cells right-aligned in 4', async () => {
    const env = new Game2048({ targetTile: 64, maxTurns: 50 });
    const r = await env.reset(3);
    expect(env.board.flat().filter((x) => x > 0)).toHaveLength(2);
    expect(r.observation).toContain(
      'Your goal is to reach the 64 tile by sliding and merging tiles.\nYou have 50 turns maximum.\n',
    );
    env.board = [
      [0, 2, 0, 0],
      [0, 0, 16, 0],
      [128, 0, 0, 0],
      [0, 0, 0, 2048],
    ];
    expect(env.taskSuffix()).toBe(
      'Current board:\n   .    2    .    .\n   .    .   16    .\n 128    .    .    .\n   .    .    . 2048\nEnter your move.',
    );
  });

  it('pays log-scale progress toward the target and spawns one tile per move', async () => {
    const env = new Game2048({ targetTile: 64, maxTurns: 50 });
    await env.reset(3);
    const { initial } = env.progress;
    env.board = [
      [initial, initial, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ];
    const s = await env.step('\\boxed{LEFT}');
    expect(s.observation).toBe('At turn 1, you moved left');
    expect(s.reward).toBeCloseTo(1 / (6 - Math.log2(initial)), 12);
    expect(env.board.flat().filter((x) => x > 0)).toHaveLength(2);
    expect(env.board[0]![0]).toBe(initial * 2);
  });

  it('a move that changes nothing is invalid; the target tile wins; a full stuck board ends the game', async () => {
    const env = new Game2048({ targetTile: 64, maxTurns: 50 });
    await env.reset(3);
    env.board = [
      [32, 32, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 0, 0, 0],
    ];
    expect((await env.step('\\boxed{up}')).observation).toBe(
      "At turn 1, you chose move 'up' which doesn't change the board state. Try a different direction.",
    );
    const win = await env.step('\\boxed{left}');
    expect(win).toMatchObject({
      observation: 'Congratulations! You reached the 64 tile in 2 turns!',
      terminated: true,
      truncated: false,
    });
    expect(win.reward).toBeGreaterThan(0);

    const big = new Game2048({ targetTile: 2048, maxTurns: 50 });
    await big.reset(4);
    const { initial } = big.progress;
    big.board = [
      [2, 4, 2, 4],
      [4, 2, 4, 2],
      [32, 4, 2, 4],
      [8, 16, 0, 64],
    ];
    // Right leaves (3, 0) as the only empty cell; a 2 or a 4 there touches 32 and 8, so no move is left.
    const s = await big.step('\\boxed{right}');
    expect(s).toMatchObject({ observation: 'Game over! No more moves possible.', terminated: true, truncated: false });
    expect(s.reward).toBeCloseTo((6 - Math.log2(initial)) / (11 - Math.log2(initial)), 12);
    expect([2, 4]).toContain(big.board[3]![0]);
  });

  it('says the turn limit in the timeout observation', async () => {
    const env = new Game2048({ targetTile: 2048, maxTurns: 1 });
    await env.reset(2);
    const s = await env.step(env.sampleRandomAction());
    expect(s).toMatchObject({
      observation: 'You have reached the maximum number of turns (1).',
      terminated: true,
      truncated: true,
    });
  });

  it('rejects a target that is not a power of two', () => {
    expect(() => new Game2048({ targetTile: 100 })).toThrow(ConfigError);
  });
});
