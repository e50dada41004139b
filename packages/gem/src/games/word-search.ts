/**
 * Word Search (GEM `word_search.py`, adapted from TextArena): find the hidden words by their start and end cells.
 *
 * As in GEM: `numWords` words are sampled (unfiltered) from Basic English, or from NLTK's large English list (en) when
 * `hardcore`, upper-cased, and placed across or down crossword-style (unplaceable words are dropped); empty
 * cells get random letters. `\boxed{r1 c1 r2 c2}` (0-based): out of bounds, a repeated 4-tuple, or a diagonal is
 * invalid (0); matching a placed word's ends in either order pays `1 / placed words`; finding all wins. GEM quirk
 * kept: the reversed coordinates of a found word are a new attempt and pay again.
 */

import type { Sfc32Rng } from '@cookbook/core';
import { z } from 'zod';
import type { ResetResult, StepResult } from '../core/env.js';
import { LanguageGameReward } from '../core/env.js';
import { pyIndex, pyInt, pyLastMatch, pyRegExp } from '../core/python-text.js';
import type { EnvOptions } from '../core/registry.js';
import { EN_BASIC_WORDS } from './internal/en-basic-words.js';
import { GameEnv } from './internal/game-env.js';
import { nltkEnWords } from './internal/nltk-en-words.js';
import { parseGameOptions, seedOpt } from './internal/options.js';
import {
  type LetterGrid,
  placeWords,
  type WordDirection,
  type WordPlacement,
  wordEnds,
} from './internal/word-placement.js';

export const WordSearchOptions = z.object({
  hardcore: z
    .boolean()
    .nullable()
    .default(false)
    .describe("draw from NLTK's English word list en; null = random variant"),
  maxTurns: z.number().int().min(1).nullable().default(20).describe('turn limit; null = random variant'),
  numWords: z.number().int().min(1).max(50).nullable().default(5).describe('words to hide; null = random variant'),
  seed: seedOpt,
});

