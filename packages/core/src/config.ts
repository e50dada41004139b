/**
 * key=value configuration parsing driven by zod schemas (the role `chz` plays upstream).
 * `parseConfig(schema, ['a=1', 'b.c=x', 'tags=a,b'])` coerces each value by the schema's field type,
 * rejects unknown keys with the closest valid key, and validates the whole object once.
 */
import type { z } from 'zod';
import { ConfigError } from './errors.js';
import { toSnakeCase } from './key-case.js';

/**
 * How config keys are spelled outside the code: `schema` = as the schema writes them; `snake_case` = the schema's
 * camelCase keys in snake_case (`learningRate` ⇄ `learning_rate`), the command line's and `config.json`'s spelling.
 * Keys inside a free-form map (a `z.record`) are never renamed.
 */
export type ConfigKeyStyle = 'schema' | 'snake_case';

/** Options shared by {@link configFields}, {@link configHelp}, {@link parseConfig} and the key converters. */
export interface ConfigKeyOptions {
  /** Default `schema`. */
  keyStyle?: ConfigKeyStyle;
}

function displayKey(key: string, style: ConfigKeyStyle | undefined): string {
  return style === 'snake_case' ? toSnakeCase(key) : key;
}

type AnySchema = z.ZodType;

interface SchemaDef {
  type: string;
  innerType?: AnySchema;
  in?: AnySchema;
  shape?: Record<string, AnySchema>;
  element?: AnySchema;
  options?: AnySchema[];
  entries?: Record<string, string | number>;
  values?: unknown[];
  defaultValue?: unknown;
  valueType?: AnySchema;
}

function defOf(schema: AnySchema): SchemaDef {
  return (schema as unknown as { def: SchemaDef }).def;
}

/** Strip default/optional/nullable/readonly/pipe wrappers. */
function unwrap(schema: AnySchema): {
  core: AnySchema;
  nullable: boolean;
  optional: boolean;
  defaultValue?: unknown;
  description?: string;
} {
  let s = schema;
  let description: string | undefined;
  let nullable = false;
  let optional = false;
  let defaultValue: unknown;
  let hasDefault = false;
  for (;;) {
    const d = defOf(s);
    // A recipe derives a field by wrapping the library's (`lib.maxTokens.default(8)`): the description of the
    // outermost layer that has one is the field's.
    description ??= s.description;
    if (d.type === 'default' || d.type === 'prefault') {
      if (!hasDefault) {
        defaultValue = d.defaultValue;
        hasDefault = true;
      }
      s = d.innerType!;
    } else if (d.type === 'optional') {
      optional = true;
      s = d.innerType!;
    } else if (d.type === 'nullable') {
      nullable = true;
      s = d.innerType!;
    } else if (d.type === 'readonly' || d.type === 'catch' || d.type === 'nonoptional') {
      s = d.innerType!;
    } else if (d.type === 'pipe') {
      s = d.in!;
    } else break;
  }
  description ??= s.description;
  const out = hasDefault ? { core: s, nullable, optional, defaultValue } : { core: s, nullable, optional };
  return description === undefined ? out : { ...out, description };
}

function objectShape(schema: AnySchema): Record<string, AnySchema> | undefined {
  const { core } = unwrap(schema);
  const d = defOf(core);
  return d.type === 'object' ? d.shape : undefined;
}

/** One documented field of a config schema. */
export interface ConfigField {
  /** Dotted path, e.g. `optimizer.learning_rate`. */
  path: string;
  /** Human-readable type, e.g. `number`, `"linear" | "cosine"`, `string[]`. */
  type: string;
  /** The default, or undefined when the field is required or optional without one. */
  defaultValue: unknown;
  required: boolean;
  description: string;
}

