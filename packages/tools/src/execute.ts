/**
 * Running the model's tool calls (upstream `tool_use/tools.py` `handle_tool_call`). Every call becomes exactly one
 * tool message: the tool's output, or an error the model can read and act on — unknown tool, arguments that are not
 * JSON, arguments that break the tool's schema, a call that could not be parsed at all, a tool that threw, a tool that
 * ran past its timeout. Nothing a model writes makes the caller throw.
 */
import type { Message, ToolCall, UnparsedToolCall } from '@cookbook/core';
import { ConfigError } from '@cookbook/core';
import type { z } from 'zod';
import type { Tool, ToolOutput } from './define-tool.js';

/** Defaults of {@link ExecuteOptions}. */
export const DEFAULT_TOOL_TIMEOUT_SECONDS = 30;
export const DEFAULT_MAX_TOOL_OUTPUT_CHARS = 8192;

/** Options of {@link executeToolCall}. */
export interface ExecuteOptions {
  /** Seconds a call may run when its tool sets no `timeoutSeconds`. Default 30. */
  timeoutSeconds?: number;
  /** Output cap when the tool sets no `maxOutputChars`. Default 8192 characters. */
  maxOutputChars?: number;
}

/** Why a call failed; undefined when it ran. */
export type ToolErrorKind = 'unknown_tool' | 'invalid_json' | 'invalid_arguments' | 'unparsed' | 'threw' | 'timeout';

/** The outcome of one call. */
export interface ToolCallResult {
  /** The tool message to append to the conversation (role `tool`). */
  message: Message;
  /** The failure, when the call did not produce the tool's output. */
  error?: ToolErrorKind;
  /** Whether the output was cut at the cap. */
  truncated: boolean;
  /** The tool's per-call reward (0 when it gave none or failed). */
  reward: number;
  /** The tool's metrics for this call. */
  metrics: Record<string, number>;
  /** The tool asked to end the episode. */
  stop: boolean;
}

/** A tool registry: name → tool. Throws on a duplicate name. */
export function toolMap(tools: readonly Tool[]): Map<string, Tool> {
  const map = new Map<string, Tool>();
  for (const t of tools) {
    if (map.has(t.name)) throw new ConfigError(`two tools are named "${t.name}"`, { key: 'tools' });
    map.set(t.name, t);
  }
  return map;
}

/** Cap `text` at `max` characters, with a note saying how much was cut. */
export function capOutput(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return {
    text: `${text.slice(0, max)}\n[output truncated: ${max} of ${text.length} characters shown]`,
    truncated: true,
  };
}

function toolMessage(content: string, call: { id?: string | undefined; name: string }): Message {
  const m: Message = { role: 'tool', content, name: call.name };
  if (call.id !== undefined) m.tool_call_id = call.id;
  return m;
}

function failure(kind: ToolErrorKind, text: string, call: { id?: string | undefined; name: string }): ToolCallResult {
  return {
    message: toolMessage(`Error: ${text}`, call),
    error: kind,
    truncated: false,
    reward: 0,
    metrics: {},
    stop: false,
  };
}

/** One line per issue: `a.b: expected number, received string`. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length === 0 ? '(arguments)' : i.path.map(String).join('.')}: ${i.message}`)
    .join('; ');
}

class ToolTimeout {
  constructor(readonly seconds: number) {}
}

/** Race `work` against a timer; on timeout abort `controller` and resolve to a ToolTimeout marker. */
function withTimeout<T>(work: Promise<T>, seconds: number, controller: AbortController): Promise<T | ToolTimeout> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<ToolTimeout>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new ToolTimeout(seconds));
      resolve(new ToolTimeout(seconds));
    }, seconds * 1000);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Run one parsed tool call: look the tool up, parse its arguments as JSON, validate them with the tool's schema, run
 * it under its timeout and cap its output. Always resolves.
 */
export async function executeToolCall(
  tools: ReadonlyMap<string, Tool>,
  call: ToolCall,
  options: ExecuteOptions = {},
): Promise<ToolCallResult> {
  const name = call.function.name;
  const ref = { id: call.id, name };
  const tool = tools.get(name);
  if (tool === undefined) {
    const known = [...tools.keys()].join(', ') || '(none)';
    return failure('unknown_tool', `unknown tool "${name}". Available tools: ${known}.`, ref);
  }
  let raw: unknown;
  try {
    raw = call.function.arguments.trim() === '' ? {} : JSON.parse(call.function.arguments);
  } catch (e) {
    return failure('invalid_json', `the arguments of ${name} are not valid JSON (${(e as Error).message}).`, ref);
  }
  const parsed = tool.parameters.safeParse(raw);
  if (!parsed.success) {
    return failure('invalid_arguments', `invalid arguments for ${name}: ${describeIssues(parsed.error)}.`, ref);
  }
  const seconds = tool.timeoutSeconds ?? options.timeoutSeconds ?? DEFAULT_TOOL_TIMEOUT_SECONDS;
  const cap = tool.maxOutputChars ?? options.maxOutputChars ?? DEFAULT_MAX_TOOL_OUTPUT_CHARS;
  const controller = new AbortController();
  let output: ToolOutput | ToolTimeout;
  try {
    // `run` may throw synchronously: wrap it so that also becomes a tool error.
    const work = Promise.resolve().then(() => tool.run(parsed.data, { signal: controller.signal }));
    output = await withTimeout(work, seconds, controller);
  } catch (e) {
    return failure('threw', `${name} failed: ${e instanceof Error ? e.message : String(e)}`, ref);
  }
  if (output instanceof ToolTimeout) {
    return failure('timeout', `${name} did not finish within ${output.seconds} seconds.`, ref);
  }
  const o = typeof output === 'string' ? { content: output } : output;
  const capped = capOutput(String(o.content), cap);
  return {
    message: toolMessage(capped.text, ref),
    truncated: capped.truncated,
    reward: o.reward ?? 0,
    metrics: o.metrics ?? {},
    stop: o.stop === true,
  };
}

/** A call the renderer could not parse becomes an error message the model sees (no tool runs). */
export function unparsedToolCallResult(call: UnparsedToolCall): ToolCallResult {
  const snippet = call.raw_text.length > 200 ? `${call.raw_text.slice(0, 200)}…` : call.raw_text;
  return failure('unparsed', `could not parse the tool call ${JSON.stringify(snippet)}: ${call.error}`, {
    name: 'unparsed_tool_call',
  });
}

/**
 * Run every call of one assistant message, concurrently (`parallel`, the default) or in order, and turn its unparsed
 * calls into error messages. Results come back in the message's order (parsed calls first, then unparsed ones).
 */
export async function executeToolCalls(
  tools: ReadonlyMap<string, Tool>,
  message: Pick<Message, 'tool_calls' | 'unparsed_tool_calls'>,
  options: ExecuteOptions & { parallel?: boolean } = {},
): Promise<ToolCallResult[]> {
  const calls = message.tool_calls ?? [];
  let results: ToolCallResult[];
  if (options.parallel === false) {
    results = [];
    for (const c of calls) results.push(await executeToolCall(tools, c, options));
  } else {
    results = await Promise.all(calls.map((c) => executeToolCall(tools, c, options)));
  }
  for (const u of message.unparsed_tool_calls ?? []) results.push(unparsedToolCallResult(u));
  return results;
}
