/**
 * The message-level environment protocol (upstream `MessageEnv`), defined once here for benchmarks and RL alike:
 * the env shows a conversation, sees each reply of the model as a parsed message, and answers with the next
 * messages until it declares the episode done. Single-turn benchmarks are one-step envs; multi-turn ones (follow-up
 * questions, games, tool use) take several steps. `EnvFromMessageEnv` (next door) adapts them to
 * tokens for the RL loops.
 */
import type { Message } from '@cookbook/core';

/** What a message env returns for one reply. */
export interface MessageStepResult {
  reward: number;
  episodeDone: boolean;
  /** Messages appended to the conversation after the model's reply (e.g. the env's answer or the next question). */
  nextMessages: Message[];
  /** Scalar metrics of this step (a benchmark env reports `correct` as 0/1 on its last step). */
  metrics?: Record<string, number>;
  /** Free-form values shown in transcripts. */
  logs?: Record<string, string | number>;
}

/** A single-use environment at the level of chat messages. */
export interface MessageEnv {
  /** The conversation so far (system prompt, first user turn). */
  initialMessages(): Promise<Message[]>;
  /** React to the model's reply. */
  step(reply: Message): Promise<MessageStepResult>;
}
