/**
 * The observation wrappers (GEM `ObservationWrapper`): they turn the env's one-line event messages into the text the
 * policy sees, from the whole history of the episode.
 *
 * - `concat`: every observation so far, each ending in a newline (the reset instructions first); no actions.
 * - `concat_with_action`: obs0, act1, obs1, … each ending in a newline.
 * - `concat_chat`: the history as chat messages (user / tool observations, assistant actions) rendered with a
 *   renderer's generation prompt (GEM uses the tokenizer's chat template).
 * - `concat_chat_on_reset`: the reset observation rendered as one user message with the generation prompt, the rest
 *   concatenated as in `concat_with_action`.
 *
 * In every mode `info.prefix` (if any) is prepended and `info.suffix` of the latest reset/step (the board and the
 * prompt such as `Enter your next guess.`) is appended with no separator — with `concat_chat` after the generation
 * prompt, as GEM does. The action recorded is `info.parsed_action` when the tool wrapper set one, else the raw text.
 */
import { ConfigError, type Message } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import type { Env, EnvInfo, ResetResult, StepResult } from '../core/env.js';
import { EnvWrapper } from './env-wrapper.js';

/** The observation modes. */
export type ObservationMode = 'concat' | 'concat_with_action' | 'concat_chat' | 'concat_chat_on_reset';

/** Options of {@link ObservationWrapper}. */
export interface ObservationWrapperOptions {
  mode: ObservationMode;
  /** Renders chat messages; required by `concat_chat` and `concat_chat_on_reset`. */
  renderer?: Renderer;
  /** Keep only the last N actions and N+1 observations. Default: all. */
  maxHistoryLength?: number;
}

function addNewline(s: string): string {
  return s.length > 0 && !s.endsWith('\n') ? `${s}\n` : s;
}

/** Wraps the observations of an env into the policy's view of the whole episode. */
export class ObservationWrapper extends EnvWrapper {
  readonly mode: ObservationMode;
  private readonly renderer: Renderer | undefined;
  private readonly maxHistoryLength: number | undefined;
  private observations: { text: string; useTool: boolean }[] = [];
  private actions: string[] = [];

  constructor(env: Env, options: ObservationWrapperOptions) {
    super(env);
    this.mode = options.mode;
    this.renderer = options.renderer;
    this.maxHistoryLength = options.maxHistoryLength;
    if ((this.mode === 'concat_chat' || this.mode === 'concat_chat_on_reset') && this.renderer === undefined) {
      throw new ConfigError(`the ${this.mode} wrapper needs a renderer (the chat format to render the history with)`, {
        key: 'env_wrappers',
      });
    }
  }

  override async reset(seed?: number): Promise<ResetResult> {
    const r = await this.env.reset(seed);
    this.observations = [{ text: r.observation, useTool: false }];
    this.actions = [];
    return { observation: this.render(r.info), info: r.info };
  }

  override async step(action: string): Promise<StepResult> {
    const r = await this.env.step(action);
    const parsed = r.info.parsed_action;
    this.actions.push(typeof parsed === 'string' ? parsed : action);
    this.observations.push({ text: r.observation, useTool: r.info.use_tool === true });
    if (this.maxHistoryLength !== undefined) {
      const n = this.maxHistoryLength;
      if (this.actions.length > n) this.actions = this.actions.slice(this.actions.length - n);
      if (this.observations.length > n + 1)
        this.observations = this.observations.slice(this.observations.length - n - 1);
    }
    return { ...r, observation: this.render(r.info) };
  }

  private chat(messages: Message[]): string {
    const renderer = this.renderer!;
    return renderer.tokenizer.decode(renderer.buildGenerationPrompt(messages).toInts());
  }

  private render(info: EnvInfo): string {
    const obs = this.observations;
    const acts = this.actions;
    let text = '';
    if (this.mode === 'concat') {
      text = obs.map((o) => addNewline(o.text)).join('');
    } else if (this.mode === 'concat_with_action' || this.mode === 'concat_chat_on_reset') {
      const first = obs[0]!.text;
      text = this.mode === 'concat_chat_on_reset' ? this.chat([{ role: 'user', content: first }]) : addNewline(first);
      for (let i = 1; i < obs.length; i++) text += addNewline(acts[i - 1] ?? '') + addNewline(obs[i]!.text);
    } else {
      const messages: Message[] = [];
      obs.forEach((o, i) => {
        if (i > 0) messages.push({ role: 'assistant', content: acts[i - 1] ?? '' });
        messages.push({ role: o.useTool ? 'tool' : 'user', content: o.text });
      });
      text = this.chat(messages);
    }
    const prefix = typeof info.prefix === 'string' ? info.prefix : '';
    const suffix = typeof info.suffix === 'string' ? info.suffix : '';
    return prefix + text + suffix;
  }
}

/** GEM's `EpisodeTrackingWrapper`: `step_counter` and `cumulative_rewards` in info, and the previous episode's. */
export class EpisodeTrackingWrapper extends EnvWrapper {
  private stepCounter = 0;
  private cumulativeRewards = 0;

  override async reset(seed?: number): Promise<ResetResult> {
    const r = await this.env.reset(seed);
    const info = {
      ...r.info,
      prev_ep_step_counter: this.stepCounter,
      prev_ep_cumulative_rewards: this.cumulativeRewards,
      step_counter: 0,
      cumulative_rewards: 0,
    };
    this.stepCounter = 0;
    this.cumulativeRewards = 0;
    return { observation: r.observation, info };
  }

  override async step(action: string): Promise<StepResult> {
    const r = await this.env.step(action);
    this.stepCounter++;
    this.cumulativeRewards += r.reward;
    return { ...r, info: { ...r.info, step_counter: this.stepCounter, cumulative_rewards: this.cumulativeRewards } };
  }
}