function describeType(schema: AnySchema): string {
  const { core, nullable } = unwrap(schema);
  const d = defOf(core);
  let t: string;
  switch (d.type) {
    case 'enum':
      t = Object.values(d.entries ?? {})
        .map((v) => JSON.stringify(v))
        .join(' | ');
      break;
    case 'literal':
      t = (d.values ?? []).map((v) => JSON.stringify(v)).join(' | ');
      break;
    case 'array':
      t = `${describeType(d.element!)}[]`;
      break;
    case 'union':
      t = (d.options ?? []).map(describeType).join(' | ');
      break;
    case 'record':
      t = 'JSON object';
      break;
    case 'number':
      t = (core as unknown as { isInt?: boolean }).isInt === true ? 'integer' : 'number';
      break;
    default:
      t = d.type;
  }
  return nullable ? `${t} | null` : t;
}

/**
 * Every leaf field of a config schema, depth first, nested objects flattened to dotted paths (spelled per
 * `keyStyle`).
 */
export function configFields(schema: AnySchema, options: ConfigKeyOptions & { prefix?: string } = {}): ConfigField[] {
  const shape = objectShape(schema);
  if (shape === undefined) return [];
  const prefix = options.prefix ?? '';
  const out: ConfigField[] = [];
  for (const [schemaKey, field] of Object.entries(shape)) {
    const key = displayKey(schemaKey, options.keyStyle);
    const path = prefix ? `${prefix}.${key}` : key;
    const nested = objectShape(field);
    if (nested !== undefined) {
      out.push(...configFields(field, { ...options, prefix: path }));
      continue;
    }
    const u = unwrap(field);
    out.push({
      path,
      type: describeType(field),
      defaultValue: u.defaultValue,
      required: u.defaultValue === undefined && !u.optional,
      description: u.description ?? '',
    });
  }
  return out;
}

/** Help text listing every field: path, type, default and description. */
export function configHelp(schema: AnySchema, title?: string, options: ConfigKeyOptions = {}): string {
  const fields = configFields(schema, options);
  const lines: string[] = [];
  if (title) lines.push(title, '');
  const width = Math.min(40, Math.max(8, ...fields.map((f) => f.path.length)));
  for (const f of fields) {
    const def = f.required
      ? 'required'
      : f.defaultValue === undefined
        ? 'optional'
        : `default: ${JSON.stringify(f.defaultValue)}`;
    lines.push(`  ${f.path.padEnd(width)}  ${f.type}  (${def})`);
    if (f.description) lines.push(`  ${' '.repeat(width)}  ${f.description}`);
  }
  return lines.join('\n');
}

/** Levenshtein distance, for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

/** The closest candidate to `word`, if any is reasonably close. */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Number.POSITIVE_INFINITY;
  for (const c of candidates) {
    const tail = c.split('.').at(-1)!;
    const d = Math.min(editDistance(word, c), editDistance(word, tail) + (c === tail ? 0 : 1));
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(word.length / 2)) ? best : undefined;
}

function fail(key: string, value: string, expected: string): never {
  throw new ConfigError(`${key}=${value}: expected ${expected}`, { key });
}

function coerce(key: string, raw: string, schema: AnySchema): unknown {
  const { core, nullable, optional } = unwrap(schema);
  if ((nullable || optional) && (raw === 'null' || raw === 'None')) return nullable ? null : undefined;
  const d = defOf(core);
  switch (d.type) {
    case 'string':
      return raw;
    case 'number':
    case 'int':
    case 'bigint': {
      const t = raw.trim();
      const n = Number(t);
      if (t === '' || Number.isNaN(n)) fail(key, raw, 'a number');
      if (!Number.isFinite(n)) fail(key, raw, 'a finite number');
      return n;
    }
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(v)) return true;
      if (['false', '0', 'no', 'off'].includes(v)) return false;
      return fail(key, raw, 'true or false');
    }
    case 'enum': {
      const allowed = Object.values(d.entries ?? {});
      const hit = allowed.find((v) => String(v) === raw);
      if (hit === undefined) {
        const hint = closestMatch(raw, allowed.map(String));
        fail(
          key,
          raw,
          `one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}${hint ? ` (did you mean "${hint}"?)` : ''}`,
        );
      }
      return hit;
    }
    case 'literal': {
      const hit = (d.values ?? []).find((v) => String(v) === raw);
      if (hit === undefined) fail(key, raw, (d.values ?? []).map((v) => JSON.stringify(v)).join(' or '));
      return hit;
    }
    case 'array': {
      const t = raw.trim();
      if (t.startsWith('[')) {
        try {
          return JSON.parse(t) as unknown;
        } catch {
          return fail(key, raw, 'a JSON list or comma-separated values');
        }
      }
      if (t === '') return [];
      return t.split(',').map((part, i) => coerce(`${key}[${i}]`, part.trim(), d.element!));
    }
    case 'union': {
      for (const opt of d.options ?? []) {
        try {
          const v = coerce(key, raw, opt);
          if (opt.safeParse(v).success) return v;
        } catch {
          // try the next option
        }
      }
      return raw;
    }
    default:
      try {
        return JSON.parse(raw) as unknown;
      } catch {
        return raw;
      }
  }
}

