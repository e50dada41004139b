import { describe, expect, it } from 'vitest';
import { towerOfHanoiPlayer } from './players.js';
import { TowerOfHanoi } from './tower-of-hanoi.js';

describe('TowerOfHanoi', () => {
  it('renders the towers and plays legal moves with reward 0', async () => {
    const env = new TowerOfHanoi({ numDisks: 3, maxTurns: 10 });
    const r = await env.reset(0);
    expect(r.observation.startsWith('You are playing Tower of Hanoi with 3 disks.\n')).toBe(true);
    expect(r.info.suffix).toBe(
      'Here is the current state of the tower of hanoi:\nA: [3, 2, 1]\nB: []\nC: []\n\nEnter your move.',
    );
    const s = await env.step('\\boxed{a, c}');
    expect(s).toEqual({
      observation: 'At turn 1, you moved disk 1 from tower A to tower C.',
      reward: 0,
      terminated: false,
      truncated: false,
      info: {
        suffix: 'Here is the current state of the tower of hanoi:\nA: [3, 2]\nB: []\nC: [1]\n\nEnter your move.',
      },
    });
    expect((await env.step('\\boxed{AC}')).observation).toBe(
      'At turn 2, you tried to move from tower A to tower C, but the top disk on tower A is larger than the top disk on tower C.',
    );
    expect((await env.step('\\boxed{B C}')).observation).toBe(
      'At turn 3, you tried to move from tower B, which is empty.',
    );
    expect((await env.step('\\boxed{C C}')).observation).toBe('At turn 4, you moved disk 1 from tower C to tower C.');
    expect(await env.step('\\boxed{A D}')).toMatchObject({
      observation: 'You did not provide a valid action.',
      reward: -0.1,
      terminated: true,
    });
  });

  it('pays disks on C / n at the turn limit', async () => {
    const env = new TowerOfHanoi({ numDisks: 3, maxTurns: 3 });
    await env.reset(0);
    await env.step('\\boxed{A C}');
    await env.step('\\boxed{A B}');
    const last = await env.step('\\boxed{B A}');
    expect(last).toMatchObject({
      observation: 'You have reached the maximum number of turns.',
      terminated: true,
      truncated: true,
    });
    expect(last.reward).toBeCloseTo(1 / 3, 12);
  });

  it('the optimal player solves n disks in 2^n - 1 moves and wins 1.0', async () => {
    for (const n of [3, 4, 5]) {
      const env = new TowerOfHanoi({ numDisks: n, maxTurns: 2 ** n - 1 });
      const history = [(await env.reset(1)).observation];
      let last = await env.step(towerOfHanoiPlayer(history));
      history.push(last.observation);
      while (!last.terminated) {
        last = await env.step(towerOfHanoiPlayer(history));
        history.push(last.observation);
      }
      expect(last.observation).toBe('Congratulations! You solved the Tower of Hanoi Puzzle');
      expect([last.reward, last.truncated, env.turnCount]).toEqual([1, false, 2 ** n - 1]);
    }
  });

  it('the player recovers from a detour', async () => {
    const env = new TowerOfHanoi({ numDisks: 3, maxTurns: 30 });
    const history = [(await env.reset(1)).observation];
    for (const m of ['A B', 'A C', 'B C']) history.push((await env.step(`\\boxed{${m}}`)).observation);
    let last = await env.step(towerOfHanoiPlayer(history));
    history.push(last.observation);
    while (!last.terminated) {
      last = await env.step(towerOfHanoiPlayer(history));
      history.push(last.observation);
    }
    expect(last.reward).toBe(1);
  });
});
