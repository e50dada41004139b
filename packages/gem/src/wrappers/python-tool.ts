/**
 * The tool wrapper and its Python tool (GEM `ToolEnvWrapper`, `PythonCodeTool`).
 *
 * A response holding a `<python>…</python>` or ```` ```python … ``` ```` block (whichever ends first) is a tool call:
 * the code runs in a `python3` subprocess, the policy sees `Code execution result: <output>` and the episode goes on;
 * a response without one goes to the inner env. Tool calls earn `toolReward` (+ `toolSuccessReward` when the code ran
 * without error) and are capped at `maxToolUses` per episode, after which responses go to the env.
 *
 * The code runs in a fresh `@cookbook/sandbox` sandbox (by default the local bubblewrap one: no network — for any
 * process the code starts, not only the first interpreter —, no file outside its own folder, CPU, memory, process,
 * file-size and output limits, every process gone afterwards), as `python3 -I` with a wall-clock limit (killed after
 * `timeoutSeconds`), an address-space limit (`memoryMb`) and the socket module's connect/lookup functions replaced by
 * ones that raise. Where the machine cannot isolate, the tool refuses to start (naming the options).
 */
import { spawnSync } from 'node:child_process';
import { ConfigError } from '@cookbook/core';
import type { Env, ResetResult, StepResult } from '../core/env.js';
import { defaultSandboxMaker, runSandboxedPython, type SandboxMaker } from '../core/sandboxed-python.js';
import { EnvWrapper } from './env-wrapper.js';

/** What a tool returns for one call. */
export interface ToolResult {
  observation: string;
  /** The response cut after the tool call (what the observation wrappers record as the action). */
  parsedAction: string;
  error: boolean;
}

/** A tool the wrapper offers. */
export interface Tool {
  readonly name: string;
  /** Text appended to the reset observation. */
  instructionString(): string;
  /** The tool call in `action`, or undefined when there is none. */
  parse(action: string): { code: string; parsedAction: string } | undefined;
  execute(call: { code: string; parsedAction: string }): Promise<ToolResult>;
}

/** Options of {@link PythonCodeTool}. */
export interface PythonCodeToolOptions {
  /** Wall-clock limit per run. Default 5 (GEM). */
  timeoutSeconds?: number;
  /** Address-space limit of the subprocess in MB. Default 512. */
  memoryMb?: number;
  /** Keep only the last line of stderr (GEM `…_last_line_error`). Default false. */
  lastLineError?: boolean;
  /** Characters of output kept. Default 4000. */
  maxOutputChars?: number;
  /** The interpreter. Default `python3`. */
  python?: string;
  /** The sandbox each run gets. Default: the local bubblewrap sandbox (refused where it cannot isolate). */
  makeSandbox?: SandboxMaker;
}

const PRELUDE = `
import os, resource, socket, sys
_limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (_limit, _limit))
def _no_network(*args, **kwargs):
    raise OSError("network access is disabled in the python tool")
socket.socket.connect = _no_network
socket.socket.connect_ex = _no_network
socket.create_connection = _no_network
socket.getaddrinfo = _no_network
_src = sys.stdin.read()
sys.stdin = open(os.devnull)
del os, resource, socket, _limit, _no_network
exec(compile(_src, "<python_tool>", "exec"), {"__name__": "__main__"})
`;

const checked = new Map<string, boolean>();

/**
 * Throws a {@link ConfigError} when `python` cannot be started (checked once per interpreter name).
 */
export function assertPythonAvailable(python = 'python3'): void {
  let ok = checked.get(python);
  if (ok === undefined) {
    const r = spawnSync(python, ['--version'], { stdio: 'ignore', timeout: 10_000 });
    ok = r.error === undefined && r.status === 0;
    checked.set(python, ok);
  }
  if (!ok) {
    throw new ConfigError(
      `the python_tool wrapper runs code with "${python}", which is not installed or not on PATH; install Python 3 or remove python_tool from env_wrappers`,
      { key: 'env_wrappers' },
    );
  }
}

const BLOCK = /<python>([\s\S]*?)<\/python>|```python\n?([\s\S]*?)```/g;

/** Runs Python code blocks of a response. */
export class PythonCodeTool implements Tool {
  readonly name = 'python';
  private readonly timeoutMs: number;
  private readonly memoryBytes: number;
  private readonly lastLineError: boolean;
  private readonly maxOutputChars: number;
  private readonly python: string;
  private readonly makeSandbox: SandboxMaker;

  constructor(options: PythonCodeToolOptions = {}) {
    this.timeoutMs = (options.timeoutSeconds ?? 5) * 1000;
    this.memoryBytes = (options.memoryMb ?? 512) * 1024 * 1024;
    this.lastLineError = options.lastLineError ?? false;
    this.maxOutputChars = options.maxOutputChars ?? 4000;
    this.python = options.python ?? 'python3';
    assertPythonAvailable(this.python);
    this.makeSandbox = options.makeSandbox ?? defaultSandboxMaker(this.python);
  }

  instructionString(): string {
    return (
      'You can run Python code: write it inside <python></python> tags (or a ```python code block) and its output ' +
      'will be shown to you. Put your final answer within \\boxed{}.'
    );
  }

