/**
 * Crosswords (GEM `crosswords/crosswords.py`, adapted from TextArena): fill a small crossword letter by letter
 * from clues.
 *
 * As in GEM: `numWords` entries of the word bank (everyday or hardcore) are placed with WordSearch's algorithm;
 * non-word cells show `.`, word cells `_`. `\boxed{r c L}` (0-based, one letter): out of bounds, a `.` cell or a
 * filled cell is invalid (0); a wrong letter pays 0; a right one pays `1 / letter cells`; a full grid wins.
 */
import { ConfigError } from '@cookbook/core';
import { z } from 'zod';
import type { ResetResult, StepResult } from '../core/env.js';
import { LanguageGameReward } from '../core/env.js';
import { pyIndex, pyInt, pyLastMatch, pyRegExp, pyUpper } from '../core/python-text.js';
import type { EnvOptions } from '../core/registry.js';
import { readCrosswordBank } from './internal/crossword-bank.js';
import { CROSSWORD_ENTRIES, type CrosswordEntry } from './internal/crossword-clues.js';
import { GameEnv } from './internal/game-env.js';
import { parseGameOptions, seedOpt } from './internal/options.js';
import { type LetterGrid, placeWords, type WordDirection, type WordPlacement } from './internal/word-placement.js';

export const CrosswordsOptions = z.object({
  hardcore: z.boolean().nullable().default(false).describe('use the hard word bank; null = random variant'),
  maxTurns: z.number().int().min(1).nullable().default(100).describe('turn limit; null = random variant'),
  numWords: z.number().int().min(1).max(50).nullable().default(5).describe('words in the puzzle; null = random'),
  wordsPath: z
    .string()
    .min(1)
    .nullable()
    .default(null)
    .describe("GEM's words_clues.jsonl (or a bank in its format); null = this project's own bank"),
  seed: seedOpt,
});

