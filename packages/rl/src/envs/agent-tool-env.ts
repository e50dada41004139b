/**
 * A tool-using agent env (upstream `tool_use/agent_tool_message_env.py`), token-level on the one `Env` protocol. Each
 * turn the policy samples; the renderer parses the reply; its tool calls run (concurrently unless
 * `parallelToolCalls: false`) and come back as tool messages; the next prompt is the whole conversation. The episode
 * ends when the reply has no tool call (the final answer), a tool asks to stop, a rollout limit is reached (turns,
 * tokens, seconds), or the reply is malformed (no stop sequence / EOS) and the parse-error policy says so.
 *
 * Rewards: each tool turn earns the sum of its calls' per-call rewards (`ToolOutput.reward`, or `toolCallReward`);
 * the last turn earns `reward(finalState)` — also for a truncated episode, whose state says why it ended. A parse
 * failure that ends the episode earns `-parseError.penalty` instead (the grader is not called, as upstream). Invalid
 * calls (unknown tool, bad JSON, schema violations, calls the renderer could not parse) are not parse failures: they
 * become tool error messages the model reads on its next turn.
 *
 * Metrics: per turn `parse_error` (0/1) and, with `parseError.mask`, `parse_error_masked` (those turns are then left
 * out of the loss by `trajectoryToData`); on the last turn `episode/turns`, `episode/tool_calls`,
 * `episode/tool_errors`, `episode/tool_timeouts`, `episode/parse_errors`, `end/<reason>` (0/1) and the rollout
 * limits' `truncated/<reason>`; logs `end_reason` (and `truncation`).
 */
import { ConfigError, type Message, ModelInput, type ToolCall } from '@cookbook/core';
import { ConversationFormatter, logFormatter, logText } from '@cookbook/logging';
import { isCleanTermination, type Renderer, safeParseResponse } from '@cookbook/renderers';
import { executeToolCalls, type Tool, type ToolCallResult, toolMap, toolSpecs } from '@cookbook/tools';
import {
  type Action,
  type Clock,
  type Env,
  type EnvGroupBuilder,
  type InitialObservation,
  type Metrics,
  type RolloutLimits,
  RolloutLimitTracker,
  type SampleStopReason,
  type StepResult,
  type TruncationReason,
  truncationMetrics,
} from '@cookbook/training';

/** Why an agent episode ended. */
export type AgentEndReason = 'final_answer' | 'tool_stop' | 'parse_error' | TruncationReason;

const END_REASONS: readonly AgentEndReason[] = [
  'final_answer',
  'tool_stop',
  'parse_error',
  'max_turns',
  'max_tokens',
  'timeout',
];

/** What the reward function sees at the end of an episode. */
export interface AgentFinalState {
  /** The whole conversation (tool declaration, prompt, every reply and tool message). */
  messages: readonly Message[];
  /** The last assistant message, when the episode ended on one without tool calls (the answer); else undefined. */
  finalAnswer: Message | undefined;
  endReason: AgentEndReason;
  turns: number;
  toolCalls: number;
  toolErrors: number;
}

/** A reward (and optional metrics) for the final state. */
export type AgentReward = number | { reward: number; metrics?: Metrics };

/** Options of {@link AgentToolEnv}. */
export interface AgentToolEnvOptions {
  renderer: Renderer;
  tools: readonly Tool[];
  /** The task's messages after the tool declaration (usually one user message). */
  messages: readonly Message[];
  /** System prompt written with the tool declaration. */
  systemPrompt?: string;
  /**
   * Declare the tools in the prompt (the renderer's `createConversationPrefixWithTools`). Default true. False leaves
   * the declaration out (only the system prompt, if any): for a model trained to call the tools without seeing their
   * schema, such as the offline stand-in, whose prompt would otherwise be mostly the format's tool preamble.
   */
  declareTools?: boolean;
  /** Grades the final state. */
  reward: (state: AgentFinalState) => AgentReward | Promise<AgentReward>;
  /** Per-call reward added to a tool turn's reward (default: the tool's own `ToolOutput.reward`). */
  toolCallReward?: (call: ToolCall | undefined, result: ToolCallResult) => number;
  /** Rollout limits. Default: 8 turns. `maxToolCallSeconds` bounds each tool call. */
  limits?: RolloutLimits;
  /** A malformed reply (no stop sequence / EOS, e.g. cut at max_tokens). */
  parseError?: {
    /** `end` the episode (default) or `retry`: show the model a correction and let it try again. */
    policy?: 'end' | 'retry';
    /** Subtracted from the turn's reward on a parse failure. Default 0. */
    penalty?: number;
    /** With `retry`: consecutive failures allowed before the episode ends. Default 1. */
    maxRetries?: number;
    /** Leave malformed turns out of the loss (`parse_error_masked`). Default false. */
    mask?: boolean;
  };
  /**
   * A reply whose every tool call the renderer could not parse: `tool_error` (default) shows the model an error message
   * and goes on; `parse_error` treats the reply as malformed (the `parseError` policy and penalty apply, the grader is
   * not called), as upstream's agent env does (`failed_parse_reward`).
   */
  unparsedToolCalls?: 'tool_error' | 'parse_error';
  /** Run a reply's calls concurrently (default) or in order (tools that share state). */
  parallelToolCalls?: boolean;
  /** Output cap per call when the tool sets none. Default 8192 characters. */
  maxToolOutputChars?: number;
  /** Milliseconds clock for the episode limit (tests inject one). */
  clock?: Clock;
}

