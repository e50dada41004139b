/**
 * Code RL's agent variant (upstream `recipes/code_rl`: `DeepcoderTool`, `DeepcoderReward` on `build_agent_tool_env`):
 * the policy may call `check_solution(code)` to run a program on the problem's tests in the sandbox and read the
 * result, then answers; the last assistant message's last fenced block is graded.
 *
 * Upstream's semantics, kept here:
 * - A turn is one assistant reply. A reply without tool calls ends the episode; so does the `maxTurns`-th reply
 *   (default 2), whose tool calls still run before the grade.
 * - The tool returns JSON `{"passed": bool, "details": {…}}` (`{"error": "…", "passed": false}` when grading itself
 *   failed); it adds nothing to the reward. Bad calls (unknown tool, arguments that are not JSON or lack `code`) come
 *   back to the model as an error tool message and the episode goes on; a reply whose every call could not be parsed
 *   at all ends the episode at −0.1 without grading (upstream's `failed_parse_reward`).
 * - Reward at the end: `formatCoef · (has_code − 1) + correct` (0.1 · … : −0.1 without a code block), from the last
 *   assistant message, whether the episode ended on an answer or at the turn limit.
 * - The trajectory token cap (`maxTrajectoryTokens`, default 32768): when the next prompt plus the generation reserve
 *   (`maxGenerationTokens`, the sampler's `max_tokens`) would pass it, the episode ends at −0.1 without grading; a
 *   reply cut at `max_tokens` or without a stop token also ends it at −0.1 (upstream's `context_overflow_reward` and
 *   `failed_parse_reward`, both −0.1).
 *
 * Deliberate differences: `details` is this sandbox's grade (verdict, first failing test, exit code, the tail of
 * stdout / stderr), not a SandboxFusion response; a first prompt that is already over the cap cannot end the episode
 * before sampling here (the `Env` protocol has no such outcome), so the one reply sampled for it earns −0.1 and is
 * left out of the loss (`parse_error_masked`), which is what upstream's empty trajectory amounts to.
 */
import { getTextContent, type Message, ModelInput } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import { extractCode } from '@cookbook/sandbox';
import { defineTool, type Tool } from '@cookbook/tools';
import type { Action, Env, InitialObservation, Metrics, SampleStopReason, StepResult } from '@cookbook/training';
import { z } from 'zod';
import { type AgentFinalState, AgentToolEnv } from './agent-tool-env.js';
import type { CodeGrader, CodeTask } from './code-env.js';

/** Upstream's defaults: 2 turns, a 32K-token trajectory, −0.1 on overflow, format coefficient 0.1. */
export const CODE_AGENT_MAX_TURNS = 2;
export const CODE_AGENT_MAX_TRAJECTORY_TOKENS = 32 * 1024;
export const CODE_AGENT_OVERFLOW_REWARD = -0.1;
export const CODE_AGENT_FORMAT_COEF = 0.1;

/** The longest program `check_solution` accepts, characters. */
export const MAX_CHECK_SOLUTION_CODE_CHARS = 100_000;
/** Characters of a program's stdout / stderr kept in the tool's `details` (the tail). */
const DETAIL_CHARS = 1000;

const checkSolutionParameters = z.object({
  code: z.string().max(MAX_CHECK_SOLUTION_CODE_CHARS).describe('The Python program that solves the problem'),
});

function tail(text: string): string {
  return text.length <= DETAIL_CHARS ? text : `…${text.slice(-DETAIL_CHARS)}`;
}

/**
 * The `check_solution(code)` tool bound to one task: runs `code` on the task's tests through `grade` (a sandbox pool
 * behind it) and returns `{"passed", "details"}` as JSON. `perTestSeconds` sizes the call's deadline like the
 * grader's: (t + 1) × tests + 5 s, plus 5 s so the grader's own timeout is what shows.
 */
export function checkSolutionTool(
  task: CodeTask,
  grade: CodeGrader,
  perTestSeconds = 6,
): Tool<typeof checkSolutionParameters> {
  return defineTool({
    name: 'check_solution',
    description:
      "Run a proposed solution on the problem's tests and report whether it passes. Use it to test code before " +
      'giving the final answer.',
    parameters: checkSolutionParameters,
    timeoutSeconds: (perTestSeconds + 1) * task.tests.inputs.length + 10,
    maxOutputChars: 4 * DETAIL_CHARS,
    run: async ({ code }) => {
      try {
        const g = await grade(code, task.tests);
        const details: Record<string, unknown> = { verdict: g.verdict };
        if (g.failedTest !== undefined) details.failed_test = g.failedTest;
        if (g.result !== undefined) {
          details.exit_code = g.result.exitCode;
          if (g.result.stdout !== '') details.stdout = tail(g.result.stdout);
          if (g.result.stderr !== '') details.stderr = tail(g.result.stderr);
        }
        return {
          content: JSON.stringify({ passed: g.passed, details }),
          metrics: { check_solution_passed: g.passed ? 1 : 0 },
        };
      } catch (e) {
        return JSON.stringify({ error: e instanceof Error ? e.message : String(e), passed: false });
      }
    },
  });
}

