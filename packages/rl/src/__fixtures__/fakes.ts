/** Test doubles: scripted policies and simple environments. */
import { type CompleteOptions, ModelInput, type StopCondition, type TokenCompleter, type TokensWithLogprobs } from '@cookbook/core';
import type { Action, Env, EnvGroupBuilder, InitialObservation, StepResult } from '@cookbook/training';

/** A policy that answers each call with the next scripted action (cycling), logprob −0.5 per token. */
export class ScriptedPolicy implements TokenCompleter {
  calls: { prompt: number[]; stop: StopCondition; seed?: number }[] = [];
  private i = 0;

  constructor(readonly actions: number[][]) {}

  async complete(modelInput: ModelInput, stop: StopCondition, options?: CompleteOptions): Promise<TokensWithLogprobs> {
    this.calls.push({ prompt: modelInput.toInts(), stop, ...(options?.seed === undefined ? {} : { seed: options.seed }) });
    const tokens = this.actions[this.i++ % this.actions.length]!;
    return { tokens: [...tokens], maybeLogprobs: tokens.map(() => -0.5) };
  }
}

/**
 * A multi-turn env: observation starts as `prompt`; each step appends the action and `[100 + turn]` (so the
 * next observation extends the previous one) unless `breakExtension`, in which case the observation is rewritten.
 * Reward = `rewardFn(action)` at each step; done after `turns` steps.
 */
export class CountingEnv implements Env {
  private ob: number[];
  private turn = 0;

  constructor(
    readonly prompt: number[],
    readonly turns: number,
    readonly rewardFn: (action: Action) => number = () => 0,
    readonly breakExtension = false,
  ) {
    this.ob = [...prompt];
  }

  async initialObservation(): Promise<InitialObservation> {
    return { observation: ModelInput.fromInts(this.ob), stopCondition: [0] };
  }

  async step(action: Action): Promise<StepResult> {
    this.turn++;
    this.ob = this.breakExtension ? [999, this.turn] : [...this.ob, ...action, 100 + this.turn];
    const done = this.turn >= this.turns;
    return {
      reward: this.rewardFn(action),
      episodeDone: done,
      nextObservation: done ? ModelInput.empty() : ModelInput.fromInts(this.ob),
      nextStopCondition: [0],
      metrics: { turn: this.turn },
    };
  }
}

/** A group builder over a list of env thunks. */
export class ListGroupBuilder implements EnvGroupBuilder {
  constructor(
    readonly thunks: (() => Env)[],
    readonly tag = 'fake',
  ) {}

  async makeEnvs(): Promise<Env[]> {
    return this.thunks.map((t) => t());
  }

  logtreeTag(): string {
    return this.tag;
  }
}
