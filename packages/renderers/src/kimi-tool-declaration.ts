/**
 * Kimi K2.5 / K2.6 tool declarations (Moonshot's `tool_declaration_ts.py`, which the models' tokenizer runs inside
 * `apply_chat_template` and passes to the chat template as `tools_ts_str`): each function becomes a TypeScript type in
 * a `functions` namespace, its JSON-Schema parameters an object type (required fields first, then optional ones with
 * `?`, each group by name), descriptions and constraints `//` comments, `$defs` interfaces. A schema the format cannot
 * express makes the tokenizer fall back to the template's compact JSON, and so does {@link kimiToolDeclaration}.
 * Python's spelling of values is kept (`True`, `None`); a float that is a whole number prints as an integer
 * (JavaScript has no separate float type), where Python would print `1.0`.
 */
import type { ToolSpec } from '@cookbook/core';
import { pythonJsonDumps } from './internal/content-utils.js';

const INDENT = '  ';

/** A schema the TypeScript form cannot express (the tokenizer then falls back to JSON). */
class UnsupportedSchema extends Error {}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = { [k: string]: Json };

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Python's `str()` of a JSON value (constraints and enum members print this way). */
function pyStr(v: Json): string {
  if (v === null) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return `[${v.map((x) => (typeof x === 'string' ? `'${x}'` : pyStr(x))).join(', ')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `'${k}': ${typeof x === 'string' ? `'${x}'` : pyStr(x)}`)
    .join(', ')}}`;
}

function comment(text: string, indent = ''): string {
  return text
    .split('\n')
    .map((line) => (line ? `${indent}// ${line}` : ''))
    .join('\n');
}

/** `$defs` seen while parsing one function, in insertion order, and whether the schema refers to itself. */
class Registry {
  readonly defs = new Map<string, Json>();
  selfRef = false;

  resolve(ref: string): Json {
    if (ref === '#') {
      this.selfRef = true;
      return { $self_ref: true };
    }
    if (ref.startsWith('#/$defs/')) {
      const name = ref.split('/').pop() ?? '';
      const def = this.defs.get(name);
      if (def === undefined) throw new UnsupportedSchema(`reference not found: ${ref}`);
      return def;
    }
    throw new UnsupportedSchema(`unsupported reference: ${ref}`);
  }
}

interface TsType {
  description: string;
  constraints: [string, Json][];
  render(indent: string): string;
}

function base(schema: Schema, allowed: readonly string[] = []): Pick<TsType, 'description' | 'constraints'> {
  const description = typeof schema.description === 'string' ? schema.description : '';
  const constraints = Object.entries(schema).filter(([k]) => allowed.includes(k)) as [string, Json][];
  return { description, constraints };
}

function docstring(t: TsType, indent: string): string {
  const lines: string[] = [];
  if (t.description) lines.push(comment(t.description, indent));
  if (t.constraints.length > 0) {
    const sorted = [...t.constraints].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    lines.push(`${indent}// ${sorted.map(([k, v]) => `${k}: ${pyStr(v)}`).join(', ')}`);
  }
  return lines.map((l) => `${l}\n`).join('');
}

function scalar(type: string, schema: Schema = {}): TsType {
  const allowed =
    type === 'string'
      ? ['maxLength', 'minLength', 'pattern']
      : type === 'number' || type === 'integer'
        ? ['maximum', 'minimum']
        : [];
  return { ...base(schema, allowed), render: () => (type === 'integer' ? 'number' : type) };
}

interface Param {
  name: string;
  type: TsType;
  optional: boolean;
  default: Json | undefined;
}

function renderParam(p: Param, indent: string): string {
  let out = docstring(p.type, indent);
  if (p.default !== undefined && p.default !== null) {
    const repr =
      typeof p.default === 'number' || typeof p.default === 'boolean' ? pyStr(p.default) : pythonJsonDumps(p.default);
    out += `${indent}// Default: ${repr}\n`;
  }
  return `${out}${indent}${p.name}${p.optional ? '?' : ''}: ${p.type.render(indent)}`;
}