/** The schema keys and field for a dotted key spelled per `style`, or undefined when no field has that name. */
function resolvePath(
  schema: AnySchema,
  path: readonly string[],
  style: ConfigKeyStyle | undefined,
): { schemaPath: string[]; field: AnySchema } | undefined {
  let s: AnySchema | undefined = schema;
  const schemaPath: string[] = [];
  for (const part of path) {
    if (s === undefined) return undefined;
    const shape = objectShape(s);
    if (shape === undefined) {
      const d = defOf(unwrap(s).core);
      if (d.type !== 'record') return undefined;
      schemaPath.push(part);
      s = d.valueType;
      continue;
    }
    const key = Object.keys(shape).find((k) => displayKey(k, style) === part);
    if (key === undefined) return undefined;
    schemaPath.push(key);
    s = shape[key];
  }
  return s === undefined ? undefined : { schemaPath, field: s };
}

function mapConfigKeys(
  schema: AnySchema,
  value: unknown,
  toOutside: boolean,
  style: ConfigKeyStyle | undefined,
): unknown {
  const d = defOf(unwrap(schema).core);
  if (d.type === 'array' && Array.isArray(value)) {
    return value.map((v) => mapConfigKeys(d.element!, v, toOutside, style));
  }
  const shape = objectShape(schema);
  if (shape === undefined || typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const inside = new Map(Object.keys(shape).map((k) => [toOutside ? k : displayKey(k, style), k]));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const schemaKey = inside.get(k);
    if (schemaKey === undefined) out[k] = v;
    else
      out[toOutside ? displayKey(schemaKey, style) : schemaKey] = mapConfigKeys(shape[schemaKey]!, v, toOutside, style);
  }
  return out;
}

/**
 * A config value (e.g. a parsed config) with its keys spelled per `keyStyle`, following the schema: keys of nested
 * objects are renamed, keys inside free-form maps and keys the schema does not know are kept. Used to write
 * `config.json` in the command line's spelling.
 */
export function configToKeyStyle(schema: AnySchema, value: unknown, options: ConfigKeyOptions = {}): unknown {
  return mapConfigKeys(schema, value, true, options.keyStyle);
}

/** The inverse of {@link configToKeyStyle}: keys spelled per `keyStyle` back to the schema's (to reload a config.json). */
export function configFromKeyStyle(schema: AnySchema, value: unknown, options: ConfigKeyOptions = {}): unknown {
  return mapConfigKeys(schema, value, false, options.keyStyle);
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let obj = target;
  for (const part of path.slice(0, -1)) {
    const next = obj[part];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) obj[part] = {};
    obj = obj[part] as Record<string, unknown>;
  }
  obj[path.at(-1)!] = value;
}

function formatIssuePath(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
}

