/**
 * Wordle (GEM `wordle.py`): find a secret word from the Basic English list from G/Y/X feedback.
 *
 * Rewards as in GEM: each position that turns green for the first time in the episode pays `0.5 / length`; the
 * winning guess adds 0.5 (a win totals 1.0). Wrong length and repeated guesses are invalid (0). Guesses need not
 * be real words. The action is the last `\boxed{letters}` (internal whitespace removed, upper-cased).
 */
import { ConfigError } from '@cookbook/core';
import { z } from 'zod';
import { pyList } from '../core/boxed.js';
import type { ResetResult, StepResult } from '../core/env.js';
import { LanguageGameReward } from '../core/env.js';
import { pyLastMatch, pyRegExp, pyUpper } from '../core/python-text.js';
import type { EnvOptions } from '../core/registry.js';
import { basicWordsOfLength } from './internal/en-basic-words.js';
import { GameEnv } from './internal/game-env.js';
import { parseGameOptions, seedOpt } from './internal/options.js';

export const WordleOptions = z.object({
  wordLength: z.number().int().min(1).nullable().default(5).describe('letters in the secret word; null = random'),
  maxTurns: z.number().int().min(1).default(20).describe('turn limit (random variant: 5 * length)'),
  onlyRealWords: z.boolean().default(true).describe('accepted for GEM compatibility; GEM never checks it'),
  seed: seedOpt,
});

const GUESS = pyRegExp(String.raw`\\boxed{([a-zA-Z]+(?:\s+[a-zA-Z]+)*)}`);

/** GEM's Wordle feedback: `G` exact; then `Y` while the letter is still unmatched (leftmost first); else `X`. */
export function wordleFeedback(secret: string, guess: string): string[] {
  const feedback: string[] = new Array(guess.length).fill('');
  const rest: (string | null)[] = [...secret];
  for (let i = 0; i < guess.length; i++) {
    if (guess[i] === secret[i]) {
      feedback[i] = 'G';
      rest[i] = null;
    }
  }
  for (let i = 0; i < guess.length; i++) {
    if (feedback[i] !== '') continue;
    const j = rest.indexOf(guess[i]!);
    if (j >= 0) {
      feedback[i] = 'Y';
      rest[j] = null;
    } else feedback[i] = 'X';
  }
  return feedback;
}

export class Wordle extends GameEnv {
  wordLength: number;
  maxTurns: number;
  readonly isRandom: boolean;
  private secret = '';
  private candidates: string[] = [];
  private readonly previousGuesses = new Set<string>();
  private greens: boolean[] = [];

  constructor(options: EnvOptions = {}) {
    const o = parseGameOptions('Wordle', WordleOptions, options);
    super(o.seed);
    this.isRandom = o.wordLength === null;
    this.wordLength = o.wordLength ?? 5;
    this.maxTurns = o.maxTurns;
    if (basicWordsOfLength(this.wordLength).length === 0) {
      throw new ConfigError(`Wordle: no Basic English word has ${this.wordLength} letters`, { key: 'wordLength' });
    }
    this.resetGame();
  }

  /** The secret word, upper-case (for tests). */
  get secretWord(): string {
    return this.secret;
  }

  taskSuffix(): string {
    return 'Enter your guess.';
  }

  private instructions(): string {
    return (
      'You are playing Wordle.\n' +
      `You have to guess the secret ${this.wordLength}-letter word within ${this.maxTurns} turns.\n` +
      'After you enter your guess, I will say mark your guess as follows:\n' +
      '  - G (green): correct letter in the correct position\n' +
      '  - Y (yellow): letter exists in the word but in the wrong position\n' +
      '  - X (wrong): letter is not in the word\n' +
      'After thinking, format your final answer inside \\boxed{...},' +
      ` for example, ${this.sampleRandomAction()}.\n` +
      'As you play, the history of your guesses will be appended below. Use the information to complete the game before you run out of guesses.\n'
    );
  }

  protected resetGame(): ResetResult {
    if (this.isRandom) {
      this.wordLength = this.rng.int(3, 5);
      this.maxTurns = 5 * this.wordLength;
    }
    this.candidates = basicWordsOfLength(this.wordLength);
    this.secret = this.rng.choice(this.candidates).toUpperCase();
    this.previousGuesses.clear();
    this.greens = new Array(this.wordLength).fill(false);
    this.turnCount = 0;
    return { observation: this.instructions(), info: this.info() };
  }

  protected stepGame(action: string): StepResult {
    this.turnCount += 1;
    const k = this.turnCount;
    const last = pyLastMatch(action, GUESS)?.[1];
    if (last === undefined) return this.formatError(`At turn ${k}, you did not provide a valid guess.`);
    // GEM removes only spaces: a tab or newline between letters stays part of the guess (and of its length).
    const guess = pyUpper(last).replaceAll(' ', '');
    let observation: string;
    let reward: number = LanguageGameReward.invalidAction;
    if ([...guess].length !== this.wordLength) {
      observation = `At turn ${k}, you guessed ${guess} which has ${[...guess].length} letters but the secret word has ${this.wordLength} letters.`;
    } else if (this.previousGuesses.has(guess)) {
      observation = `At turn ${k}, you guessed ${guess}, which has been already guessed before.`;
    } else {
      this.previousGuesses.add(guess);
      const feedback = wordleFeedback(this.secret, guess);
      reward = 0;
      feedback.forEach((f, i) => {
        if (f === 'G' && !this.greens[i]) {
          reward += 0.5 / this.wordLength;
          this.greens[i] = true;
        }
      });
      observation = `At turn ${k}, you guessed ${guess}\nFeedback:\n${guess}\n${pyList(feedback)}`;
      if (guess === this.secret) {
        return this.win(
          `Congratulations! You guessed the secret word ${this.secret} in ${k} turns.`,
          reward + LanguageGameReward.success * 0.5,
        );
      }
    }
    return this.continueOrTimeout(observation, reward);
  }

  /** A Basic English word of the right length not guessed yet. */
  sampleRandomAction(): string {
    const fresh = this.candidates.filter((w) => !this.previousGuesses.has(w.toUpperCase()));
    return `\\boxed{${this.rng.choice(fresh.length > 0 ? fresh : this.candidates).toUpperCase()}}`;
  }
}
