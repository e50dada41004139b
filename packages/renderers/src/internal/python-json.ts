/**
 * JSON read without losing what Python would keep: number literals stay as written (Python tells `1` from `1.0`,
 * and keeps integers past 2^53 exact), so a renderer can print a tool argument the way a Hugging Face template
 * run by Python prints it (`tojson`, `|string`).
 */
import { RendererError } from '@cookbook/core';

/** A parsed JSON value; numbers keep their literal. */
export type JsonNode =
  | { kind: 'object'; entries: [string, JsonNode][] }
  | { kind: 'array'; items: JsonNode[] }
  | { kind: 'string'; value: string }
  | { kind: 'number'; raw: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'null' };

const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE_RE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/** Parse strict JSON; throws a RendererError naming the offset of the first error. */
export function parseJsonNode(text: string, what = 'JSON'): JsonNode {
  let pos = 0;
  const fail = (msg: string): never => {
    throw new RendererError(`invalid ${what} at offset ${pos}: ${msg}`);
  };
  const ws = () => {
    while (pos < text.length && ' \t\n\r'.includes(text[pos]!)) pos++;
  };
  const value = (depth: number): JsonNode => {
    if (depth > 512) fail('nesting deeper than 512');
    ws();
    const c = text[pos];
    if (c === '{') {
      pos++;
      const entries: [string, JsonNode][] = [];
      ws();
      if (text[pos] === '}') {
        pos++;
        return { kind: 'object', entries };
      }
      for (;;) {
        ws();
        if (text[pos] !== '"') fail('expected a string key');
        const key = str();
        ws();
        if (text[pos] !== ':') fail("expected ':'");
        pos++;
        entries.push([key, value(depth + 1)]);
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === '}') {
          pos++;
          return { kind: 'object', entries };
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      pos++;
      const items: JsonNode[] = [];
      ws();
      if (text[pos] === ']') {
        pos++;
        return { kind: 'array', items };
      }
      for (;;) {
        items.push(value(depth + 1));
        ws();
        if (text[pos] === ',') {
          pos++;
          continue;
        }
        if (text[pos] === ']') {
          pos++;
          return { kind: 'array', items };
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return { kind: 'string', value: str() };
    for (const [lit, node] of [
      ['true', { kind: 'bool', value: true }],
      ['false', { kind: 'bool', value: false }],
      ['null', { kind: 'null' }],
    ] as const) {
      if (text.startsWith(lit, pos)) {
        pos += lit.length;
        return node;
      }
    }
    NUMBER_RE.lastIndex = pos;
    const m = NUMBER_RE.exec(text);
    if (m === null) fail(c === undefined ? 'unexpected end' : `unexpected ${JSON.stringify(c)}`);
    pos += m![0].length;
    return { kind: 'number', raw: m![0] };
  };
  const str = (): string => {
    const start = pos++;
    for (;;) {
      const c = text.charCodeAt(pos);
      if (Number.isNaN(c) || c < 0x20) fail('malformed string');
      if (c === 0x22) break;
      if (c === 0x5c) {
        ESCAPE_RE.lastIndex = pos;
        const m = ESCAPE_RE.exec(text);
        if (m === null) fail('malformed escape');
        pos += m![0].length;
      } else pos++;
    }
    pos++;
    return JSON.parse(text.slice(start, pos)) as string;
  };
  const out = value(0);
  ws();
  if (pos !== text.length) fail('trailing characters');
  return out;
}

/** Whether a number literal is a Python float (it has a fraction or an exponent). */
function isFloatLiteral(raw: string): boolean {
  return /[.eE]/.test(raw);
}

/** Python's `repr(float(x))`: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant = '', expText = '0'] = x.toExponential().split('e');
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  let body: string;
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    body = `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  } else if (exp < 0) {
    body = `0.${'0'.repeat(-exp - 1)}${digits}`;
  } else {
    const intPart = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    const frac = digits.slice(exp + 1);
    body = `${intPart}.${frac === '' ? '0' : frac}`;
  }
  return neg ? `-${body}` : body;
}

function pythonNumber(raw: string): string {
  if (isFloatLiteral(raw)) return pythonFloatRepr(Number(raw));
  return BigInt(raw).toString();
}

/** A JSON string literal as Python's `json.dumps(s, ensure_ascii=False)` writes it. */
function pythonJsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (c < 0x20) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Python's `json.dumps(value, ensure_ascii=False)` (the `tojson` of Hugging Face templates). */
export function pythonToJson(node: JsonNode): string {
  switch (node.kind) {
    case 'object':
      return `{${node.entries.map(([k, v]) => `${pythonJsonString(k)}: ${pythonToJson(v)}`).join(', ')}}`;
    case 'array':
      return `[${node.items.map(pythonToJson).join(', ')}]`;
    case 'string':
      return pythonJsonString(node.value);
    case 'number':
      return pythonNumber(node.raw);
    case 'bool':
      return node.value ? 'true' : 'false';
    case 'null':
      return 'null';
  }
}

/** Python's `str(value)` for a scalar (`True`, `None`, `1.0`); containers are not scalars (use {@link pythonToJson}). */
export function pythonScalarStr(node: JsonNode): string {
  switch (node.kind) {
    case 'string':
      return node.value;
    case 'number':
      return pythonNumber(node.raw);
    case 'bool':
      return node.value ? 'True' : 'False';
    case 'null':
      return 'None';
    default:
      throw new RendererError(`pythonScalarStr: a ${node.kind} is not a scalar`);
  }
}

/** Python's `json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))`: compact, keys sorted. */
export function canonicalJson(node: JsonNode): string {
  switch (node.kind) {
    case 'object': {
      const entries = [...node.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return `{${entries.map(([k, v]) => `${pythonJsonString(k)}:${canonicalJson(v)}`).join(',')}}`;
    }
    case 'array':
      return `[${node.items.map(canonicalJson).join(',')}]`;
    case 'string':
      return pythonJsonString(node.value);
    case 'number':
      return pythonNumber(node.raw);
    case 'bool':
      return node.value ? 'true' : 'false';
    case 'null':
      return 'null';
  }
}

/** A JSON node from a plain JS value (numbers written by JavaScript). */
export function jsonNodeOf(value: unknown): JsonNode {
  if (value === null || value === undefined) return { kind: 'null' };
  if (typeof value === 'string') return { kind: 'string', value };
  if (typeof value === 'boolean') return { kind: 'bool', value };
  if (typeof value === 'number') return { kind: 'number', raw: JSON.stringify(value) };
  if (Array.isArray(value)) return { kind: 'array', items: value.map(jsonNodeOf) };
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, jsonNodeOf(v)] as [string, JsonNode]);
    return { kind: 'object', entries };
  }
  throw new RendererError(`cannot write a ${typeof value} as JSON`);
}
