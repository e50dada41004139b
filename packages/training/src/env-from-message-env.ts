/**
 * Message envs as token-level envs (upstream `EnvFromMessageEnv`): the adapter renders the conversation to tokens,
 * parses each sampled reply back into a message for the env, and renders the next observation, so multi-turn games
 * and single-turn prompts are written without touching tokens.
 *
 * The result is an {@link Env} of the RL protocol (`./env.ts`), so a package that builds RL envs from messages
 * (preference, for one) needs only this package, and rl's loops accept it as is.
 */
import { type Message, ModelInput } from '@cookbook/core';
import { ConversationFormatter, logFormatter } from '@cookbook/logging';
import { isCleanTermination, type Renderer, safeParseResponse } from '@cookbook/renderers';
import type { Env, InitialObservation, StepResult } from './env.js';
import type { MessageEnv } from './message-env.js';

/** Options of {@link EnvFromMessageEnv}. */
export interface EnvFromMessageEnvOptions {
  /** End the episode (without extra penalty) once the next prompt would exceed this many tokens. Default none. */
  maxTrajectoryTokens?: number;
}

/**
 * A token-level env over a {@link MessageEnv}. Adds metric `parse_error` (1 when the reply did not end cleanly).
 * The conversation, with every reply as parsed, is rendered again for the next observation, so with renderers that
 * have the extension property the turns merge into one datum.
 */
export class EnvFromMessageEnv implements Env {
  readonly renderer: Renderer;
  readonly messageEnv: MessageEnv;
  readonly maxTrajectoryTokens: number | undefined;
  private messages: Message[] = [];

  constructor(renderer: Renderer, messageEnv: MessageEnv, options: EnvFromMessageEnvOptions = {}) {
    this.renderer = renderer;
    this.messageEnv = messageEnv;
    this.maxTrajectoryTokens = options.maxTrajectoryTokens;
  }

  /** The conversation so far. */
  get conversation(): readonly Message[] {
    return this.messages;
  }

  async initialObservation(): Promise<InitialObservation> {
    this.messages = await this.messageEnv.initialMessages();
    return {
      observation: this.renderer.buildGenerationPrompt(this.messages),
      stopCondition: this.renderer.getStopSequences(),
    };
  }

  async step(action: number[]): Promise<StepResult> {
    const parsed = safeParseResponse(this.renderer, action);
    const reply: Message = { ...parsed.message, role: 'assistant' };
    this.messages.push(reply);
    const result = await this.messageEnv.step(reply);
    this.messages.push(...result.nextMessages);
    const metrics: Record<string, number> = {
      ...(result.metrics ?? {}),
      parse_error: isCleanTermination(parsed.termination) ? 0 : 1,
    };
    let done = result.episodeDone;
    let nextObservation = done ? ModelInput.empty() : this.renderer.buildGenerationPrompt(this.messages);
    if (!done && this.maxTrajectoryTokens !== undefined && nextObservation.length > this.maxTrajectoryTokens) {
      done = true;
      nextObservation = ModelInput.empty();
      metrics.context_overflow = 1;
    }
    if (done) logFormatter(new ConversationFormatter(this.messages));
    const step: StepResult = {
      reward: result.reward,
      episodeDone: done,
      nextObservation,
      nextStopCondition: this.renderer.getStopSequences(),
      metrics,
    };
    if (result.logs !== undefined) step.logs = result.logs;
    return step;
  }
}
