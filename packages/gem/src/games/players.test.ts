import { describe, expect, it } from 'vitest';
import type { Env } from '../core/env.js';
import { FifteenPuzzle } from './fifteen-puzzle.js';
import { GAME_SPECS } from './index.js';
import {
  crosswordsPlayer,
  fifteenPuzzlePlayer,
  game2048Player,
  gamePlayer,
  hangmanPlayer,
  mastermindPlayer,
  minesweeperPlayer,
  sokobanPlayer,
  sudokuPlayer,
  wordlePlayer,
  wordSearchPlayer,
} from './players.js';

type Player = (history: readonly string[]) => string;

/** Plays one episode feeding the player every observation plus the latest suffix; returns the return and turns. */
async function play(env: Env, player: Player, seed: number): Promise<{ total: number; won: boolean; turns: number }> {
  const r = await env.reset(seed);
  const history = [r.observation];
  let suffix = String(r.info.suffix ?? '');
  let total = 0;
  for (let turns = 1; ; turns++) {
    const s = await env.step(player([...history, suffix]));
    total += s.reward;
    history.push(s.observation);
    suffix = String(s.info.suffix ?? '');
    if (s.terminated || s.truncated)
      return {
        total,
        won: s.terminated && !s.truncated && s.reward > 0 && s.observation.startsWith('Congratulations'),
        turns,
      };
  }
}

function make(id: string): Env {
  const spec = GAME_SPECS.find((s) => s.id === id)!;
  return spec.factory({ ...spec.defaults });
}

describe('players', () => {
  it('has a player for every registered game', () => {
    for (const spec of GAME_SPECS) expect(gamePlayer(spec.id), spec.id).toBeTypeOf('function');
    expect(gamePlayer('math:GSM8K')).toBeUndefined();
  });

  it('fifteenPuzzlePlayer solves 3x3 boards within 31 moves', async () => {
    const env = new FifteenPuzzle({ numRows: 3, maxTurns: 31 });
    for (let seed = 0; seed < 5; seed++) {
      const { won } = await play(env, fifteenPuzzlePlayer, seed);
      expect(won, `seed ${seed}`).toBe(true);
    }
  });

  for (const [id, player, minWins] of [
    ['game:Game2048-v0-easy', game2048Player, 14],
    ['game:WordSearch-v0-easy', wordSearchPlayer, 15],
  ] as const) {
    it(`${id}: the player wins most seeded episodes`, async () => {
      const env = make(id);
      let wins = 0;
      let total = 0;
      for (let seed = 0; seed < 20; seed++) {
        const r = await play(env, player, seed);
        if (r.won) wins++;
        total += r.total;
      }
      expect(wins).toBeGreaterThanOrEqual(minWins);
      expect(total / 20).toBeGreaterThan(0.8);
    });
  }

  it('minesweeperPlayer clears most easy boards (deduction, then the safest guess)', async () => {
    const env = make('game:Minesweeper-v0-easy');
    let wins = 0;
    let total = 0;
    for (let seed = 0; seed < 20; seed++) {
      const r = await play(env, minesweeperPlayer, seed);
      if (r.won) wins++;
      total += r.total;
    }
    expect(wins).toBeGreaterThanOrEqual(9);
    expect(total / 20).toBeGreaterThan(0.7);
  });

  const cases: [string, Player, number][] = [
    ['game:Mastermind-v0-easy', mastermindPlayer, 20],
    ['game:Mastermind-v0-hard', mastermindPlayer, 10],
    ['game:Wordle-v0-easy', wordlePlayer, 20],
    ['game:Wordle-v0-hard', wordlePlayer, 20],
    ['game:Hangman-v0-easy', hangmanPlayer, 20],
    ['game:Hangman-v0-hard', hangmanPlayer, 20],
    ['game:Sudoku-v0-easy', sudokuPlayer, 10],
    ['game:Sudoku-v0-hard', sudokuPlayer, 3],
    ['game:FifteenPuzzle-v0-easy', fifteenPuzzlePlayer, 10],
    ['game:Sokoban-v0-easy', sokobanPlayer, 10],
    ['game:Crosswords-v0-easy', crosswordsPlayer, 10],
    ['game:Crosswords-v0-hard', crosswordsPlayer, 10],
  ];
  for (const [id, player, episodes] of cases) {
    it(`${id}: wins every seeded episode with return 1`, async () => {
      const env = make(id);
      for (let seed = 0; seed < episodes; seed++) {
        const { total, won } = await play(env, player, seed);
        expect(won, `${id} seed ${seed}`).toBe(true);
        expect(total, `${id} seed ${seed}`).toBeCloseTo(1, 10);
      }
    });
  }
});
