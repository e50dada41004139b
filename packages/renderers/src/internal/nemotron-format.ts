/**
 * Nemotron 3 text formats (the official chat template's tool declaration, XML tool calls and Python string rules),
 * shared by the Nemotron 3 renderers. Jinja's `| string`, `| trim` and `| tojson` are evaluated with Python's
 * semantics, as `transformers` renders the template.
 */
import { RendererError, type ToolCall, type ToolSpec, type UnparsedToolCall } from '@cookbook/core';
import { pythonJsonDumps } from './content-utils.js';

/** The characters Python's `str.strip()` removes (`str.isspace`): JS whitespace without U+FEFF, plus U+001C–U+001F, U+0085. */
const PY_SPACE_CODES = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003,
  0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000,
]);
const isPySpace = (ch: string): boolean => PY_SPACE_CODES.has(ch.charCodeAt(0));

/** Python's `str.rstrip()`. */
export function pyRstrip(s: string): string {
  let j = s.length;
  while (j > 0 && isPySpace(s[j - 1]!)) j--;
  return s.slice(0, j);
}

/** Python's `str.strip()` (Jinja's `| trim` under `transformers`). */
export function pyStrip(s: string): string {
  let i = 0;
  while (i < s.length && isPySpace(s[i]!)) i++;
  return pyRstrip(s.slice(i));
}

function pyRepr(value: unknown): string {
  if (typeof value === 'string') {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const body = value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r');
    return quote + (quote === "'" ? body.replace(/'/g, "\\'") : body) + quote;
  }
  return pyStr(value);
}

/** Python's `str(value)` for JSON values (Jinja's `| string` under `transformers`): `True`, `None`, `['a', 1]`. */
export function pyStr(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(', ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return `{${entries.map(([k, v]) => `${pyRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;
  }
  return String(value);
}

function isMapping(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The template's `render_extra_keys`: every key not handled, mappings and lists as JSON, scalars as `str()`. */
function extraKeys(obj: unknown, handled: readonly string[]): string {
  if (!isMapping(obj)) return '';
  let out = '';
  for (const [key, value] of Object.entries(obj)) {
    if (handled.includes(key)) continue;
    const shown = isMapping(value) || Array.isArray(value) ? pythonJsonDumps(value) : pyStr(value);
    out += `\n<${key}>${shown}</${key}>`;
  }
  return out;
}

/** One tool of the `<tools>` block, exactly as the official template writes it. */
export function formatNemotron3ToolDeclaration(tool: ToolSpec): string {
  const spec = tool as unknown as Record<string, unknown>;
  let out = `\n<function>\n<name>${tool.name}</name>`;
  if (spec.description !== undefined) out += `\n<description>${pyStrip(pyStr(spec.description))}</description>`;
  out += '\n<parameters>';
  const params = spec.parameters;
  if (isMapping(params) && isMapping(params.properties)) {
    for (const [name, fields] of Object.entries(params.properties)) {
      out += `\n<parameter>\n<name>${name}</name>`;
      if (isMapping(fields)) {
        if (fields.type !== undefined) out += `\n<type>${pyStr(fields.type)}</type>`;
        if (fields.description !== undefined) {
          out += `\n<description>${pyStrip(pyStr(fields.description))}</description>`;
        }
        if (fields.enum !== undefined) out += `\n<enum>${pythonJsonDumps(fields.enum)}</enum>`;
        out += extraKeys(fields, ['name', 'type', 'description', 'enum']);
      }
      out += '\n</parameter>';
    }
  }
  out += extraKeys(params, ['type', 'properties', 'required']);
  if (isMapping(params) && params.required !== undefined) {
    out += `\n<required>${pythonJsonDumps(params.required)}</required>`;
  }
  out += '\n</parameters>';
  out += extraKeys(spec, ['type', 'name', 'description', 'parameters']);
  return `${out}\n</function>`;
}

/** The fixed text that opens the tool section of the system message. */
export const NEMOTRON3_TOOLS_INTRO = '# Tools\n\nYou have access to the following functions:\n\n<tools>';

/** The fixed text that closes it (its `<tool_call>` tags are the format's control tokens). */
export const NEMOTRON3_TOOLS_OUTRO =
  '\n</tools>\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n' +
  '<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n' +
  '<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n' +
  '</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n- Function calls MUST follow the specified ' +
  'format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags\n' +
  '- Required parameters MUST be specified\n- You may provide optional reasoning for your function call in natural ' +
  'language BEFORE the function call, but NOT after\n- If there is no function call available, answer the question ' +
  'like normal with your current knowledge and do not tell the user about function calls\n</IMPORTANT>';

/**
 * The arguments of a tool call as the template iterates them (`arguments | items`): a JSON object. Each value is
 * written as the template does: objects and lists as JSON, everything else as Python's `str()`.
 */
export function toolCallArguments(call: ToolCall): [string, string][] {
  const raw = call.function.arguments;
  let parsed: unknown;
  try {
    parsed = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (e) {
    throw new RendererError(
      `tool call "${call.function.name}" has arguments that are not JSON (${(e as Error).message}): ` +
        `${JSON.stringify(raw.slice(0, 80))}; Nemotron 3 writes each argument as a <parameter> block`,
    );
  }
  if (!isMapping(parsed)) {
    throw new RendererError(
      `tool call "${call.function.name}" has arguments that are not a JSON object: ${JSON.stringify(raw.slice(0, 80))}`,
    );
  }
  return Object.entries(parsed).map(([k, v]) => [k, isMapping(v) || Array.isArray(v) ? pythonJsonDumps(v) : pyStr(v)]);
}

const FUNCTION_RE = /^\s*<tool_call>\s*<function=([^>\n]+)>([\s\S]*?)<\/function>\s*<\/tool_call>\s*$/;
const PARAM_RE = /<parameter=([^>\n]+)>([\s\S]*?)<\/parameter>/g;

/**
 * Parse one `<tool_call>…</tool_call>` block of the XML format (`<function=name>` with `<parameter=key>` blocks).
 * A value is the text between the newlines the template writes around it, read as JSON when it parses (numbers,
 * objects, lists), else kept as a string. Arguments are re-serialised with Python `json.dumps` spacing.
 */
export function parseNemotron3ToolCall(raw: string): ToolCall | UnparsedToolCall {
  const m = FUNCTION_RE.exec(raw);
  if (m === null) {
    return { raw_text: raw, error: 'malformed tool call: expected <tool_call><function=NAME>…</function></tool_call>' };
  }
  const name = m[1]!.trim();
  if (name === '') return { raw_text: raw, error: 'malformed tool call: empty function name' };
  const body = m[2]!;
  const args: Record<string, unknown> = {};
  let last = 0;
  for (const p of body.matchAll(PARAM_RE)) {
    if (body.slice(last, p.index).trim() !== '') {
      return { raw_text: raw, error: 'malformed tool call: text outside <parameter> blocks inside <function>' };
    }
    const key = p[1]!.trim();
    if (key === '') return { raw_text: raw, error: 'malformed tool call: empty parameter name' };
    let text = p[2]!;
    if (text.startsWith('\n')) text = text.slice(1);
    if (text.endsWith('\n')) text = text.slice(0, -1);
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch {
      // not JSON: the template wrote a string as is
    }
    args[key] = value;
    last = p.index + p[0].length;
  }
  if (body.slice(last).trim() !== '') {
    return { raw_text: raw, error: 'malformed tool call: text after the last <parameter> block inside <function>' };
  }
  return { type: 'function', function: { name, arguments: pythonJsonDumps(args) } };
}