const GUESS = pyRegExp(String.raw`\\boxed\{(\d+)\s+(\d+)\s+([a-zA-Z])\}`);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export class Crosswords extends GameEnv {
  hardcore: boolean;
  maxTurns: number;
  numWords: number;
  readonly isRandom: boolean;
  /** The answer grid (lower-case letters, `.` elsewhere). */
  solution: LetterGrid = [];
  /** The grid as played: `.`, `_` (to fill) or an upper-case letter. */
  board: LetterGrid = [];
  placedWords = new Map<string, WordPlacement>();
  /** Clue per sampled word, longest word first (unplaced words keep their number). */
  clues = new Map<string, string>();
  private letterCells = 0;
  /** The word bank: GEM's file when `wordsPath` names it, else this project's own. */
  readonly bank: readonly CrosswordEntry[];

  constructor(options: EnvOptions = {}) {
    const o = parseGameOptions('Crosswords', CrosswordsOptions, options);
    super(o.seed);
    this.isRandom = o.hardcore === null || o.maxTurns === null || o.numWords === null;
    this.hardcore = o.hardcore ?? false;
    this.maxTurns = o.maxTurns ?? 20;
    this.numWords = o.numWords ?? 3;
    this.bank = o.wordsPath === null ? CROSSWORD_ENTRIES : readCrosswordBank(o.wordsPath);
    this.resetGame();
  }

  renderBoard(): string {
    const header = `   ${this.board.map((_, i) => `C${String(i).padStart(2, '0')}`).join(' ')}`;
    const rows = this.board.map((row, i) => `R${String(i).padStart(2, '0')} ${row.map((v) => ` ${v}  `).join('')}`);
    return [header, ...rows].join('\n');
  }

  /** `i. <clue> (<across|down>): <n> letters` per placed word. */
  clueList(): string {
    const lines: string[] = [];
    [...this.clues].forEach(([word, clue], i) => {
      const p = this.placedWords.get(word);
      if (p !== undefined) lines.push(`${i + 1}. ${clue} (${p.direction}): ${word.length} letters`);
    });
    return lines.join('\n');
  }

  taskSuffix(): string {
    return `Current Board:\n${this.renderBoard()}\nHere are the clues for the words you need to find:\n${this.clueList()}\nEnter your guess.`;
  }

  private instructions(): string {
    return (
      'You are playing Crosswords.\n' +
      'Here is the current state of the Crosswords grid. Each row and column are numbered.\n' +
      "The cells that need to be populated with letters are represented by '_', and those that do not need words are represented by '.'.\n\n" +
      'You can only provide one response per turn. Hence, plan your approach and risk appetite.\n' +
      'Only guesses in the format of \\boxed{row column letter} will be fetched from your response, e.g. \\boxed{0 0 d}, \\boxed{1 2 G}.\n' +
      `you have to finish the game in a maximum of ${this.maxTurns} turns.\n` +
      'As you play, the history of your choices will be appended below. Use the information to complete the game.'
    );
  }

  protected resetGame(): ResetResult {
    if (this.isRandom) {
      this.hardcore = this.rng.choice([false, true]);
      this.numWords = 3;
      this.maxTurns = 20;
    }
    const bank = this.bank.filter((e) => e.hardcore === this.hardcore);
    if (bank.length === 0) {
      throw new ConfigError(`Crosswords: the word bank has no entry with hardcore=${this.hardcore}`, {
        key: 'wordsPath',
      });
    }
    const entries = this.rng
      .sample(bank, Math.min(this.numWords, bank.length))
      .sort((a, b) => b.word.length - a.word.length);
    const directions = new Map<string, WordDirection>(
      entries.map((e) => [e.word, this.rng.choice(['across', 'down'] as const)]),
    );
    this.clues = new Map(entries.map((e) => [e.word, e.clue]));
    const { grid, placed } = placeWords(
      entries.map((e) => e.word),
      directions,
      this.rng,
    );
    this.solution = grid;
    this.board = grid.map((row) => row.map((v) => (v === '.' ? '.' : '_')));
    this.placedWords = placed;
    this.letterCells = this.board.flat().filter((v) => v !== '.').length;
    this.turnCount = 0;
    return { observation: this.instructions(), info: this.info() };
  }

  protected stepGame(action: string): StepResult {
    this.turnCount += 1;
    const k = this.turnCount;
    const last = pyLastMatch(action, GUESS);
    // GEM converts with int() outside its try: past 4300 digits its step raises; here that is a format error.
    const rowBig = last === undefined ? undefined : pyInt(last[1]!);
    const colBig = last === undefined ? undefined : pyInt(last[2]!);
    if (last === undefined || rowBig === undefined || colBig === undefined) {
      return this.formatError(`At turn ${k}, you did not provide a valid guess in \\boxed{row column letter} format.`);
    }
    const row = pyIndex(rowBig, this.board.length) ?? -1;
    const col = pyIndex(colBig, this.board[0]?.length ?? 0) ?? -1;
    const letter = pyUpper(last[3]!);
    const at = `place ${letter} at (${rowBig}, ${colBig})`;
    let observation: string;
    let reward: number = LanguageGameReward.invalidAction;
    const cell = row < 0 || col < 0 ? undefined : this.board[row]?.[col];
    if (cell === undefined) {
      observation = `At turn ${k}, you tried to ${at}, which is out of bounds.`;
    } else if (cell === '.') {
      observation = `At turn ${k}, you tried to ${at}, which is a black dot and cannot be filled.`;
    } else if (cell !== '_') {
      observation = `At turn ${k}, you tried to ${at}, but the cell is already filled.`;
    } else if (this.solution[row]![col]!.toUpperCase() !== letter) {
      observation = `At turn ${k}, you tried to ${at}, but it is incorrect.`;
      reward = LanguageGameReward.internalStep;
    } else {
      this.board[row]![col] = letter;
      observation = `At turn ${k}, you placed ${letter} at (${row}, ${col}) correctly.`;
      reward = 1 / this.letterCells;
    }
    if (this.board.every((r) => !r.includes('_'))) {
      return this.win('Congratulations! You completed the Crosswords puzzle!', reward);
    }
    return this.continueOrTimeout(observation, reward);
  }

  /** A random letter for a random empty cell (GEM's brackets its move, which never parses; this one does). */
  sampleRandomAction(): string {
    const empty: [number, number][] = [];
    this.board.forEach((r, i) => {
      r.forEach((v, j) => {
        if (v === '_') empty.push([i, j]);
      });
    });
    const [r, c] = empty.length > 0 ? this.rng.choice(empty) : [0, 0];
    return `\\boxed{${r} ${c} ${this.rng.choice([...ALPHABET])}}`;
  }
}
