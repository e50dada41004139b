/**
 * The base every GEM game shares: its own {@link Sfc32Rng}, the turn counter, and the fixed step messages of GEM's
 * language games (format error ends the episode with -0.1; the turn limit ends it with terminated and truncated
 * both true).
 *
 * Invariant: a game is playable right after construction (GEM resets in `__init__`), `reset(seed)` re-seeds only
 * this env's RNG, and every step's info carries the current state text in `info.suffix`.
 */

import { Sfc32Rng } from '@cookbook/core';
import type { Env, EnvInfo, ResetResult, StepResult } from '../../core/env.js';
import { LanguageGameReward } from '../../core/env.js';

/** GEM's observation when a step reaches the turn limit. */
export const MAX_TURNS_OBSERVATION = 'You have reached the maximum number of turns.';

/** A fresh seed for an env made without one (each env still owns its stream). */
function freshSeed(): number {
  return Math.floor(Math.random() * 0x100000000);
}

export abstract class GameEnv implements Env {
  envId?: string;
  /** The env's own random stream; `reset(seed)` re-seeds it. */
  protected readonly rng: Sfc32Rng;
  /** Steps taken this episode, counting invalid and format-error steps. */
  turnCount = 0;
  /** The turn limit of the current episode (random variants redraw it each reset). */
  abstract maxTurns: number;

  constructor(seed: number | undefined) {
    this.rng = new Sfc32Rng(seed ?? freshSeed());
  }

  async reset(seed?: number): Promise<ResetResult> {
    if (seed !== undefined) this.rng.seed(seed);
    return this.resetGame();
  }

  async step(action: string): Promise<StepResult> {
    return this.stepGame(action);
  }

  abstract sampleRandomAction(): string;

  /** The state text GEM puts in `info.suffix` (board and prompt). */
  abstract taskSuffix(): string;

  /** Starts a new episode from the env's current RNG state. */
  protected abstract resetGame(): ResetResult;

  /** Plays one action. */
  protected abstract stepGame(action: string): StepResult;

  protected info(): EnvInfo {
    return { suffix: this.taskSuffix() };
  }

  /** A format error: reward -0.1, the episode ends; truncated only when this was the last turn. */
  protected formatError(observation: string): StepResult {
    return {
      observation,
      reward: LanguageGameReward.formatError,
      terminated: true,
      truncated: this.turnCount === this.maxTurns,
      info: this.info(),
    };
  }

  /** A win: terminated, not truncated. */
  protected win(observation: string, reward: number): StepResult {
    return { observation, reward, terminated: true, truncated: false, info: this.info() };
  }

  /** A loss that ends the episode before the turn limit (a mine, no moves left). */
  protected lose(observation: string, reward: number = LanguageGameReward.fail): StepResult {
    return { observation, reward, terminated: true, truncated: false, info: this.info() };
  }

  /**
   * Ends a non-terminal step: at the turn limit the episode ends (terminated and truncated) with `maxTurnsReward`
   * (the step's reward unless the game pays partial credit); otherwise the step's observation and reward.
   */
  protected continueOrTimeout(
    observation: string,
    reward: number,
    maxTurnsReward: () => number = () => reward,
    maxTurnsObservation: string = MAX_TURNS_OBSERVATION,
  ): StepResult {
    if (this.turnCount >= this.maxTurns) {
      return {
        observation: maxTurnsObservation,
        reward: maxTurnsReward(),
        terminated: true,
        truncated: true,
        info: this.info(),
      };
    }
    return { observation, reward, terminated: false, truncated: false, info: this.info() };
  }
}
