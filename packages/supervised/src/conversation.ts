/**
 * Validation of chat conversations read from files and datasets (upstream `FromConversationFileBuilder` checks only
 * that `messages` exists; here every message is checked up front so a bad line fails before any training starts).
 */
import { DataError, type Message, parseJsonLine } from '@cookbook/core';
import { z } from 'zod';

/** Roles a conversation file may use. */
export const KNOWN_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'ipython'] as const;

const TextPartSchema = z.object({ type: z.literal('text'), text: z.string() });
const ThinkingPartSchema = z.object({ type: z.literal('thinking'), thinking: z.string() });
const ImagePartSchema = z.object({ type: z.literal('image'), image: z.string() });
const ContentPartSchema = z.discriminatedUnion('type', [TextPartSchema, ThinkingPartSchema, ImagePartSchema]);

const ToolCallSchema = z.object({
  type: z.literal('function').default('function'),
  id: z.string().optional(),
  function: z.object({ name: z.string(), arguments: z.string() }),
});

/** Schema of one message in a conversation file. Unknown extra keys are dropped. */
export const MessageSchema = z.object({
  role: z.enum(KNOWN_ROLES, { error: () => `unknown role; expected one of ${KNOWN_ROLES.join(', ')}` }),
  content: z.union([z.string(), z.array(ContentPartSchema)], {
    error: () => 'expected a string or a list of {"type": "text"|"thinking"|"image", ...} parts',
  }),
  tool_calls: z.array(ToolCallSchema).optional(),
  trainable: z.boolean().optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});

/** JSON for error messages: never throws (bigint, cycles), cut to `max` characters. */
function shortJson(value: unknown, max = 60): string {
  try {
    return (
      JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value)
    ).slice(0, max);
  } catch {
    return String(value).slice(0, max);
  }
}

function issuePath(path: readonly PropertyKey[], prefix: string): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : `${acc}.${String(p)}`), prefix);
}

/** Where a record came from, for error messages. */
export interface RecordLocation {
  file?: string;
  line?: number;
}

/**
 * Checks that `value` is a list of chat messages and returns it typed.
 * @throws DataError naming the file, line and field (e.g. `messages[2].role`) and what was expected.
 */
export function parseMessages(value: unknown, where: RecordLocation = {}, field = 'messages'): Message[] {
  if (!Array.isArray(value)) {
    throw new DataError(
      `expected a list of messages like [{"role": "user", "content": "..."}], got ${value === undefined ? 'nothing' : shortJson(value)}`,
      { ...where, field },
    );
  }
  if (value.length === 0) throw new DataError('the conversation has no messages', { ...where, field });
  const out: Message[] = [];
  for (const [i, raw] of value.entries()) {
    const result = MessageSchema.safeParse(raw);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      let given: unknown = raw;
      for (const p of issue.path) given = (given as Record<PropertyKey, unknown> | undefined)?.[p];
      const shown = given === undefined ? 'missing' : shortJson(given);
      throw new DataError(`${issue.message} (got ${shown})`, {
        ...where,
        field: issuePath(issue.path, `${field}[${i}]`),
      });
    }
    const m = result.data;
    const msg: Message = { role: m.role, content: m.content };
    if (m.tool_calls !== undefined) msg.tool_calls = m.tool_calls;
    if (m.trainable !== undefined) msg.trainable = m.trainable;
    if (m.tool_call_id !== undefined) msg.tool_call_id = m.tool_call_id;
    if (m.name !== undefined) msg.name = m.name;
    out.push(msg);
  }
  return out;
}

/**
 * Parses one JSONL line of a conversation file (`{"messages": [...]}`) into its messages.
 * @throws DataError naming the file and line for invalid JSON, a non-object, a missing `messages` or a bad message.
 */
export function parseConversationLine(line: string, where: RecordLocation = {}, messageField = 'messages'): Message[] {
  const record = parseJsonLine(line, where, `expected one {"${messageField}": [...]} object per line`);
  return conversationFromRecord(record, where, messageField);
}

/** The messages of one record (`{"messages": [...]}`, or `messageField` for other datasets). */
export function conversationFromRecord(
  record: unknown,
  where: RecordLocation = {},
  messageField = 'messages',
): Message[] {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new DataError(`expected a JSON object like {"${messageField}": [...]}`, where);
  }
  let messages = (record as Record<string, unknown>)[messageField];
  if (messages === undefined) {
    throw new DataError(
      `missing "${messageField}"; each line must be {"${messageField}": [{"role": ..., "content": ...}]}`,
      {
        ...where,
        field: messageField,
      },
    );
  }
  // Parquet files sometimes hold the messages as a JSON string.
  if (typeof messages === 'string') {
    try {
      messages = JSON.parse(messages);
    } catch {
      // reported below as a non-list
    }
  }
  return parseMessages(messages, where, messageField);
}
