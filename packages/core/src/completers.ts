/**
 * Policy abstractions (upstream `completers.py`): a token-level completer used by RL rollouts and a
 * message-level completer used by multi-agent environments and evaluators.
 */
import { DataError } from './errors.js';
import type { Message } from './messages.js';
import type { ModelInput } from './model-input.js';

/** When to stop sampling: stop strings, or stop token ids. */
export type StopCondition = string[] | number[];

/** Sampled tokens with the sampler's logprob of each. */
export interface TokensWithLogprobs {
  tokens: number[];
  /** One logprob per token; absent when the sampler did not return them. */
  maybeLogprobs?: number[];
}

/** Returns the logprobs of a TokensWithLogprobs, or throws when it has none. */
export function getLogprobs(t: TokensWithLogprobs): number[] {
  if (t.maybeLogprobs === undefined) throw new DataError('these tokens were sampled without logprobs');
  return t.maybeLogprobs;
}

/** Per-call options of a {@link TokenCompleter}. */
export interface CompleteOptions {
  /**
   * Sampling seed of this call: the same seed, prompt and weights give the same tokens on a sampler that honours
   * seeds (the embedded service does). Omitted: the sampler picks one (random).
   */
  seed?: number;
}

/** Completes a token prompt until a stop condition. */
export interface TokenCompleter {
  complete(modelInput: ModelInput, stop: StopCondition, options?: CompleteOptions): Promise<TokensWithLogprobs>;
}

/** Completes a conversation with the next message. */
export interface MessageCompleter {
  complete(messages: Message[]): Promise<Message>;
}
