/**
 * Typed tools (upstream `tool_use/tools.py`, `tool_use/types.py`): a tool is a name, a description, a zod schema of
 * its arguments and an async `run`. The JSON-schema tool spec that renderers declare is derived from the zod schema
 * in one place ({@link toolSpec}, zod 4's built-in `z.toJSONSchema`), and the same schema validates the model's calls
 * (see `executeToolCall`), so the declaration and the validation cannot drift apart.
 */
import { ConfigError, type ToolSpec } from '@cookbook/core';
import { z } from 'zod';

/** What a tool's `run` may return: its text, or the text with a reward, metrics or a request to end the episode. */
export type ToolOutput =
  | string
  | {
      /** The tool message's text (capped at the tool's `maxOutputChars`). */
      content: string;
      /** A per-call reward the agent env may add to the turn's reward. */
      reward?: number;
      /** Scalar metrics of this call (summed over the calls of an episode by the agent env). */
      metrics?: Record<string, number>;
      /** End the episode after this turn (a "submit" tool). */
      stop?: boolean;
    };

/** What `run` gets besides its arguments. */
export interface ToolRunContext {
  /** Aborted when the call times out: a tool doing long work should stop when it fires. */
  signal: AbortSignal;
}

/** A tool with a zod-typed argument object. */
export interface Tool<P extends z.ZodType<Record<string, unknown>> = z.ZodType<Record<string, unknown>>> {
  readonly name: string;
  readonly description: string;
  /** The arguments' schema (a zod object). */
  readonly parameters: P;
  /** Seconds a call may take before it is cut (the model then sees a timeout error). Default: the executor's. */
  readonly timeoutSeconds?: number;
  /** Most characters of output the model sees; the rest is replaced by a truncation note. Default: the executor's. */
  readonly maxOutputChars?: number;
  run(args: z.output<P>, context: ToolRunContext): Promise<ToolOutput> | ToolOutput;
}

/** The settings of {@link defineTool}. */
export interface ToolDefinition<P extends z.ZodType<Record<string, unknown>>> {
  name: string;
  description: string;
  parameters: P;
  timeoutSeconds?: number;
  maxOutputChars?: number;
  run(args: z.output<P>, context: ToolRunContext): Promise<ToolOutput> | ToolOutput;
}

/** Tool names the chat formats accept: a function identifier (letters, digits, `_`, `-`, `.`), at most 64 chars. */
const TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/**
 * Define a tool. Checks the name (a function identifier), that the parameters are a zod object (a tool call's
 * arguments are a JSON object in every format) and that the limits are positive.
 *
 * ```ts
 * const add = defineTool({
 *   name: 'add',
 *   description: 'Add two integers',
 *   parameters: z.object({ a: z.number().int(), b: z.number().int() }),
 *   run: ({ a, b }) => String(a + b),
 * });
 * ```
 */
export function defineTool<P extends z.ZodType<Record<string, unknown>>>(definition: ToolDefinition<P>): Tool<P> {
  if (!TOOL_NAME.test(definition.name)) {
    throw new ConfigError(
      `tool name "${definition.name}" is not a function identifier (letters, digits, _ . -; at most 64 characters)`,
      { key: 'name' },
    );
  }
  if (!(definition.parameters instanceof z.ZodObject)) {
    throw new ConfigError(`tool "${definition.name}": parameters must be a zod object (z.object({...}))`, {
      key: 'parameters',
    });
  }
  for (const key of ['timeoutSeconds', 'maxOutputChars'] as const) {
    const v = definition[key];
    if (v !== undefined && !(Number.isFinite(v) && v > 0)) {
      throw new ConfigError(`tool "${definition.name}": ${key} must be a positive number, got ${v}`, { key });
    }
  }
  return { ...definition };
}

/** Drop the ±2^53 bounds zod writes for `.int()`: they say nothing to a model and cost prompt tokens. */
function dropSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropSafeIntegerBounds);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'minimum' && v === Number.MIN_SAFE_INTEGER) continue;
    if (k === 'maximum' && v === Number.MAX_SAFE_INTEGER) continue;
    out[k] = dropSafeIntegerBounds(v);
  }
  return out;
}

/**
 * The JSON-schema tool spec of a tool, as renderers declare it (`createConversationPrefixWithTools`). The schema is
 * zod's JSON Schema of the arguments' input type (`z.toJSONSchema`, `io: 'input'`: a field with a default is
 * optional), without the `$schema` key and without the ±2^53 bounds of `.int()` (chat templates print the schema into
 * the prompt, where both are noise).
 */
export function toolSpec(tool: Pick<Tool, 'name' | 'description' | 'parameters'>): ToolSpec {
  const schema = dropSafeIntegerBounds(z.toJSONSchema(tool.parameters, { io: 'input' })) as Record<string, unknown>;
  const { $schema: _draft, ...parameters } = schema;
  return { name: tool.name, description: tool.description, parameters };
}

/** The specs of several tools, in order. Throws on a duplicate name (a call could not say which one it means). */
export function toolSpecs(tools: readonly Pick<Tool, 'name' | 'description' | 'parameters'>[]): ToolSpec[] {
  const seen = new Set<string>();
  return tools.map((t) => {
    if (seen.has(t.name)) throw new ConfigError(`two tools are named "${t.name}"`, { key: 'tools' });
    seen.add(t.name);
    return toolSpec(t);
  });
}