/** Options of {@link CodeAgentEnv}. */
export interface CodeAgentEnvOptions {
  task: CodeTask;
  renderer: Renderer;
  grade: CodeGrader;
  /** The user message (upstream: the LiveCodeBench prompt). */
  prompt: string;
  /** The sampler's `max_tokens`: the generation reserve of the token cap. */
  maxGenerationTokens: number;
  /** Default {@link CODE_AGENT_MAX_TURNS}. */
  maxTurns?: number;
  /** Default {@link CODE_AGENT_MAX_TRAJECTORY_TOKENS}. */
  maxTrajectoryTokens?: number;
  /** Declare the tool in the prompt (the chat format's tool preamble). Default true. */
  declareTools?: boolean;
  /** Per-test limit of the tool's grading, seconds (sizes the call's deadline). Default 6. */
  perTestSeconds?: number;
}

/** The last assistant message's text (upstream grades it whatever ended the episode). */
function lastAssistantText(messages: readonly Message[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant') return getTextContent(m);
  }
  return undefined;
}

/** One rollout of the agent variant (see the module comment). */
export class CodeAgentEnv implements Env {
  readonly renderer: Renderer;
  private readonly inner: AgentToolEnv;
  private readonly cap: number;
  private readonly reserve: number;
  private overflowAtStart = false;

  constructor(readonly options: CodeAgentEnvOptions) {
    this.renderer = options.renderer;
    this.cap = options.maxTrajectoryTokens ?? CODE_AGENT_MAX_TRAJECTORY_TOKENS;
    this.reserve = options.maxGenerationTokens;
    const { task, grade } = options;
    this.inner = new AgentToolEnv({
      renderer: options.renderer,
      tools: [checkSolutionTool(task, grade, options.perTestSeconds)],
      messages: [{ role: 'user', content: options.prompt }],
      declareTools: options.declareTools ?? true,
      limits: {
        maxTurns: options.maxTurns ?? CODE_AGENT_MAX_TURNS,
        // The tracker ends the episode when the next prompt reaches this; upstream ends it when the next prompt plus the
        // generation reserve passes the cap: the same condition.
        maxTotalTokens: Math.max(1, this.cap - this.reserve + 1),
      },
      parseError: { policy: 'end', penalty: -CODE_AGENT_OVERFLOW_REWARD },
      unparsedToolCalls: 'parse_error',
      reward: (state) => this.grade(state),
    });
  }

  private async grade(state: AgentFinalState): Promise<{ reward: number; metrics: Metrics }> {
    if (state.endReason === 'max_tokens') {
      return { reward: CODE_AGENT_OVERFLOW_REWARD, metrics: { context_overflow: 1, format: 0, correct: 0 } };
    }
    const text = lastAssistantText(state.messages) ?? '';
    const code = extractCode(text);
    const correct = code === undefined ? false : (await this.options.grade(code, this.options.task.tests)).passed;
    const format = code === undefined ? 0 : 1;
    return {
      reward: CODE_AGENT_FORMAT_COEF * (format - 1) + (correct ? 1 : 0),
      metrics: { context_overflow: 0, format, correct: correct ? 1 : 0 },
    };
  }

  /** The conversation so far (tool declaration, prompt, replies, tool messages). */
  get conversation(): readonly Message[] {
    return this.inner.conversation;
  }

  async initialObservation(): Promise<InitialObservation> {
    const first = await this.inner.initialObservation();
    this.overflowAtStart = first.observation.length + this.reserve > this.cap;
    return first;
  }

  async step(action: Action, extra?: { stopReason?: SampleStopReason }): Promise<StepResult> {
    if (this.overflowAtStart) {
      return {
        reward: CODE_AGENT_OVERFLOW_REWARD,
        episodeDone: true,
        nextObservation: ModelInput.empty(),
        nextStopCondition: this.renderer.getStopSequences(),
        metrics: { context_overflow: 1, format: 0, correct: 0, parse_error_masked: 1 },
        logs: { end_reason: 'max_tokens' },
      };
    }
    return this.inner.step(action, extra);
  }
}
