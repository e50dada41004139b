/**
 * Properties every registered game shares: the id list, seeded reproduction, random actions that parse, a
 * format error that ends the episode with -0.1, and the turn limit with both flags set.
 */
import { describe, expect, it } from 'vitest';
import type { Env, StepResult } from '../core/env.js';
import { GAME_SPECS } from './index.js';

function make(id: string, options: Record<string, unknown> = {}): Env {
  const spec = GAME_SPECS.find((s) => s.id === id);
  if (spec === undefined) throw new Error(`no spec ${id}`);
  return spec.factory({ ...spec.defaults, ...options });
}

async function playRandom(env: Env, seed: number, maxSteps = 200): Promise<string[]> {
  const trace = [(await env.reset(seed)).observation];
  for (let i = 0; i < maxSteps; i++) {
    const s: StepResult = await env.step(env.sampleRandomAction());
    trace.push(`${s.observation}|${s.reward}|${s.terminated}|${s.truncated}|${String(s.info.suffix)}`);
    if (s.terminated || s.truncated) break;
  }
  return trace;
}

describe('GAME_SPECS', () => {
  it("lists GEM's registered ids for the twelve games", () => {
    const games = ['GuessTheNumber', 'Mastermind', 'Minesweeper', 'Wordle', 'FifteenPuzzle', 'Hangman', 'Sudoku'];
    games.push('TowerofHanoi', 'Game2048', 'Sokoban', 'Crosswords', 'WordSearch');
    const expected = games.flatMap((g) => ['easy', 'hard', 'random'].map((v) => `game:${g}-v0-${v}`));
    expected.push('game:Game2048-v0-extreme-hard');
    expect(GAME_SPECS.map((s) => s.id).sort()).toEqual(expected.sort());
  });

  it('has unique ids, each with its easy, hard and random variants', () => {
    const ids = GAME_SPECS.map((s) => s.id);
    expect(new Set(ids).size).toBe(ids.length);
    const games = new Set(ids.map((id) => id.replace(/^game:(\w+)-v0-.*$/, '$1')));
    for (const g of games) {
      for (const v of ['easy', 'hard', 'random']) expect(ids).toContain(`game:${g}-v0-${v}`);
    }
  });

  for (const spec of GAME_SPECS) {
    describe(spec.id, () => {
      it('reproduces an episode of random actions from a seed; random actions are never format errors', async () => {
        const a = await playRandom(make(spec.id), 123);
        const other = make(spec.id);
        await playRandom(other, 5);
        const b = await playRandom(other, 123);
        expect(b).toEqual(a);
        for (const line of a.slice(1)) expect(line).not.toMatch(/\|-0\.1\|/);
      });

      it('ends the episode on a format error with -0.1', async () => {
        const env = make(spec.id);
        await env.reset(9);
        const s = await env.step('I have no idea, so no boxed answer.');
        expect([s.reward, s.terminated, s.truncated]).toEqual([-0.1, true, false]);
        expect(typeof s.info.suffix).toBe('string');
      });

      it('plays the last \\boxed{} of the response', async () => {
        const source = make(spec.id);
        await source.reset(4);
        const x = source.sampleRandomAction();
        const y = source.sampleRandomAction();
        const a = make(spec.id);
        await a.reset(4);
        const b = make(spec.id);
        await b.reset(4);
        expect(await a.step(`first ${x}, no: ${y} is my final answer`)).toEqual(await b.step(y));
      });

      it('stops at the turn limit with terminated and truncated both true', async () => {
        const env = make(spec.id) as Env & { maxTurns: number };
        await env.reset(1);
        let last: StepResult | undefined;
        for (let i = 0; i < env.maxTurns; i++) {
          last = await env.step(env.sampleRandomAction());
          if (last.terminated) break;
        }
        if (last?.truncated) {
          expect(last.terminated).toBe(true);
          expect(last.observation.startsWith('You have reached the maximum number of turns')).toBe(true);
        } else {
          expect(last?.terminated).toBe(true);
        }
      });
    });
  }
});
