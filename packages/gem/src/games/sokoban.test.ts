import { ConfigError, Sfc32Rng } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { BOX, BOX_ON_TARGET, generateRoom, PLAYER, TARGET, WALL } from './internal/sokoban-room.js';
import { Sokoban } from './sokoban.js';

/** Breadth-first search over (player, boxes): the fewest pushes+moves to solve, or -1 (small rooms only). */
function solveLength(fixed: Uint8Array, state: Uint8Array, cols: number, limit = 200_000): number {
  const boxes0 = [...state.keys()].filter((i) => state[i] === BOX || state[i] === BOX_ON_TARGET);
  const targets = new Set([...fixed.keys()].filter((i) => fixed[i] === TARGET));
  const start = { p: state.indexOf(PLAYER), b: boxes0 };
  const key = (p: number, b: number[]) => `${p}|${[...b].sort((x, y) => x - y).join(',')}`;
  const seen = new Set([key(start.p, start.b)]);
  let frontier = [start];
  for (let depth = 0; frontier.length > 0 && seen.size < limit; depth++) {
    const next: typeof frontier = [];
    for (const { p, b } of frontier) {
      if (b.every((x) => targets.has(x))) return depth;
      for (const d of [-cols, cols, -1, 1]) {
        const to = p + d;
        if (fixed[to] === WALL) continue;
        let nb = b;
        if (b.includes(to)) {
          const beyond = to + d;
          if (fixed[beyond] === WALL || b.includes(beyond)) continue;
          nb = b.map((x) => (x === to ? beyond : x));
        }
        const k = key(to, nb);
        if (!seen.has(k)) {
          seen.add(k);
          next.push({ p: to, b: nb });
        }
      }
    }
    frontier = next;
  }
  return -1;
}

describe('Sokoban rooms', () => {
  it('generates walled rooms with the boxes off their targets, and every room is solvable', () => {
    const rng = new Sfc32Rng(11);
    for (let i = 0; i < 15; i++) {
      const room = generateRoom(6, 6, 2, Math.floor(1.7 * 12), rng)!;
      const { cells } = room.state;
      const fixed = room.fixed.cells;
      for (let j = 0; j < 6; j++) {
        expect([cells[j], cells[30 + j], cells[j * 6], cells[j * 6 + 5]]).toEqual([WALL, WALL, WALL, WALL]);
      }
      expect(cells.filter((v) => v === BOX)).toHaveLength(2);
      expect(cells.filter((v) => v === BOX_ON_TARGET)).toHaveLength(0);
      expect(fixed.filter((v) => v === TARGET)).toHaveLength(2);
      expect(cells.filter((v) => v === PLAYER)).toHaveLength(1);
      expect(solveLength(fixed, cells, 6)).toBeGreaterThan(0);
    }
  });
});

describe('Sokoban', () => {
  it('renders the board and plays pushes, blocked moves and a win', async () => {
    const env = new Sokoban({ dimRoom: [6, 6], numBoxes: 2, maxTurns: 20 });
    const r = await env.reset(3);
    expect(r.observation.startsWith('You are solving the Sokoban puzzle.')).toBe(true);
    expect(r.observation).toMatch(/For example: \\boxed\{(up|down|left|right)\} to move \1\.\n/);
    env.loadBoard(['# # # # #', '# P X O #', '# _ _ _ #', '# # # # #'].join('\n'));
    expect(env.taskSuffix()).toBe(
      'Here is the current board layout:\n# # # # #\n# P X O #\n# _ _ _ #\n# # # # #\n\nEnter your move.',
    );
    expect((await env.step('\\boxed{up}')).observation).toBe(
      'At turn 1, you cannot move up - you would collide with wall or other boxes!',
    );
    expect((await env.step('\\boxed{Down}')).observation).toBe('At turn 2, you moved down.');
    expect((await env.step('\\boxed{up}')).observation).toBe('At turn 3, you moved up.');
    const win = await env.step('\\boxed{RIGHT}');
    expect(win).toMatchObject({
      observation: 'Congratulations! You have solved the Sokoban puzzle!',
      reward: 1,
      terminated: true,
      truncated: false,
    });
    expect(env.renderBoard()).toBe('# # # # #\n# _ P √ #\n# _ _ _ #\n# # # # #\n');
  });

  it('pays boxes on targets / boxes at the turn limit; a push into a box is blocked', async () => {
    const env = new Sokoban({ dimRoom: [6, 6], numBoxes: 2, maxTurns: 3 });
    await env.reset(1);
    env.loadBoard(['# # # # # #', '# P X O _ #', '# _ X X O #', '# # # # # #'].join('\n'));
    env.maxTurns = 2;
    const s1 = await env.step('\\boxed{right}');
    expect(s1.observation).toBe('At turn 1, you pushed a box while you moved right.');
    const s2 = await env.step('\\boxed{down}');
    expect(s2).toMatchObject({
      observation: 'You have reached the maximum number of turns.',
      terminated: true,
      truncated: true,
    });
    expect(s2.reward).toBeCloseTo(1 / 3, 12);
    expect(await env.step('move right')).toMatchObject({
      observation: 'At turn 3, your submitted action is not valid.',
      reward: -0.1,
    });
  });

  it('refuses malformed boards clearly', () => {
    const env = new Sokoban({ dimRoom: [6, 6], numBoxes: 2, maxTurns: 20 });
    expect(() => env.loadBoard('# # #\n# P\n# # #')).toThrow(ConfigError);
    expect(() => env.loadBoard('# # #\n# Q #\n# # #')).toThrow(/unknown symbol "Q"/);
    expect(() => env.loadBoard('# # #\n# _ #\n# # #')).toThrow(/exactly one player/);
  });

  it('random variant draws GEM settings', async () => {
    const env = new Sokoban({ dimRoom: null, numBoxes: null, maxTurns: null });
    const seen = new Set<string>();
    for (let s = 0; s < 8; s++) {
      await env.reset(s);
      seen.add(`${env.dimRoom.join('x')},${env.numBoxes},${env.maxTurns}`);
    }
    expect([...seen].sort()).toEqual(['6x6,2,20', '8x8,5,50']);
  });
});