function object(schema: Schema, registry: Registry): TsType & { params: Param[] } {
  const params: Param[] = [];
  let extra: TsType | boolean | undefined;
  if (isSchema(schema.$defs)) for (const [k, v] of Object.entries(schema.$defs)) registry.defs.set(k, v);
  const ap = schema.additionalProperties;
  if (ap !== undefined && ap !== null) {
    if (typeof ap === 'boolean') extra = ap;
    else if (isSchema(ap)) extra = parse(ap, registry);
    else throw new UnsupportedSchema(`unknown additionalProperties: ${JSON.stringify(ap)}`);
  }
  if (isSchema(schema.properties)) {
    const required = new Set(Array.isArray(schema.required) ? schema.required : []);
    for (const [name, prop] of Object.entries(schema.properties)) {
      params.push({
        name,
        type: parse(prop, registry),
        optional: !required.has(name),
        default: isSchema(prop) ? prop.default : undefined,
      });
    }
  }
  const byName = (a: Param, b: Param) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return {
    ...base(schema),
    params,
    render(indent) {
      const ordered = [
        ...params.filter((p) => !p.optional).sort(byName),
        ...params.filter((p) => p.optional).sort(byName),
      ];
      const fields = ordered.map((p) => renderParam(p, indent + INDENT));
      if (extra !== undefined) {
        const t = extra === true ? 'any' : extra === false ? 'never' : extra.render(indent + INDENT);
        fields.push(`${indent + INDENT}[k: string]: ${t}`);
      }
      return fields.length === 0 ? '{}' : `{\n${fields.join(',\n')}\n${indent}}`;
    },
  };
}

function checkEnum(schema: Schema, values: Json[]): void {
  let type = schema.type;
  if (type === undefined) return;
  if (Array.isArray(type)) {
    if (type.length === 1) type = type[0] as Json;
    else if (type.length === 2 && type.includes('null')) type = (type[0] === 'null' ? type[1] : type[0]) as Json;
    else throw new UnsupportedSchema(`enum type ${JSON.stringify(type)} is not supported`);
  }
  for (const v of values) {
    if (v === null) continue;
    const ok =
      type === 'string'
        ? typeof v === 'string'
        : type === 'number'
          ? typeof v === 'number'
          : type === 'integer'
            ? Number.isInteger(v)
            : type === 'boolean'
              ? typeof v === 'boolean'
              : true;
    if (!ok) throw new UnsupportedSchema(`enum value ${JSON.stringify(v)} is not a ${String(type)}`);
  }
}

const UNION: Record<string, string> = {
  string: 'string',
  number: 'number',
  integer: 'number',
  boolean: 'boolean',
  null: 'null',
  object: '{}',
  array: 'Array<any>',
};