const GUESS = pyRegExp(String.raw`\\boxed\{(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\}`);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** `k` distinct items in random order, without copying a large list (NLTK's en has 235,886 words). */
function sampleDistinct<T>(rng: Sfc32Rng, items: readonly T[], k: number): T[] {
  if (items.length <= 4 * k + 64) return rng.sample(items, k);
  const picked = new Set<number>();
  while (picked.size < k) picked.add(rng.int(0, items.length - 1));
  return [...picked].map((i) => items[i]!);
}

export class WordSearch extends GameEnv {
  hardcore: boolean;
  maxTurns: number;
  numWords: number;
  readonly isRandom: boolean;
  /** The letter grid. */
  board: LetterGrid = [];
  /** Placed words (upper-case) and where they are, in placing order. */
  placedWords = new Map<string, WordPlacement>();
  private readonly found = new Set<string>();
  private readonly highlighted = new Set<string>();
  private attempts = new Set<string>();

  constructor(options: EnvOptions = {}) {
    const o = parseGameOptions('WordSearch', WordSearchOptions, options);
    super(o.seed);
    this.isRandom = o.hardcore === null || o.maxTurns === null || o.numWords === null;
    this.hardcore = o.hardcore ?? false;
    this.maxTurns = o.maxTurns ?? 20;
    this.numWords = o.numWords ?? 5;
    this.resetGame();
  }

  /** Words found so far. */
  get foundWords(): ReadonlySet<string> {
    return this.found;
  }

  /** `   C00 C01 …` then `R00 ` rows with `[X] ` for found cells and ` X  ` otherwise. */
  renderBoard(): string {
    const header = `   ${this.board.map((_, i) => `C${String(i).padStart(2, '0')}`).join(' ')}`;
    const rows = this.board.map(
      (row, i) =>
        `R${String(i).padStart(2, '0')} ${row.map((v, j) => (this.highlighted.has(`${i},${j}`) ? `[${v}] ` : ` ${v}  `)).join('')}`,
    );
    return [header, ...rows].join('\n');
  }

  taskSuffix(): string {
    return `Current Board:\n${this.renderBoard()}\nWords Found: ${this.found.size}/${this.placedWords.size}\nEnter your guess.`;
  }

  private instructions(): string {
    return (
      `You are participating in a Word Search challenge (${this.hardcore ? 'Hardcore' : 'Basic'}).\n` +
      'The objective is to find and highlight hidden words on the grid below.\n' +
      'The rows and columns are numbered for your reference.\n\n' +
      'Words you have already found are marked in square brackets [ ].\n' +
      'Each row and column is numbered for clarity.\n\n' +
      'To locate a word, specify the row and column of its start and end letters.\n' +
      'Note that words are either across (horizontal) or down (vertical).\n' +
      'Use the format \\boxed{start_row start_col end_row end_col} for submission.\n' +
      'For instance: \\boxed{1 1 1 5} to find a word from row 1, col 1 to row 1, col 5.\n\n' +
      'Guidelines:\n' +
      `- you have a maximum of ${this.maxTurns} turns to find all the words.\n` +
      '- Each guess must be unique; you cannot repeat the same guess.\n' +
      '- The history of your attempts will be recorded below.\n' +
      '- Make your guesses carefully and strategically!'
    );
  }

  protected resetGame(): ResetResult {
    if (this.isRandom) {
      this.hardcore = this.rng.choice([false, true]);
      this.numWords = 5;
      this.maxTurns = 20;
    }
    const list = this.hardcore ? nltkEnWords() : EN_BASIC_WORDS;
    const words = sampleDistinct(this.rng, list, Math.min(this.numWords, list.length))
      .map((w) => w.toUpperCase())
      .sort((a, b) => b.length - a.length);
    const directions = new Map<string, WordDirection>(
      words.map((w) => [w, this.rng.choice(['across', 'down'] as const)]),
    );
    const { grid, placed } = placeWords(words, directions, this.rng);
    for (const row of grid)
      for (let c = 0; c < row.length; c++) if (row[c] === '.') row[c] = this.rng.choice([...ALPHABET]);
    this.board = grid;
    this.placedWords = placed;
    this.found.clear();
    this.highlighted.clear();
    this.attempts = new Set();
    this.turnCount = 0;
    return { observation: this.instructions(), info: this.info() };
  }

  private wordAt(r1: number, c1: number, r2: number, c2: number): string | undefined {
    for (const [word, p] of this.placedWords) {
      const [sr, sc, er, ec] = wordEnds(word, p);
      if ((r1 === sr && c1 === sc && r2 === er && c2 === ec) || (r1 === er && c1 === ec && r2 === sr && c2 === sc)) {
        return word;
      }
    }
    return undefined;
  }

  protected stepGame(action: string): StepResult {
    this.turnCount += 1;
    const k = this.turnCount;
    const last = pyLastMatch(action, GUESS);
    // GEM converts with int() outside its try: past 4300 digits its step raises; here that is a format error.
    const parsed = last === undefined ? [] : last.slice(1, 5).map((x) => pyInt(x));
    if (parsed.length !== 4 || parsed.some((x) => x === undefined)) {
      return this.formatError(
        `At turn ${k}, you did not provide a valid guess in \\boxed{start_row start_col end_row end_col} format.`,
      );
    }
    const big = parsed as bigint[];
    const n = this.board.length;
    const span = `(${big[0]}, ${big[1]}) to (${big[2]}, ${big[3]})`;
    const key = big.join(',');
    const inBounds = big.every((x) => pyIndex(x, n) !== undefined);
    const [r1, c1, r2, c2] = big.map((x) => pyIndex(x, n) ?? -1) as [number, number, number, number];
    let observation: string;
    let reward: number = LanguageGameReward.invalidAction;
    const word = inBounds ? this.wordAt(r1, c1, r2, c2) : undefined;
    if (!inBounds) {
      observation = `At turn ${k}, your tried coordinates ${span} are out of bounds.`;
    } else if (this.attempts.has(key)) {
      observation = `At turn ${k}, you have already tried the coordinates ${span}.`;
    } else if (r1 !== r2 && c1 !== c2) {
      observation = `At turn ${k}, you tried ${span}, which is not valid because words must be either across (horizontal) or down (vertical).`;
    } else if (word !== undefined) {
      this.found.add(word);
      for (let r = Math.min(r1, r2); r <= Math.max(r1, r2); r++) {
        for (let c = Math.min(c1, c2); c <= Math.max(c1, c2); c++) this.highlighted.add(`${r},${c}`);
      }
      observation = `At turn ${k}, correct! You found the word '${word}' at coordinates ${span}.`;
      reward = 1 / this.placedWords.size;
    } else {
      observation = `At turn ${k}, incorrect attempt. No word found at coordinates ${span}.`;
      reward = LanguageGameReward.internalStep;
    }
    this.attempts.add(key);
    if (this.found.size === this.placedWords.size) {
      return this.win('Congratulations! You completed the Word Search puzzle!', reward);
    }
    return this.continueOrTimeout(observation, reward);
  }

  /** A straight segment not tried yet (GEM's brackets its coordinates, which never parses; this one does). */
  sampleRandomAction(): string {
    const n = this.board.length;
    for (let tries = 0; tries < 100; tries++) {
      const r1 = this.rng.int(0, n - 1);
      const c1 = this.rng.int(0, n - 1);
      const across = this.rng.random() < 0.5;
      const r2 = across ? r1 : this.rng.int(0, n - 1);
      const c2 = across ? this.rng.int(0, n - 1) : c1;
      if (!this.attempts.has(`${r1},${c1},${r2},${c2}`)) return `\\boxed{${r1} ${c1} ${r2} ${c2}}`;
    }
    return `\\boxed{0 0 0 ${n - 1}}`;
  }
}