/** The user message shown after a malformed reply when the policy is `retry`. */
export const PARSE_RETRY_MESSAGE =
  'Your last reply was cut off or malformed. Reply again: call a tool, or give your final answer.';

/** A single-use tool-using agent env. */
export class AgentToolEnv implements Env {
  readonly renderer: Renderer;
  private readonly options: AgentToolEnvOptions;
  private readonly tools: Map<string, Tool>;
  private readonly tracker: RolloutLimitTracker;
  private messages: Message[] = [];
  private promptTokens = 0;
  private toolCalls = 0;
  private toolErrors = 0;
  private toolTimeouts = 0;
  private parseErrors = 0;
  private consecutiveParseErrors = 0;
  private readonly toolMetrics: Metrics = {};

  constructor(options: AgentToolEnvOptions) {
    this.options = options;
    this.renderer = options.renderer;
    this.tools = toolMap(options.tools);
    const retries = options.parseError?.maxRetries ?? 1;
    if (!Number.isInteger(retries) || retries < 0) {
      throw new ConfigError(`parseError.maxRetries must be a non-negative integer, got ${retries}`, {
        key: 'maxRetries',
      });
    }
    this.tracker = new RolloutLimitTracker({ maxTurns: 8, ...(options.limits ?? {}) }, options.clock);
  }

  /** The conversation so far. */
  get conversation(): readonly Message[] {
    return this.messages;
  }

  async initialObservation(): Promise<InitialObservation> {
    const system = this.options.systemPrompt;
    const prefix =
      this.options.declareTools === false
        ? system === undefined || system === ''
          ? []
          : [{ role: 'system', content: system }]
        : this.renderer.createConversationPrefixWithTools(toolSpecs(this.options.tools), system);
    this.messages = [...prefix, ...this.options.messages];
    this.tracker.start();
    const observation = this.renderer.buildGenerationPrompt(this.messages);
    this.promptTokens = observation.length;
    return { observation, stopCondition: this.renderer.getStopSequences() };
  }

  async step(action: Action, extra?: { stopReason?: SampleStopReason }): Promise<StepResult> {
    const parsed = safeParseResponse(this.renderer, action);
    const reply: Message = { ...parsed.message, role: 'assistant' };
    const onlyUnparsedCalls =
      this.options.unparsedToolCalls === 'parse_error' &&
      (reply.tool_calls ?? []).length === 0 &&
      (reply.unparsed_tool_calls ?? []).length > 0;
    const malformed = !isCleanTermination(parsed.termination) || extra?.stopReason === 'length' || onlyUnparsedCalls;
    const pe = this.options.parseError ?? {};
    const turnMetrics: Metrics = { parse_error: malformed ? 1 : 0 };
    if (malformed && pe.mask === true) turnMetrics.parse_error_masked = 1;
    this.messages.push(reply);

    if (malformed) {
      this.parseErrors++;
      this.consecutiveParseErrors++;
      const penalty = -(pe.penalty ?? 0);
      if ((pe.policy ?? 'end') === 'end' || this.consecutiveParseErrors > (pe.maxRetries ?? 1)) {
        return this.finish('parse_error', penalty, turnMetrics);
      }
      this.messages.push({ role: 'user', content: PARSE_RETRY_MESSAGE });
      return this.continueOrTruncate(penalty, turnMetrics, action.length);
    }
    this.consecutiveParseErrors = 0;

    const calls = reply.tool_calls ?? [];
    const unparsed = reply.unparsed_tool_calls ?? [];
    if (calls.length === 0 && unparsed.length === 0) {
      return this.finish('final_answer', 0, turnMetrics, reply);
    }
    const results = await executeToolCalls(this.tools, reply, {
      parallel: this.options.parallelToolCalls !== false,
      ...(this.options.limits?.maxToolCallSeconds == null
        ? {}
        : { timeoutSeconds: this.options.limits.maxToolCallSeconds }),
      ...(this.options.maxToolOutputChars === undefined ? {} : { maxOutputChars: this.options.maxToolOutputChars }),
    });
    let reward = 0;
    let stop = false;
    results.forEach((r, i) => {
      this.toolCalls++;
      if (r.error !== undefined) this.toolErrors++;
      if (r.error === 'timeout') this.toolTimeouts++;
      reward += this.options.toolCallReward ? this.options.toolCallReward(calls[i], r) : r.reward;
      for (const [k, v] of Object.entries(r.metrics))
        this.toolMetrics[`tool/${k}`] = (this.toolMetrics[`tool/${k}`] ?? 0) + v;
      stop ||= r.stop;
      this.messages.push(r.message);
    });
    if (stop) return this.finish('tool_stop', reward, turnMetrics);
    return this.continueOrTruncate(reward, turnMetrics, action.length);
  }