/** zod's issue text in the project's voice. */
function describeIssue(issue: z.core.$ZodIssue): string {
  const i = issue as z.core.$ZodIssue & {
    expected?: string;
    minimum?: number | bigint;
    maximum?: number | bigint;
    inclusive?: boolean;
    origin?: string;
    values?: unknown[];
    keys?: string[];
  };
  switch (i.code) {
    case 'invalid_type':
      if (i.expected === 'int') return 'expected an integer';
      return `expected ${i.expected === 'array' ? 'a list' : `a ${i.expected ?? 'value'}`}`;
    case 'too_small':
      if (i.origin === 'array' || i.origin === 'string')
        return `needs at least ${String(i.minimum)} ${i.origin === 'array' ? 'items' : 'characters'}`;
      return `must be ${i.inclusive ? 'at least' : 'greater than'} ${String(i.minimum)}`;
    case 'too_big':
      if (i.origin === 'array' || i.origin === 'string')
        return `allows at most ${String(i.maximum)} ${i.origin === 'array' ? 'items' : 'characters'}`;
      return `must be ${i.inclusive ? 'at most' : 'less than'} ${String(i.maximum)}`;
    case 'invalid_value':
      return `expected one of ${(i.values ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return `unknown keys ${(i.keys ?? []).map((k) => `"${k}"`).join(', ')}`;
    default:
      return i.message;
  }
}

/**
 * Parse `key=value` arguments into a value of `schema`.
 * Nested fields use dotted keys (`optimizer.lr=1e-4`); lists are comma-separated or JSON (`[1,2]`);
 * booleans accept true/false/1/0/yes/no; `null` sets a nullable field. `base` supplies values that the
 * arguments override (for example a recipe's defaults), keyed as the schema spells them. With
 * `keyStyle: 'snake_case'` the arguments spell the schema's camelCase keys in snake_case, and errors name them so.
 * @throws ConfigError naming the bad key and value, with the closest valid key for an unknown one; a key given twice
 * is an error.
 */
export function parseConfig<S extends AnySchema>(
  schema: S,
  args: readonly string[],
  base: Record<string, unknown> = {},
  options: ConfigKeyOptions = {},
): z.infer<S> {
  const raw: Record<string, unknown> = structuredClone(base);
  const known = configFields(schema, options).map((f) => f.path);
  const seen = new Set<string>();
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq <= 0) {
      throw new ConfigError(`argument "${arg}" is not of the form key=value`);
    }
    const key = arg.slice(0, eq).trim();
    const value = arg.slice(eq + 1);
    if (seen.has(key)) throw new ConfigError(`${key} is given twice; give each key once`, { key });
    seen.add(key);
    const resolved = resolvePath(schema, key.split('.'), options.keyStyle);
    if (resolved === undefined) {
      const hint = closestMatch(key, known);
      throw new ConfigError(`unknown config key "${key}"${hint ? `; did you mean "${hint}"?` : ''}`, { key });
    }
    setPath(raw, resolved.schemaPath, coerce(key, value, resolved.field));
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const outsidePath = outsideIssuePath(schema, issue.path, options.keyStyle);
    const key = formatIssuePath(outsidePath);
    let given: unknown = raw;
    for (const p of issue.path) given = (given as Record<PropertyKey, unknown> | undefined)?.[p];
    const shown = given === undefined ? 'missing' : JSON.stringify(given);
    throw new ConfigError(`config field "${key}" (${shown}): ${describeIssue(issue)}`, { key });
  }
  return result.data as z.infer<S>;
}

function outsideIssuePath(
  schema: AnySchema,
  path: readonly PropertyKey[],
  style: ConfigKeyStyle | undefined,
): PropertyKey[] {
  const out: PropertyKey[] = [];
  let s: AnySchema | undefined = schema;
  for (const p of path) {
    const shape: Record<string, AnySchema> | undefined = s === undefined ? undefined : objectShape(s);
    if (typeof p === 'string' && shape !== undefined && p in shape) {
      out.push(displayKey(p, style));
      s = shape[p];
    } else {
      out.push(p);
      s = undefined;
    }
  }
  return out;
}
