/**
 * Parsing of `<think>…</think>` and `<tool_call>…</tool_call>` blocks in sampled text (upstream
 * `parse_content_blocks` / `detect_unterminated_tool_block`).
 */
import type { TextPart, ThinkingPart, ToolCall, UnparsedToolCall } from '@cookbook/core';
import { countOccurrences, pythonJsonDumps } from './internal/content-utils.js';

/** Text and thinking parts, tool calls and unparsable tool calls found in a response. */
export interface ContentBlocks {
  /** Text and thinking in order; text outside blocks is kept verbatim, empty strings and empty thinks dropped. */
  parts: (TextPart | ThinkingPart)[];
  toolCalls: ToolCall[];
  unparsedToolCalls: UnparsedToolCall[];
}

const BLOCK_RE = /<think>([\s\S]*?)<\/think>|<tool_call>([\s\S]*?)<\/tool_call>/g;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Parse a `<tool_call>` payload `{"name": …, "arguments": {…}, "id"?: …}`. Arguments are re-serialised with
 * Python `json.dumps` spacing, the form the Hugging Face templates print.
 */
export function parseToolCallPayload(payload: string, rawText: string): ToolCall | UnparsedToolCall {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload.trim());
  } catch (e) {
    return { raw_text: rawText, error: `Invalid JSON: ${(e as Error).message}` };
  }
  if (!isPlainObject(parsed)) return { raw_text: rawText, error: 'Tool call payload is not a JSON object' };
  if (typeof parsed.name !== 'string' || parsed.name === '') {
    return { raw_text: rawText, error: "Missing or invalid 'name' field" };
  }
  if (!isPlainObject(parsed.arguments)) return { raw_text: rawText, error: "Missing or invalid 'arguments' field" };
  if (parsed.id !== undefined && typeof parsed.id !== 'string') {
    return { raw_text: rawText, error: "Invalid 'id' field" };
  }
  const call: ToolCall = {
    type: 'function',
    function: { name: parsed.name, arguments: pythonJsonDumps(parsed.arguments) },
  };
  if (typeof parsed.id === 'string') call.id = parsed.id;
  return call;
}

/**
 * Split `text` on `<think>` and `<tool_call>` blocks. Returns null when the text has no such block.
 */
export function parseContentBlocks(text: string): ContentBlocks | null {
  const out: ContentBlocks = { parts: [], toolCalls: [], unparsedToolCalls: [] };
  let found = false;
  let last = 0;
  for (const m of text.matchAll(BLOCK_RE)) {
    found = true;
    const before = text.slice(last, m.index);
    if (before !== '') out.parts.push({ type: 'text', text: before });
    if (m[1] !== undefined) {
      if (m[1] !== '') out.parts.push({ type: 'thinking', thinking: m[1] });
    } else {
      const call = parseToolCallPayload(m[2] ?? '', m[0]);
      if ('function' in call) out.toolCalls.push(call);
      else out.unparsedToolCalls.push(call);
    }
    last = m.index + m[0].length;
  }
  if (!found) return null;
  const rest = text.slice(last);
  if (rest !== '') out.parts.push({ type: 'text', text: rest });
  return out;
}

/**
 * Flags a response with more `open` tags than `close` tags (a tool block cut off by the token limit).
 * Returns the unparsed call (raw text from the last unmatched open tag) or null.
 */
export function detectUnterminatedToolBlock(
  text: string,
  open = '<tool_call>',
  close = '</tool_call>',
): UnparsedToolCall | null {
  const opens = countOccurrences(text, open);
  const closes = countOccurrences(text, close);
  if (opens <= closes) return null;
  const at = text.lastIndexOf(open);
  return {
    raw_text: text.slice(at),
    error: `unterminated tool block: ${opens} ${open} but ${closes} ${close}`,
  };
}