  parse(action: string): { code: string; parsedAction: string } | undefined {
    let best: RegExpExecArray | undefined;
    for (const m of action.matchAll(BLOCK)) {
      const end = m.index + m[0].length;
      if (best === undefined || end < best.index + best[0].length) best = m as RegExpExecArray;
    }
    if (best === undefined) return undefined;
    return { code: best[1] ?? best[2] ?? '', parsedAction: action.slice(0, best.index + best[0].length) };
  }

  async execute(call: { code: string; parsedAction: string }): Promise<ToolResult> {
    const { stdout, stderr, error } = await this.run(call.code);
    let err = stderr;
    if (this.lastLineError && err.trim() !== '') err = err.trim().split('\n').at(-1) ?? '';
    let out = stdout + (err.trim() !== '' ? `\n${err}` : '');
    out = out.replace(/^[ \n]+/, '');
    if (out.length > this.maxOutputChars) out = `${out.slice(0, this.maxOutputChars)}\n[output truncated]`;
    return { observation: `Code execution result: ${out}\n`, parsedAction: call.parsedAction, error };
  }

  /** Runs `code`; resolves with its output and whether it failed (non-zero exit, limit hit). */
  async run(code: string): Promise<{ stdout: string; stderr: string; error: boolean }> {
    const r = await runSandboxedPython({
      python: this.python,
      prelude: PRELUDE,
      args: [String(this.memoryBytes)],
      stdin: code,
      timeoutMs: this.timeoutMs,
      maxOutputBytes: this.maxOutputChars * 4,
      makeSandbox: this.makeSandbox,
    });
    let stderr = r.stderr;
    if (r.timedOut) stderr += `TimeoutError: execution exceeded ${this.timeoutMs / 1000} s`;
    return { stdout: r.stdout, stderr, error: !r.ok };
  }
}

/** Options of {@link ToolEnvWrapper}. */
export interface ToolEnvWrapperOptions {
  tools: readonly Tool[];
  /** Reward of every tool call. GEM python_tool: 0.05. */
  toolReward?: number;
  /** Extra reward of a call that ran without error. GEM python_tool: 0.25. */
  toolSuccessReward?: number;
  /** When set, the reward of a call that failed (instead of toolReward). */
  toolExecuteErrorReward?: number;
  /** Tool calls per episode. Default 5. */
  maxToolUses?: number;
}

const MAX_USE_NOTE = '\n\nReached the maximum number of tool use. Please output final answer directly.';

/** Offers tools to the policy in front of an env (GEM `ToolEnvWrapper`). */
export class ToolEnvWrapper extends EnvWrapper {
  private readonly options: Required<Omit<ToolEnvWrapperOptions, 'toolExecuteErrorReward'>> &
    Pick<ToolEnvWrapperOptions, 'toolExecuteErrorReward'>;
  private toolUseCounter = 0;
  private toolSuccessCounter = 0;

  constructor(env: Env, options: ToolEnvWrapperOptions) {
    super(env);
    this.options = { toolReward: 0, toolSuccessReward: 0, maxToolUses: 5, ...options };
  }

  private counters() {
    return { tool_use_counter: this.toolUseCounter, tool_success_counter: this.toolSuccessCounter };
  }

  override async reset(seed?: number): Promise<ResetResult> {
    const r = await this.env.reset(seed);
    const prev = {
      prev_ep_tool_use_counter: this.toolUseCounter,
      prev_ep_tool_success_counter: this.toolSuccessCounter,
    };
    this.toolUseCounter = 0;
    this.toolSuccessCounter = 0;
    const instructions = this.options.tools.map((t) => t.instructionString()).join('\n');
    const header = this.options.tools.length > 1 ? 'Available tools:\n' : '';
    return {
      observation: `${r.observation}\n${header}${instructions}`,
      info: { ...r.info, ...prev, ...this.counters(), use_tool: false },
    };
  }

  override async step(action: string): Promise<StepResult> {
    if (this.toolUseCounter < this.options.maxToolUses) {
      for (const tool of this.options.tools) {
        const call = tool.parse(action);
        if (call === undefined) continue;
        const result = await tool.execute(call);
        this.toolUseCounter++;
        let reward = this.options.toolReward;
        if (!result.error) {
          this.toolSuccessCounter++;
          reward += this.options.toolSuccessReward;
        } else if (this.options.toolExecuteErrorReward !== undefined) {
          reward = this.options.toolExecuteErrorReward;
        }
        const observation =
          this.toolUseCounter >= this.options.maxToolUses ? result.observation + MAX_USE_NOTE : result.observation;
        return {
          observation,
          reward,
          terminated: false,
          truncated: false,
          // `tool_input` and `tool_output` are ours (GEM's info has neither): the rollout log writes the call and its
          // result as structured turns from them.
          info: {
            parsed_action: result.parsedAction,
            tool_type: tool.name,
            tool_input: call.code,
            tool_output: result.observation,
            use_tool: true,
            ...this.counters(),
          },
        };
      }
    }
    const r = await this.env.step(action);
    return { ...r, info: { ...r.info, use_tool: false, ...this.counters() } };
  }
}
