/**
 * key=value configuration parsing driven by zod schemas (the role `chz` plays upstream).
 * `parseConfig(schema, ['a=1', 'b.c=x', 'tags=a,b'])` coerces each value by the schema's field type,
 * rejects unknown keys with the closest valid key, and validates the whole object once.
 */
import type { z } from 'zod';
import { ConfigError } from './errors.js';

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
function unwrap(schema: AnySchema): { core: AnySchema; nullable: boolean; optional: boolean; defaultValue?: unknown } {
  let s = schema;
  let nullable = false;
  let optional = false;
  let defaultValue: unknown;
  let hasDefault = false;
  for (;;) {
    const d = defOf(s);
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
  return hasDefault ? { core: s, nullable, optional, defaultValue } : { core: s, nullable, optional };
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
    default:
      t = d.type;
  }
  return nullable ? `${t} | null` : t;
}

/** Every leaf field of a config schema, depth first, nested objects flattened to dotted paths. */
export function configFields(schema: AnySchema, prefix = ''): ConfigField[] {
  const shape = objectShape(schema);
  if (shape === undefined) return [];
  const out: ConfigField[] = [];
  for (const [key, field] of Object.entries(shape)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const nested = objectShape(field);
    if (nested !== undefined) {
      out.push(...configFields(field, path));
      continue;
    }
    const u = unwrap(field);
    out.push({
      path,
      type: describeType(field),
      defaultValue: u.defaultValue,
      required: u.defaultValue === undefined && !u.optional,
      description: field.description ?? u.core.description ?? '',
    });
  }
  return out;
}

/** Help text listing every field: path, type, default and description. */
export function configHelp(schema: AnySchema, title?: string): string {
  const fields = configFields(schema);
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

function fieldAt(schema: AnySchema, path: string[]): AnySchema | undefined {
  let s: AnySchema | undefined = schema;
  for (const part of path) {
    if (s === undefined) return undefined;
    const shape = objectShape(s);
    if (shape === undefined) {
      const d = defOf(unwrap(s).core);
      if (d.type === 'record') return d.valueType;
      return undefined;
    }
    s = shape[part];
  }
  return s;
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

/**
 * Parse `key=value` arguments into a value of `schema`.
 * Nested fields use dotted keys (`optimizer.lr=1e-4`); lists are comma-separated or JSON (`[1,2]`);
 * booleans accept true/false/1/0/yes/no; `null` sets a nullable field. `base` supplies values that the
 * arguments override (for example a recipe's defaults).
 * @throws ConfigError naming the bad key and value, with the closest valid key for an unknown one.
 */
export function parseConfig<S extends AnySchema>(
  schema: S,
  args: readonly string[],
  base: Record<string, unknown> = {},
): z.infer<S> {
  const raw: Record<string, unknown> = structuredClone(base);
  const known = configFields(schema).map((f) => f.path);
  for (const arg of args) {
    const eq = arg.indexOf('=');
    if (eq <= 0) {
      throw new ConfigError(`argument "${arg}" is not of the form key=value`);
    }
    const key = arg.slice(0, eq).trim();
    const value = arg.slice(eq + 1);
    const path = key.split('.');
    const field = fieldAt(schema, path);
    if (field === undefined) {
      const hint = closestMatch(key, known);
      throw new ConfigError(`unknown config key "${key}"${hint ? `; did you mean "${hint}"?` : ''}`, { key });
    }
    setPath(raw, path, coerce(key, value, field));
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const key = formatIssuePath(issue.path);
    let given: unknown = raw;
    for (const p of issue.path) given = (given as Record<PropertyKey, unknown> | undefined)?.[p];
    const shown = given === undefined ? 'missing' : JSON.stringify(given);
    throw new ConfigError(`config field "${key}" (${shown}): ${issue.message}`, { key });
  }
  return result.data as z.infer<S>;
}
