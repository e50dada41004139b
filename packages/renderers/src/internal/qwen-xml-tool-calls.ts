/**
 * Qwen3.5 / Qwen3.8 tool calls: `<tool_call>\n<function=NAME>\n<parameter=P>\nVALUE\n</parameter>\n</function>\n</tool_call>`
 * (the chat templates' XML form), written from a call's JSON arguments and parsed back from sampled text.
 */
import { RendererError, type ToolCall, type UnparsedToolCall } from '@cookbook/core';
import { type JsonNode, parseJsonNode, pythonScalarStr, pythonToJson } from './python-json.js';

/**
 * How a template prints an argument value: `python` — containers with `tojson`, scalars with Python's `str()`
 * (`True`, `None`: the Qwen3.5 template); `json` — strings as they are, everything else with `tojson` (`true`,
 * `null`: the Qwen3.6 and Qwen3.8 templates).
 */
export type XmlArgumentStyle = 'python' | 'json';

/** The `[name, printed value]` pairs of a call's arguments (a JSON object; `''` means no arguments). */
export function xmlToolCallParameters(call: ToolCall, style: XmlArgumentStyle): [string, string][] {
  const text = call.function.arguments;
  if (text.trim() === '') return [];
  let node: JsonNode;
  try {
    node = parseJsonNode(text, `arguments of the tool call "${call.function.name}"`);
  } catch (e) {
    throw new RendererError(`${(e as Error).message}; the Qwen3.5 XML tool format needs a JSON object`);
  }
  if (node.kind !== 'object') {
    throw new RendererError(
      `the arguments of the tool call "${call.function.name}" are a JSON ${node.kind}; the Qwen3.5 XML tool format ` +
        'needs a JSON object (one <parameter> per key)',
    );
  }
  return node.entries.map(([k, v]) => [k, printValue(v, style)]);
}

function printValue(v: JsonNode, style: XmlArgumentStyle): string {
  if (style === 'json') return v.kind === 'string' ? v.value : pythonToJson(v);
  return v.kind === 'object' || v.kind === 'array' ? pythonToJson(v) : pythonScalarStr(v);
}

const CALL_RE = /^\s*<tool_call>\s*<function=([^>\n]+)>\n?([\s\S]*?)\n?<\/function>\s*<\/tool_call>\s*$/;
const PARAM_RE = /<parameter=([^>\n]+)>\n?([\s\S]*?)\n?<\/parameter>/g;

/**
 * Parse one `<tool_call>…</tool_call>` block. A value that reads as JSON becomes that value, any other value a
 * string (as upstream); the arguments are written back as JSON with Python's spacing.
 */
export function parseXmlToolCall(raw: string): ToolCall | UnparsedToolCall {
  const m = CALL_RE.exec(raw);
  if (m === null)
    return { raw_text: raw, error: 'Malformed Qwen3.5 tool call: expected <function=NAME> … </function>' };
  const name = (m[1] ?? '').trim();
  if (name === '') return { raw_text: raw, error: 'Missing function name' };
  const body = m[2] ?? '';
  const entries: string[] = [];
  let pos = 0;
  for (const p of body.matchAll(PARAM_RE)) {
    if (body.slice(pos, p.index).trim() !== '') {
      return { raw_text: raw, error: 'Unexpected text between <parameter> blocks' };
    }
    const key = (p[1] ?? '').trim();
    if (key === '') return { raw_text: raw, error: 'Empty parameter name' };
    const text = p[2] ?? '';
    let value: string;
    try {
      value = pythonToJson(parseJsonNode(text));
    } catch {
      value = pythonToJson({ kind: 'string', value: text });
    }
    entries.push(`${pythonToJson({ kind: 'string', value: key })}: ${value}`);
    pos = p.index + p[0].length;
  }
  if (body.slice(pos).trim() !== '') return { raw_text: raw, error: 'Unexpected text after the last <parameter>' };
  return { type: 'function', function: { name, arguments: `{${entries.join(', ')}}` } };
}