function parse(schema: Json, registry: Registry): TsType {
  if (typeof schema === 'boolean') return scalar(schema ? 'any' : 'null');
  if (!isSchema(schema)) throw new UnsupportedSchema(`invalid JSON Schema: ${JSON.stringify(schema)}`);
  if (typeof schema.$ref === 'string') {
    const ref = schema.$ref;
    const resolved = registry.resolve(ref);
    const name = isSchema(resolved) && resolved.$self_ref === true ? 'parameters' : (ref.split('/').pop() ?? '');
    return { ...base(schema), render: () => name };
  }
  if (Array.isArray(schema.anyOf)) {
    const types = schema.anyOf.map((s) => parse(s, registry));
    return { ...base(schema), render: (indent) => types.map((t) => t.render(indent)).join(' | ') };
  }
  if (Array.isArray(schema.enum)) {
    const values = schema.enum;
    checkEnum(schema, values);
    return {
      ...base(schema),
      render: () => values.map((e) => (typeof e === 'string' ? `"${e}"` : pyStr(e))).join(' | '),
    };
  }
  if (schema.type !== undefined) {
    const type = schema.type;
    if (Array.isArray(type)) {
      const names = type.map((t) => {
        const n = typeof t === 'string' ? UNION[t] : undefined;
        if (n === undefined) throw new UnsupportedSchema(`unknown type ${JSON.stringify(t)} in a type list`);
        return n;
      });
      return { ...base(schema), render: () => names.join(' | ') };
    }
    if (type === 'object') return object(schema, registry);
    if (type === 'array') {
      const items = schema.items;
      const item =
        isSchema(items) && Object.keys(items).length > 0
          ? parse(items, registry)
          : items === true
            ? parse(true, registry)
            : scalar('any');
      return {
        ...base(schema, ['minItems', 'maxItems']),
        render(indent) {
          const doc = docstring(item, indent + INDENT);
          if (doc === '') return `Array<${item.render(indent)}>`;
          return `Array<\n${doc}${indent}${INDENT}${item.render(indent + INDENT)}\n${indent}>`;
        },
      };
    }
    if (typeof type !== 'string') throw new UnsupportedSchema(`invalid type ${JSON.stringify(type)}`);
    return scalar(type, schema);
  }
  if (Object.keys(schema).length === 0) return scalar('any');
  throw new UnsupportedSchema(`invalid JSON Schema object: ${JSON.stringify(schema)}`);
}

function functionDeclaration(tool: ToolSpec): string {
  const registry = new Registry();
  const parameters = (isSchema(tool.parameters) ? tool.parameters : {}) as Schema;
  const parsed = object(parameters, registry);
  const interfaces: string[] = [];
  if (registry.selfRef) {
    const fields = parsed.params.map((p) => renderParam(p, INDENT)).join(',\n');
    interfaces.push(`interface parameters {${fields ? `\n${fields}\n` : ''}}`);
  }
  for (const [name, def] of [...registry.defs]) {
    const body = parse(def, registry).render('');
    const desc =
      isSchema(def) && typeof def.description === 'string' && def.description ? `${comment(def.description)}\n` : '';
    interfaces.push(`${desc}interface ${name} ${body}`);
  }
  const name = tool.name;
  const typeDef = registry.selfRef
    ? `type ${name} = (_: parameters) => any;`
    : `type ${name} = (_: ${parsed.render('')}) => any;`;
  return [interfaces.join('\n'), tool.description ? comment(tool.description) : '', typeDef].filter(Boolean).join('\n');
}

/**
 * The TypeScript-style declaration of `tools` (the template's `tools_ts_str`), or undefined when a schema cannot be
 * expressed that way (unknown `$ref`, an unrecognised schema object, an enum whose values contradict its type).
 */
export function kimiTypeScriptTools(tools: readonly ToolSpec[]): string | undefined {
  if (tools.length === 0) return '';
  try {
    return `# Tools\n\n## functions\nnamespace functions {\n${tools.map(functionDeclaration).join('\n')}\n}\n`;
  } catch (e) {
    if (e instanceof UnsupportedSchema) return undefined;
    throw e;
  }
}

/**
 * Compact JSON of the tools in the OpenAI form (`[{"type":"function","function":{…}}]`, no spaces, non-ASCII kept),
 * the template's `tools | tojson(separators=(',', ':'))`; `sortKeys` sorts every object's keys, as Kimi-K2's tokenizer
 * does before rendering.
 */
export function kimiJsonTools(tools: readonly ToolSpec[], sortKeys: boolean): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v === null || typeof v !== 'object') return v;
    const entries = Object.entries(v as Record<string, unknown>);
    if (sortKeys) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([k, x]) => [k, sort(x)]));
  };
  return JSON.stringify(sort(tools.map((t) => ({ type: 'function', function: t }))));
}

/** K2.5 / K2.6's declaration: the TypeScript form, or compact JSON when a schema cannot be written that way. */
export function kimiToolDeclaration(tools: readonly ToolSpec[]): string {
  return kimiTypeScriptTools(tools) ?? kimiJsonTools(tools, false);
}
