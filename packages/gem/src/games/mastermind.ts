/**
 * Mastermind (GEM `mastermind.py`): find a secret code of `codeLength` digits from 1..`numNumbers` from
 * black/white peg feedback.
 *
 * Rewards as in GEM: a guess whose black count beats the best so far earns `(B - best) / codeLength` (so a win
 * totals 1.0, with no extra bonus); wrong length, digits out of range and repeated guesses are invalid (0); a
 * missing or malformed `\boxed{d d d}` (commas included) is a format error. Reset info carries no suffix (as GEM).
 */
import { ConfigError } from '@cookbook/core';
import { z } from 'zod';
import { pyList } from '../core/boxed.js';
import type { ResetResult, StepResult } from '../core/env.js';
import { LanguageGameReward } from '../core/env.js';
import { pyInt, pyLastMatch, pyRegExp, pySplit } from '../core/python-text.js';
import type { EnvOptions } from '../core/registry.js';
import { GameEnv } from './internal/game-env.js';
import { intOpt, parseGameOptions, seedOpt } from './internal/options.js';

export const MastermindOptions = z.object({
  codeLength: intOpt(1).nullable().default(4).describe('digits in the code; null = random variant'),
  numNumbers: intOpt(1).nullable().default(6).describe('digits are drawn from 1..numNumbers; null = random'),
  duplicateNumbers: z.boolean().default(false).describe('whether the secret may repeat a digit'),
  maxTurns: intOpt(1).default(20).describe('turn limit'),
  seed: seedOpt,
});

/** GEM's random-variant settings: (code length, digits, turns). */
const RANDOM_SETTINGS: readonly [number, number, number][] = [
  [2, 4, 10],
  [4, 6, 20],
  [4, 8, 30],
];

const GUESS = pyRegExp(String.raw`\\boxed{(\d+(?:\s+\d+)*)}`);

/** Black pegs (right digit, right place) and white pegs (right digit, wrong place, counted with multiplicity). */
export function mastermindPegs(code: readonly number[], guess: readonly number[]): [number, number] {
  let black = 0;
  const restCode = new Map<number, number>();
  const restGuess: number[] = [];
  for (let i = 0; i < code.length; i++) {
    if (guess[i] === code[i]) black++;
    else {
      restCode.set(code[i]!, (restCode.get(code[i]!) ?? 0) + 1);
      restGuess.push(guess[i]!);
    }
  }
  let white = 0;
  for (const g of restGuess) {
    const n = restCode.get(g) ?? 0;
    if (n > 0) {
      white++;
      restCode.set(g, n - 1);
    }
  }
  return [black, white];
}

export class Mastermind extends GameEnv {
  codeLength: number;
  numNumbers: number;
  maxTurns: number;
  readonly duplicateNumbers: boolean;
  readonly isRandom: boolean;
  private code: number[] = [];
  private readonly previousGuesses = new Set<string>();
  private milestone = 0;

  constructor(options: EnvOptions = {}) {
    const o = parseGameOptions('Mastermind', MastermindOptions, options);
    super(o.seed);
    this.isRandom = o.codeLength === null || o.numNumbers === null;
    this.codeLength = o.codeLength ?? 4;
    this.numNumbers = o.numNumbers ?? 6;
    this.duplicateNumbers = o.duplicateNumbers;
    this.maxTurns = o.maxTurns;
    if (!this.isRandom && !this.duplicateNumbers && this.codeLength > this.numNumbers) {
      throw new ConfigError(
        `Mastermind: codeLength (${this.codeLength}) exceeds numNumbers (${this.numNumbers}) without duplicateNumbers`,
        { key: 'codeLength' },
      );
    }
    this.resetGame();
  }

  /** The secret code (for tests). */
  get secretCode(): readonly number[] {
    return this.code;
  }

  taskSuffix(): string {
    return 'Enter your guess.';
  }

  private instructions(): string {
    return (
      'You are playing Mastermind.\n' +
      `You have to guess the secret ${this.codeLength} digit code within ${this.maxTurns} turns.\n` +
      `The code consists of digits from 1 to ${this.numNumbers} (inclusive). ` +
      `Duplicate numbers are ${this.duplicateNumbers ? 'allowed' : 'not allowed'}.\n` +
      'After you enter your guess, I will say mark your guess with black and white pegs, where a black peg indicates a correct digit in the correct position, while a white peg indicates a correct digit in the wrong position.\n' +
      'After thinking, format your final answer inside \\boxed{...},' +
      ` for example, ${this.sampleRandomAction()}.\n` +
      'As you play, the history of your guesses will be appended below. Use the information to complete the game before you run out of guesses.\n' +
      'Enter your first guess to start the game.\n'
    );
  }

  protected resetGame(): ResetResult {
    if (this.isRandom) {
      [this.codeLength, this.numNumbers, this.maxTurns] = this.rng.choice(RANDOM_SETTINGS);
    }
    const digits = Array.from({ length: this.numNumbers }, (_, i) => i + 1);
    this.code = this.duplicateNumbers
      ? Array.from({ length: this.codeLength }, () => this.rng.choice(digits))
      : this.rng.sample(digits, this.codeLength);
    this.previousGuesses.clear();
    this.milestone = 0;
    this.turnCount = 0;
    return { observation: this.instructions(), info: {} };
  }

  protected stepGame(action: string): StepResult {
    this.turnCount += 1;
    const k = this.turnCount;
    // Python: list(map(int, group.split())): exact integers of any size; a part past 4300 digits raises, which GEM
    // answers as a format error.
    const match = pyLastMatch(action, GUESS);
    const parsed = match === undefined ? [] : pySplit(match[1]!).map(pyInt);
    if (parsed.length === 0 || parsed.some((d) => d === undefined)) {
      return this.formatError(`At turn ${k}, you did not provide a valid guess.`);
    }
    const guessBig = parsed as bigint[];
    const shown = pyList(guessBig);
    let observation: string;
    let reward: number = LanguageGameReward.invalidAction;
    if (guessBig.length !== this.codeLength) {
      observation = `At turn ${k}, you guessed ${shown} which has ${guessBig.length} entries but the code has length ${this.codeLength}.`;
    } else if (guessBig.some((d) => d < 1n || d > BigInt(this.numNumbers))) {
      observation = `At turn ${k}, you guessed ${shown}, which has numbers outside the range 1 to ${this.numNumbers}.`;
    } else if (this.previousGuesses.has(shown)) {
      observation = `At turn ${k}, you guessed ${shown}, which has been already guessed before.`;
    } else {
      this.previousGuesses.add(shown);
      const [black, white] = mastermindPegs(this.code, guessBig.map(Number));
      observation = `At turn ${k}, you guessed ${shown}. This guess receives ${black} black peg(s) and ${white} white peg(s).`;
      reward = 0;
      if (black > this.milestone) {
        reward = (black - this.milestone) / this.codeLength;
        this.milestone = black;
      }
      if (black === this.codeLength) {
        return this.win(`Congratulations! You guessed the correct code ${pyList(this.code)} in ${k} turns.`, reward);
      }
    }
    return this.continueOrTimeout(observation, reward);
  }

  /** A code of distinct digits in range (GEM samples without replacement even when duplicates are allowed). */
  sampleRandomAction(): string {
    const digits = Array.from({ length: this.numNumbers }, (_, i) => i + 1);
    const n = Math.min(this.codeLength, this.numNumbers);
    return `\\boxed{${this.rng.sample(digits, n).join(' ')}}`;
  }
}
