import { Sfc32Rng } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import type { StepResult } from '../core/env.js';
import { nltkEnWords } from './internal/nltk-en-words.js';
import { placeWords, wordEnds } from './internal/word-placement.js';
import { WordSearch } from './word-search.js';

describe('placeWords', () => {
  it('sizes the grid round(1.5 * longest), centres the first word and writes every placed word', () => {
    const words = ['BANANA', 'NAB', 'ANT'];
    const dirs = new Map([
      ['BANANA', 'across' as const],
      ['NAB', 'down' as const],
      ['ANT', 'across' as const],
    ]);
    const { grid, placed } = placeWords(words, dirs, new Sfc32Rng(3));
    expect(grid).toHaveLength(9);
    expect(placed.get('BANANA')).toEqual({ row: 4, col: 1, direction: 'across' });
    for (const [w, p] of placed) {
      const [r1, c1] = wordEnds(w, p);
      const letters = [...w].map((_, i) => (p.direction === 'across' ? grid[r1]![c1 + i] : grid[r1 + i]![c1]));
      expect(letters.join('')).toBe(w);
    }
    // NAB must cross BANANA (a down word on one of its letters).
    const nab = placed.get('NAB')!;
    expect(nab.direction).toBe('down');
    expect(nab.row <= 4 && nab.row + 2 >= 4).toBe(true);
  });

  it('uses Python rounding for the grid side (len 5 -> round(7.5) = 8, len 3 -> round(4.5) = 4)', () => {
    expect(placeWords(['ABCDE'], new Map([['ABCDE', 'down' as const]]), new Sfc32Rng(1)).grid).toHaveLength(8);
    expect(placeWords(['ABC'], new Map([['ABC', 'down' as const]]), new Sfc32Rng(1)).grid).toHaveLength(4);
  });
});

describe('WordSearch', () => {
  it('renders the grid and pays 1/placed per word found, either direction; the reverse pays again (GEM quirk)', async () => {
    const env = new WordSearch({ numWords: 5, maxTurns: 20, hardcore: false });
    const r = await env.reset(12);
    expect(r.observation.startsWith('You are participating in a Word Search challenge (Basic).\n')).toBe(true);
    const n = env.board.length;
    const suffix = String(r.info.suffix);
    expect(suffix.split('\n')[1]).toBe(
      `   ${Array.from({ length: n }, (_, i) => `C${String(i).padStart(2, '0')}`).join(' ')}`,
    );
    expect(suffix).toContain(`\nWords Found: 0/${env.placedWords.size}\nEnter your guess.`);
    const [first, p] = [...env.placedWords][0]!;
    const [r1, c1, r2, c2] = wordEnds(first!, p!);
    const s = await env.step(`\\boxed{${r2} ${c2} ${r1} ${c1}}`);
    expect(s.observation).toBe(
      `At turn 1, correct! You found the word '${first}' at coordinates (${r2}, ${c2}) to (${r1}, ${c1}).`,
    );
    expect(s.reward).toBeCloseTo(1 / env.placedWords.size, 12);
    expect(String(s.info.suffix)).toContain(`[${first![0]}]`);
    expect(String(s.info.suffix)).toContain(`Words Found: 1/${env.placedWords.size}`);
    const again = await env.step(`\\boxed{${r1} ${c1} ${r2} ${c2}}`);
    expect(again.reward).toBeCloseTo(1 / env.placedWords.size, 12);
    const dup = await env.step(`\\boxed{${r1} ${c1} ${r2} ${c2}}`);
    expect(dup.observation).toBe(`At turn 3, you have already tried the coordinates (${r1}, ${c1}) to (${r2}, ${c2}).`);
    expect(dup.reward).toBe(0);
    expect((await env.step('\\boxed{0 0 1 1}')).observation).toBe(
      'At turn 4, you tried (0, 0) to (1, 1), which is not valid because words must be either across (horizontal) or down (vertical).',
    );
    expect((await env.step(`\\boxed{0 0 0 ${n}}`)).observation).toBe(
      `At turn 5, your tried coordinates (0, 0) to (0, ${n}) are out of bounds.`,
    );
  });

  it('finding every placed word wins', async () => {
    const env = new WordSearch({ numWords: 5, maxTurns: 20 });
    await env.reset(4);
    let last: StepResult | undefined;
    for (const [w, p] of env.placedWords) {
      const [a, b, c, d] = wordEnds(w, p);
      last = await env.step(`\\boxed{${a} ${b} ${c} ${d}}`);
    }
    expect(last).toMatchObject({
      observation: 'Congratulations! You completed the Word Search puzzle!',
      terminated: true,
      truncated: false,
    });
  });

  it("hardcore draws from NLTK's English word list en, as GEM does", async () => {
    const en = nltkEnWords();
    expect(en).toHaveLength(235886);
    expect([en[0], en[1], en[en.length - 1]]).toEqual(['A', 'a', 'Zyzzogeton']);
    // The words the issue found missing from the web2 list the port had, and the web2-only ones NLTK lacks.
    const set = new Set(en);
    for (const w of ['Adlai', 'Alex', 'Ahmed']) expect(set.has(w), w).toBe(true);
    for (const w of ['corelate', 'freen', 'unwriteable']) expect(set.has(w), w).toBe(false);
    const env = new WordSearch({ numWords: 5, hardcore: true });
    const r = await env.reset(3);
    expect(r.observation).toContain('(Hardcore)');
    const big = new Set(nltkEnWords().map((w) => w.toUpperCase()));
    for (const w of env.placedWords.keys()) expect(big.has(w)).toBe(true);
  });
});
