/** A tiny game for tests: guess a secret in 1..3 within `maxTurns`, GEM-style rewards and suffix. */
import { lastBoxed } from '../core/boxed.js';
import { type Env, LanguageGameReward, type ResetResult, type StepResult } from '../core/env.js';
import { Sfc32Rng } from '@cookbook/core';

export class PickEnv implements Env {
  envId?: string;
  readonly rng: Sfc32Rng;
  secret = 0;
  turn = 0;
  resets = 0;

  constructor(
    seed = 0,
    readonly maxTurns = 2,
  ) {
    this.rng = new Sfc32Rng(seed);
  }

  async reset(seed?: number): Promise<ResetResult> {
    if (seed !== undefined) this.rng.seed(seed);
    this.secret = this.rng.int(1, 3);
    this.turn = 0;
    this.resets++;
    return { observation: 'Guess a number between 1 and 3.', info: { suffix: 'Enter your first guess.' } };
  }

  async step(action: string): Promise<StepResult> {
    this.turn++;
    const raw = lastBoxed(action);
    const guess = raw === undefined ? Number.NaN : Number(raw);
    if (!Number.isInteger(guess)) {
      return {
        observation: `At turn ${this.turn}, you did not provide a valid guess.`,
        reward: LanguageGameReward.formatError,
        terminated: true,
        truncated: this.turn === this.maxTurns,
        info: { suffix: 'Enter your next guess.' },
      };
    }
    if (guess === this.secret) {
      return {
        observation: 'Congratulations! You guessed it.',
        reward: 1,
        terminated: true,
        truncated: false,
        info: { suffix: '' },
      };
    }
    const over = this.turn >= this.maxTurns;
    return {
      observation: over ? 'You have reached the maximum number of turns.' : `At turn ${this.turn}, you guessed ${guess}.`,
      reward: 0,
      terminated: over,
      truncated: over,
      info: { suffix: 'Enter your next guess.' },
    };
  }

  sampleRandomAction(): string {
    return `\\boxed{${this.rng.int(1, 3)}}`;
  }
}