  private async continueOrTruncate(
    reward: number,
    turnMetrics: Metrics,
    completionTokens: number,
  ): Promise<StepResult> {
    const nextObservation = this.renderer.buildGenerationPrompt(this.messages);
    const reason = this.tracker.afterTurn(this.promptTokens, completionTokens, nextObservation.length);
    if (reason !== undefined) return this.finish(reason, reward, turnMetrics, undefined, true);
    this.promptTokens = nextObservation.length;
    return {
      reward,
      episodeDone: false,
      nextObservation,
      nextStopCondition: this.renderer.getStopSequences(),
      metrics: turnMetrics,
    };
  }

  private async finish(
    endReason: AgentEndReason,
    turnReward: number,
    turnMetrics: Metrics,
    finalAnswer?: Message,
    counted = false,
  ): Promise<StepResult> {
    const turns = this.tracker.turnCount + (counted ? 0 : 1);
    const state: AgentFinalState = {
      messages: this.messages,
      finalAnswer,
      endReason,
      turns,
      toolCalls: this.toolCalls,
      toolErrors: this.toolErrors,
    };
    let reward = turnReward;
    let gradeMetrics: Metrics = {};
    if (endReason !== 'parse_error') {
      const graded = await this.options.reward(state);
      if (typeof graded === 'number') reward += graded;
      else {
        reward += graded.reward;
        gradeMetrics = graded.metrics ?? {};
      }
    }
    const truncation = endReason === 'max_turns' || endReason === 'max_tokens' || endReason === 'timeout';
    const metrics: Metrics = {
      ...turnMetrics,
      ...gradeMetrics,
      ...this.toolMetrics,
      'episode/turns': turns,
      'episode/tool_calls': this.toolCalls,
      'episode/tool_errors': this.toolErrors,
      'episode/tool_timeouts': this.toolTimeouts,
      'episode/parse_errors': this.parseErrors,
      ...truncationMetrics(truncation ? (endReason as TruncationReason) : undefined),
    };
    for (const r of END_REASONS) metrics[`end/${r}`] = r === endReason ? 1 : 0;
    logFormatter(new ConversationFormatter(this.messages));
    logText(`Episode ended: ${endReason} after ${turns} turns (reward ${reward.toFixed(3)})`);
    const logs: Record<string, string | number> = { end_reason: endReason };
    if (truncation) logs.truncation = endReason;
    return {
      reward,
      episodeDone: true,
      nextObservation: ModelInput.empty(),
      nextStopCondition: this.renderer.getStopSequences(),
      metrics,
      logs,
    };
  }
}

/** A group of agent envs on one task: `makeEnv` builds a fresh env per rollout. */
export class AgentToolGroupBuilder implements EnvGroupBuilder {
  constructor(
    readonly makeEnv: () => AgentToolEnv,
    readonly groupSize: number,
    readonly options: {
      /** Environment tag in metrics and transcripts. Default `agent`. */
      tag?: string;
      /** Expert conversations of this task (tool calls and the answer as `trainable` assistant turns). */
      demonstrations?: () => Promise<Message[][]>;
    } = {},
  ) {
    if (!Number.isInteger(groupSize) || groupSize < 1) {
      throw new ConfigError(`group size must be a positive integer, got ${groupSize}`, { key: 'group_size' });
    }
    if (options.demonstrations !== undefined) this.demonstrations = options.demonstrations;
  }

  demonstrations?: () => Promise<Message[][]>;

  async makeEnvs(): Promise<Env[]> {
    return Array.from({ length: this.groupSize }, () => this.makeEnv());
  }

  logtreeTag(): string {
    return this.options.tag ?? 'agent';
  }
}
