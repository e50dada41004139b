import { describe, expect, it } from 'vitest';
import type { StepResult } from '../core/env.js';
import { Crosswords } from './crosswords.js';
import { CROSSWORD_ENTRIES } from './internal/crossword-clues.js';

describe('Crosswords', () => {
  it('ships 50 everyday and 50 hardcore entries', () => {
    expect(CROSSWORD_ENTRIES.filter((e) => !e.hardcore)).toHaveLength(50);
    expect(CROSSWORD_ENTRIES.filter((e) => e.hardcore)).toHaveLength(50);
    expect(new Set(CROSSWORD_ENTRIES.map((e) => e.word)).size).toBe(100);
  });

  it('hides the letters, lists the clues, and fills correct letters for 1/cells each until it wins', async () => {
    const env = new Crosswords({ numWords: 3, maxTurns: 60, hardcore: false });
    const r = await env.reset(21);
    const suffix = String(r.info.suffix);
    expect(suffix.startsWith('Current Board:\n   C00 C01')).toBe(true);
    expect(suffix).not.toMatch(/[a-z] {2}/);
    for (const [word, p] of env.placedWords) {
      expect(suffix).toContain(`${env.clues.get(word)} (${p.direction}): ${word.length} letters`);
    }
    expect(suffix.endsWith('\nEnter your guess.')).toBe(true);
    const cells: [number, number][] = [];
    env.board.forEach((row, i) => {
      row.forEach((v, j) => {
        if (v === '_') cells.push([i, j]);
      });
    });
    const [r0, c0] = cells[0]!;
    const right = env.solution[r0]![c0]!;
    const wrong = right === 'z' ? 'q' : 'z';
    expect(await env.step(`\\boxed{${r0} ${c0} ${wrong}}`)).toMatchObject({
      observation: `At turn 1, you tried to place ${wrong.toUpperCase()} at (${r0}, ${c0}), but it is incorrect.`,
      reward: 0,
    });
    const dot = env.board.flat().indexOf('.');
    if (dot >= 0) {
      const n = env.board.length;
      const s = await env.step(`\\boxed{${Math.floor(dot / n)} ${dot % n} A}`);
      expect(s.observation).toContain('which is a black dot and cannot be filled.');
    }
    let total = 0;
    let last: StepResult | undefined;
    for (const [i, j] of cells) {
      last = await env.step(`\\boxed{${i} ${j} ${env.solution[i]![j]}}`);
      total += last.reward;
    }
    expect(last).toMatchObject({
      observation: 'Congratulations! You completed the Crosswords puzzle!',
      terminated: true,
    });
    expect(total).toBeCloseTo(1, 10);
  });

  it('a filled cell is invalid; a two-letter move is a format error', async () => {
    const env = new Crosswords({ numWords: 3, maxTurns: 30 });
    await env.reset(2);
    const idx = env.board.flat().indexOf('_');
    const n = env.board.length;
    const [r, c] = [Math.floor(idx / n), idx % n];
    await env.step(`\\boxed{${r} ${c} ${env.solution[r]![c]}}`);
    expect((await env.step(`\\boxed{${r} ${c} A}`)).observation).toBe(
      `At turn 2, you tried to place A at (${r}, ${c}), but the cell is already filled.`,
    );
    expect(await env.step(`\\boxed{${r} ${c} AB}`)).toMatchObject({ reward: -0.1, terminated: true });
  });
});
