/**
 * Single-turn question/answer environments (upstream `rl/problem_env.py`). The observation is the generation
 * prompt of an optional conversation prefix plus the question; the one step parses the response and grades it.
 * reward = format_coef · (format − 1) + correct, so a correct, well-formed answer earns 1.
 */
import { getTextContent, type Message, ModelInput, type StopCondition } from '@cookbook/core';
import { logTable, logText } from '@cookbook/logging';
import { isCleanTermination, type Renderer, safeParseResponse } from '@cookbook/renderers';
import type { Action, Env, EnvGroupBuilder, InitialObservation, StepResult } from '@cookbook/training';

/** Options of {@link ProblemEnv}. */
export interface ProblemEnvOptions {
  /** Messages before the question (system prompt, few-shot examples). Default none. */
  convoPrefix?: Message[];
  /** Weight of the format term: a badly formatted answer loses this much. Default 0.1. */
  formatCoef?: number;
  /** Whether a response must end cleanly (stop sequence / EOS, not truncated) to count as well formed. Default true. */
  requireStopSequenceForFormat?: boolean;
}

/** Moved to `@cookbook/renderers`; re-exported for rl's callers. */

/** A single-turn problem graded by `checkAnswer` and `checkFormat`. */
export abstract class ProblemEnv implements Env {
  readonly renderer: Renderer;
  readonly convoPrefix: Message[];
  readonly formatCoef: number;
  readonly requireStopSequenceForFormat: boolean;

  constructor(renderer: Renderer, options: ProblemEnvOptions = {}) {
    this.renderer = renderer;
    this.convoPrefix = options.convoPrefix ?? [];
    this.formatCoef = options.formatCoef ?? 0.1;
    this.requireStopSequenceForFormat = options.requireStopSequenceForFormat ?? true;
  }

  /** The question shown to the policy. */
  abstract getQuestion(): string;
  /** Whether the response text answers the question correctly. */
  abstract checkAnswer(response: string): boolean | Promise<boolean>;
  /** Whether the response text has the expected format (e.g. contains `\boxed{}`). */
  abstract checkFormat(response: string): boolean;
  /** The reference answer, for transcripts. */
  abstract getReferenceAnswer(): string;

  /** A response that earns the full reward (what an expert would write). Default: the reference answer. */
  referenceResponse(): string {
    return this.getReferenceAnswer();
  }

  /**
   * The conversation the policy sees, answered by {@link referenceResponse}: a demonstration for warm starts. Only
   * the answer is `trainable` (the prefix's few-shot answers are context).
   */
  demonstration(): Message[] {
    return [
      ...this.convoPrefix.map((m) => ({ ...m, trainable: false })),
      { role: 'user', content: this.getQuestion(), trainable: false },
      { role: 'assistant', content: this.referenceResponse(), trainable: true },
    ];
  }

  get stopCondition(): StopCondition {
    return this.renderer.getStopSequences();
  }

  async initialObservation(): Promise<InitialObservation> {
    const messages: Message[] = [...this.convoPrefix, { role: 'user', content: this.getQuestion() }];
    return { observation: this.renderer.buildGenerationPrompt(messages), stopCondition: this.stopCondition };
  }

  async step(action: Action): Promise<StepResult> {
    const parsed = safeParseResponse(this.renderer, action);
    const content = getTextContent(parsed.message);
    const wellFormed = this.requireStopSequenceForFormat ? isCleanTermination(parsed.termination) : true;
    const format = wellFormed && this.checkFormat(content);
    const correct = await this.checkAnswer(content);
    const reward = this.formatCoef * (Number(format) - 1) + Number(correct);
    logText(`Problem: ${this.getQuestion()}`);
    logText(`Response: ${content}`);
    logText(`Reference answer: ${this.getReferenceAnswer()}`);
    logTable({ format, correct, reward });
    return {
      reward,
      episodeDone: true,
      nextObservation: ModelInput.empty(),
      nextStopCondition: this.stopCondition,
      metrics: { format: Number(format), correct: Number(correct) },
    };
  }
}

/** A group of `numEnvs` copies of one problem. */
export class ProblemGroupBuilder implements EnvGroupBuilder {
  readonly envThunk: () => Env;
  readonly numEnvs: number;
  readonly datasetName: string;

  constructor(envThunk: () => Env, numEnvs: number, datasetName = 'problems') {
    this.envThunk = envThunk;
    this.numEnvs = numEnvs;
    this.datasetName = datasetName;
  }

  async makeEnvs(): Promise<Env[]> {
    return Array.from({ length: this.numEnvs }, () => this.envThunk());
  }

  logtreeTag(): string {
    return this.datasetName;
  }

  /** One demonstration: the problem answered by its reference response (none when the env is not a ProblemEnv). */
  async demonstrations(): Promise<Message[][]> {
    const env = this.envThunk();
    return env instanceof ProblemEnv ? [env.demonstration()] : [];
  }
}
