/**
 * A GEM env as a cookbook RL env (`Env`, `EnvGroupBuilder` and `RLDataset` of `@cookbook/training`, the protocol
 * rl's loops take), so the cookbook's RL loops (`train` of `@cookbook/rl`: GRPO-style groups, KL penalty,
 * streaming/async) train on GEM games. `@cookbook/gem` does not depend on `@cookbook/rl`; a test passes a
 * `GemRLDataset` to rl's own rollout code. Each turn's prompt is the template applied to the (wrapped)
 * observation, exactly as the GEM trainer builds it; the sampled tokens are decoded and stepped as text.
 *
 * Groups: the `groupSize` envs of a group are reset with the same seed, so they play the same game (same target,
 * same board) and their returns are comparable — GEM's own adapter needs `spawn(same_state)` and so works only for
 * dataset envs; seeded games make groups possible for every game.
 */
import { type Message, ModelInput, TrainingError } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import {
  type Env as CookbookEnv,
  type EnvGroupBuilder,
  type InitialObservation,
  LimitedEnv,
  type RLDataset,
  type RolloutLimits,
  type StepResult,
  validateRolloutLimits,
} from '@cookbook/training';
import type { Env } from '../core/env.js';
import { promptTokens, stopCondition, type TemplateName } from '../trainer/templates.js';

/** A scripted player: the observation the policy sees → the next action text. */
export type GemPlayer = (observation: string) => string;

/** Options shared by the adapter classes. */
export interface GemAdapterOptions {
  /** Makes a fresh (wrapped) GEM env. */
  makeEnv: () => Env;
  renderer: Renderer;
  /** Prompt template. Default `renderer` (the model's chat format). */
  template?: TemplateName;
  /** A tag for metrics (`env/<tag>/…`). Default `gem`. */
  tag?: string;
  /** Plays demonstrations for warm starts (`EnvGroupBuilder.demonstrations`). */
  player?: GemPlayer;
  /**
   * Rollout limits (`@cookbook/training`'s `LimitedEnv`) on top of the game's own turn limit: an episode cut by one
   * ends with metrics `truncated/<reason>` and log `truncation` (rollout summaries, transcripts). Default none.
   */
  limits?: RolloutLimits;
}

/** One GEM episode as a single-use cookbook env. */
export class GemCookbookEnv implements CookbookEnv {
  private readonly template: TemplateName;
  private done = false;

  constructor(
    readonly env: Env,
    readonly seed: number,
    readonly renderer: Renderer,
    template: TemplateName = 'renderer',
  ) {
    this.template = template;
  }

  private prompt(observation: string): ModelInput {
    return promptTokens(this.template, observation, this.renderer);
  }

  async initialObservation(): Promise<InitialObservation> {
    const r = await this.env.reset(this.seed);
    return { observation: this.prompt(r.observation), stopCondition: stopCondition(this.renderer) };
  }

  async step(action: number[]): Promise<StepResult> {
    if (this.done) throw new TrainingError('GemCookbookEnv: the episode is over (make a new env per rollout)');
    const r = await this.env.step(this.renderer.tokenizer.decode(action));
    this.done = r.terminated || r.truncated;
    const won = this.done && !r.truncated && r.reward > 0 ? 1 : 0;
    return {
      reward: r.reward,
      episodeDone: this.done,
      nextObservation: this.done ? ModelInput.empty() : this.prompt(r.observation),
      nextStopCondition: stopCondition(this.renderer),
      metrics: this.done ? { won, format_error: r.reward < 0 ? 1 : 0 } : {},
    };
  }
}

/** `groupSize` copies of one seeded game. */
export class GemEnvGroupBuilder implements EnvGroupBuilder {
  constructor(
    readonly options: GemAdapterOptions,
    readonly seed: number,
    readonly groupSize: number,
  ) {
    if (options.limits !== undefined) validateRolloutLimits(options.limits);
  }

  async makeEnvs(): Promise<CookbookEnv[]> {
    const { limits } = this.options;
    return Array.from({ length: this.groupSize }, () => {
      const env = new GemCookbookEnv(this.options.makeEnv(), this.seed, this.options.renderer, this.options.template);
      return limits === undefined ? env : new LimitedEnv(env, limits);
    });
  }

  logtreeTag(): string {
    return this.options.tag ?? 'gem';
  }

  /**
   * One game of the player, as one conversation per turn (user = the turn's prompt text, assistant = the move,
   * trainable) — the policy sees each turn as a fresh single-turn prompt. Needs `player`; none otherwise.
   */
  async demonstrations(): Promise<Message[][]> {
    const player = this.options.player;
    if (player === undefined) return [];
    const env = this.options.makeEnv();
    let { observation } = await env.reset(this.seed);
    const out: Message[][] = [];
    for (let turn = 0; turn < 1000; turn++) {
      const action = player(observation);
      out.push([
        { role: 'user', content: userContent(this.options.template ?? 'renderer', observation), trainable: false },
        { role: 'assistant', content: action, trainable: true },
      ]);
      const r = await env.step(action);
      if (r.terminated || r.truncated) break;
      observation = r.observation;
    }
    return out;
  }
}

function userContent(template: TemplateName, observation: string): string {
  if (template === 'qwen3_general') {
    return `Question: ${observation}\nPlease reason step by step, and put your final answer within \\boxed{}.`;
  }
  if (template === 'no') return observation;
  return `You are playing language games. Make valid actions to win.\nObservation: ${observation}\nPlease reason step by step, and put your final answer within \\boxed{}.`;
}

/** Batches of seeded GEM groups: batch i holds `groupsPerBatch` games, each played by `groupSize` rollouts. */
export class GemRLDataset implements RLDataset {
  constructor(
    readonly options: GemAdapterOptions & {
      groupsPerBatch: number;
      groupSize: number;
      numBatches: number;
      seed?: number;
    },
  ) {}

  get length(): number {
    return this.options.numBatches;
  }

  getBatch(index: number): GemEnvGroupBuilder[] {
    const base = (this.options.seed ?? 0) * 1_000_003 + index * this.options.groupsPerBatch;
    return Array.from(
      { length: this.options.groupsPerBatch },
      (_, g) => new GemEnvGroupBuilder(this.options, (base + g) >>> 0, this.options.groupSize),
    );
  }
}
