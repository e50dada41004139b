/**
 * Hangman (GEM `hangman.py`): find a secret word (Basic English, or NLTK's large English list (en) when `hardcore`) by guessing letters or the whole word. There are no
 * lives, only the turn limit.
 *
 * Rewards as in GEM: a new letter in the word pays `0.5 * occurrences / length` (revealing every letter does not
 * win); the right word pays `0.5 * (hidden fraction) + 0.5` and wins; a repeated letter or a word of the wrong
 * length is invalid (0); a wrong letter or word of the right length pays 0.
 */
import { ConfigError } from '@cookbook/core';
import { z } from 'zod';
import type { ResetResult, StepResult } from '../core/env.js';
import { LanguageGameReward } from '../core/env.js';
import { pyLastMatch, pyRegExp, pyUpper } from '../core/python-text.js';
import type { EnvOptions } from '../core/registry.js';
import { basicWordsOfLength } from './internal/en-basic-words.js';
import { GameEnv } from './internal/game-env.js';
import { nltkEnLowerWordsOfLength } from './internal/nltk-en-words.js';
import { parseGameOptions, seedOpt } from './internal/options.js';

export const HangmanOptions = z.object({
  wordLength: z.number().int().min(1).nullable().default(5).describe('letters in the secret word; null = random'),
  hardcore: z.boolean().default(false).describe("draw from NLTK's English word list en instead of Basic English"),
  maxTurns: z.number().int().min(1).default(20).describe('turn limit'),
  seed: seedOpt,
});

/** GEM's random-variant settings: (word length, turns). */
const RANDOM_SETTINGS: readonly [number, number][] = [
  [3, 10],
  [5, 15],
  [7, 20],
];

const GUESS = pyRegExp(String.raw`\\boxed{([a-zA-Z]+)}`, { ignoreCase: true });
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export class Hangman extends GameEnv {
  wordLength: number;
  maxTurns: number;
  readonly isRandom: boolean;
  /** Whether words come from NLTK's large English list (en) rather than Basic English. */
  readonly hardcore: boolean;
  private secret = '';
  private board: string[] = [];
  private candidates: readonly string[] = [];
  private readonly guessedLetters = new Set<string>();

  constructor(options: EnvOptions = {}) {
    const o = parseGameOptions('Hangman', HangmanOptions, options);
    super(o.seed);
    this.isRandom = o.wordLength === null;
    this.wordLength = o.wordLength ?? 5;
    this.maxTurns = o.maxTurns;
    this.hardcore = o.hardcore;
    if (this.wordsOfLength(this.wordLength).length === 0) {
      throw new ConfigError(
        `Hangman: no word of the ${this.hardcore ? 'NLTK en' : 'Basic English'} list has ${this.wordLength} letters`,
        {
          key: 'wordLength',
        },
      );
    }
    this.resetGame();
  }

  /** GEM's candidates: alphabetic, all lower-case words of the length. */
  private wordsOfLength(length: number): readonly string[] {
    return this.hardcore ? nltkEnLowerWordsOfLength(length) : basicWordsOfLength(length);
  }

  /** The secret word, upper-case (for tests). */
  get secretWord(): string {
    return this.secret;
  }

  /** The grid: `C00 C01 …` over `  X ` / `  _ ` per position. */
  renderBoard(): string {
    const header = this.board.map((_, i) => `C${String(i).padStart(2, '0')}`).join(' ');
    return `${header}\n${this.board.map((c) => `  ${c} `).join('')}`;
  }

  taskSuffix(): string {
    return `Here is the current state of the Hangman grid:\n${this.renderBoard()}\n\nEnter your guess.`;
  }

  private randomWord(): string {
    return `\\boxed{${this.rng.choice(this.candidates).toUpperCase()}}`;
  }

  private randomLetter(): string {
    return `\\boxed{${this.rng.choice([...LETTERS])}}`;
  }

  private instructions(): string {
    // GEM swaps the two examples (a word for "one letter guesses"); kept verbatim so prompts match.
    return (
      'You are playing Hangman.\n' +
      `The objective of the game is to guess the ${this.wordLength}-letter word by providing one letter guesses or the entire word.\n` +
      "The cells that need to be populated with letters are represented by '_'.\n\n" +
      `There are two ways you can answer. You can provide one letter guesses in the format of ${this.randomWord()}, or you can guess the entire word in the format of ${this.randomLetter()}.\n` +
      'If the given letter is in the word, it will be revealed in the grid.\n' +
      'If the given word is correct, you win.\n' +
      'As you play, the history of your choices will be appended below. Use the information to figure out the word and win.\n' +
      'Some rules:\n' +
      '1. You can only guess one letter/word at a time.\n' +
      `2. You have to win within ${this.maxTurns} turns.\n\n`
    );
  }

  protected resetGame(): ResetResult {
    if (this.isRandom) [this.wordLength, this.maxTurns] = this.rng.choice(RANDOM_SETTINGS);
    this.candidates = this.wordsOfLength(this.wordLength);
    this.secret = this.rng.choice(this.candidates).toUpperCase();
    this.board = [...this.secret].map(() => '_');
    this.guessedLetters.clear();
    this.turnCount = 0;
    return { observation: this.instructions(), info: this.info() };
  }

  protected stepGame(action: string): StepResult {
    this.turnCount += 1;
    const k = this.turnCount;
    const last = pyLastMatch(action, GUESS)?.[1];
    if (last === undefined) return this.formatError('You did not provide a valid guess.');
    // IGNORECASE: `\BOXED{e}` plays E; `ı` / `ſ` match too and upper-case to I / S (Python's str.upper()).
    const guess = pyUpper(last);
    let observation: string;
    let reward: number = LanguageGameReward.internalStep;
    if ([...guess].length > 1) {
      if (guess === this.secret) {
        const hidden = this.board.filter((c) => c === '_').length / this.board.length;
        return this.win(
          `Congratulations! You guessed the word '${this.secret}' correctly!`,
          hidden * 0.5 + LanguageGameReward.success * 0.5,
        );
      }
      if (guess.length !== this.secret.length) {
        observation = `At turn ${k}, You guessed '${guess}' which is of length ${guess.length}, but the secret word is of length ${this.secret.length}.`;
        reward = LanguageGameReward.invalidAction;
      } else {
        observation = `At turn ${k}, You guessed '${guess}' which is incorrect.`;
      }
    } else if (this.guessedLetters.has(guess)) {
      observation = `At turn ${k}, you guessed '${guess}', which has been already guessed before.`;
      reward = LanguageGameReward.invalidAction;
    } else if (this.secret.includes(guess)) {
      this.guessedLetters.add(guess);
      let revealed = 0;
      for (let i = 0; i < this.secret.length; i++) {
        if (this.secret[i] === guess) {
          this.board[i] = guess;
          revealed++;
        }
      }
      observation = `At turn ${k}, you successfully guessed a letter '${guess}' that is in the secret word.`;
      reward = (revealed / this.secret.length) * 0.5;
    } else {
      this.guessedLetters.add(guess);
      observation = `At turn ${k}, you guessed a letter '${guess}' that is not in the secret word.`;
    }
    return this.continueOrTimeout(observation, reward);
  }

  /** A letter not guessed yet (a whole candidate word once every letter is used). */
  sampleRandomAction(): string {
    const fresh = [...LETTERS].filter((c) => !this.guessedLetters.has(c));
    return fresh.length > 0 ? `\\boxed{${this.rng.choice(fresh)}}` : this.randomWord();
  }
}
