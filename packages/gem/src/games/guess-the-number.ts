/**
 * Guess The Number (GEM `guess_the_number.py`): find a hidden integer in [min, max] from higher/lower hints.
 *
 * Rules as in GEM: the action is the last `\boxed{<digits>}`; 0 or no match is a format error (-0.1, the episode
 * ends); out-of-range and repeated guesses are invalid (0, a turn spent); the correct guess wins 1.0; reaching the
 * turn limit pays `1 - |guess - target| / (max - min)` unless the last guess was out of range.
 */
import { ConfigError } from '@cookbook/core';
import { z } from 'zod';
import type { ResetResult, StepResult } from '../core/env.js';
import { LanguageGameReward } from '../core/env.js';
import { pyInt, pyLastMatch, pyRegExp } from '../core/python-text.js';
import type { EnvOptions } from '../core/registry.js';
import { GameEnv } from './internal/game-env.js';
import { intOpt, parseGameOptions, seedOpt } from './internal/options.js';

export const GuessTheNumberOptions = z.object({
  minNumber: intOpt(0).nullable().default(1).describe('smallest possible target; null (with maxNumber) = random'),
  maxNumber: intOpt(0).nullable().default(20).describe('largest possible target; null = random variant'),
  maxTurns: intOpt(1).default(20).describe('turn limit (random variant: ceil(sqrt(max - min)) + 1)'),
  seed: seedOpt,
});

const GUESS = pyRegExp(String.raw`\\boxed{(\d+)}`);

export class GuessTheNumber extends GameEnv {
  minNumber: number;
  maxNumber: number;
  maxTurns: number;
  /** Whether min, max and the turn limit are redrawn every reset (GEM's `-v0-random`). */
  readonly isRandom: boolean;
  private target = 0;
  private readonly previousGuesses = new Set<number>();

  constructor(options: EnvOptions = {}) {
    const o = parseGameOptions('GuessTheNumber', GuessTheNumberOptions, options);
    super(o.seed);
    this.isRandom = o.minNumber === null || o.maxNumber === null;
    this.minNumber = o.minNumber ?? 1;
    this.maxNumber = o.maxNumber ?? 20;
    this.maxTurns = o.maxTurns;
    if (!this.isRandom && this.maxNumber <= this.minNumber) {
      throw new ConfigError(
        `GuessTheNumber: maxNumber (${this.maxNumber}) must be greater than minNumber (${this.minNumber})`,
        { key: 'maxNumber' },
      );
    }
    this.resetGame();
  }

  /** The hidden number (for tests and solvers that cheat on purpose). */
  get targetNumber(): number {
    return this.target;
  }

  taskSuffix(): string {
    return 'Enter your next guess.';
  }

  private instructions(): string {
    return (
      'You are playing Guess The Number.\n' +
      `You have to guess the number between ${this.minNumber} and ${this.maxNumber} (inclusive) within ${this.maxTurns} turns.\n` +
      "As you enter your guess, the game will provide you with hints such as the target number is 'higher' or 'lower'.\n" +
      'You may provide your response in any manner. Only the number that is wrapped inside \\boxed{} will be considered as your guess,' +
      ` for example, ${this.sampleRandomAction()}.\n` +
      'As you play, the history of your guesses will be appended below. Use the information to complete the game before you run out of guesses.\n' +
      'Enter your first guess to start the game.\n'
    );
  }

  protected resetGame(): ResetResult {
    if (this.isRandom) {
      this.minNumber = this.rng.int(1, 10);
      this.maxNumber = this.rng.int(this.minNumber + 5, this.minNumber + 50);
      this.maxTurns = Math.ceil(Math.sqrt(this.maxNumber - this.minNumber)) + 1;
    }
    this.target = this.rng.int(this.minNumber, this.maxNumber);
    this.previousGuesses.clear();
    this.turnCount = 0;
    return { observation: this.instructions(), info: this.info() };
  }

  protected stepGame(action: string): StepResult {
    this.turnCount += 1;
    const k = this.turnCount;
    // Python's int(): any Unicode decimal digits, exact at any size; past 4300 digits it raises, which GEM (like
    // 0, falsy) answers as a format error.
    const match = pyLastMatch(action, GUESS);
    const guess = match === undefined ? undefined : pyInt(match[1]!);
    if (!guess) return this.formatError(`At turn ${k}, you did not provide a valid guess.`);
    const outOfRange = guess < BigInt(this.minNumber) || guess > BigInt(this.maxNumber);
    const value = Number(guess);
    let observation: string;
    if (outOfRange) {
      observation = `At turn ${k}, you guessed ${guess}, which is outside the range specified.`;
    } else if (this.previousGuesses.has(value)) {
      observation = `At turn ${k}, you guessed ${guess}, which has been already guessed before.`;
    } else {
      this.previousGuesses.add(value);
      if (value === this.target) {
        return this.win(
          `Congratulations! You guessed the correct number ${this.target} in ${k} turns.`,
          LanguageGameReward.success,
        );
      }
      const hint = value > this.target ? 'lower' : 'higher';
      observation = `At turn ${k}, you guessed ${guess}, and the target number is ${hint} than ${guess}.`;
    }
    const reward = outOfRange ? LanguageGameReward.invalidAction : LanguageGameReward.internalStep;
    return this.continueOrTimeout(observation, reward, () =>
      outOfRange
        ? LanguageGameReward.invalidAction
        : 1 - Math.abs(value - this.target) / (this.maxNumber - this.minNumber),
    );
  }

  /** A guess not made yet this episode (any number in range once all are used). */
  sampleRandomAction(): string {
    const fresh: number[] = [];
    for (let x = this.minNumber; x <= this.maxNumber; x++) if (!this.previousGuesses.has(x)) fresh.push(x);
    const pick = fresh.length > 0 ? this.rng.choice(fresh) : this.rng.int(this.minNumber, this.maxNumber);
    return `\\boxed{${pick}}`;
  }
}
