/** A value that `JSON.stringify` writes faithfully. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

function typeLabel(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'object';
}

/**
 * Recursively turns a config into plain JSON (upstream `ml_log` dumps configs with non-serialisable values replaced
 * by their type). Non-finite numbers become strings (`"NaN"`), bigints become decimal strings, functions and class
 * instances without `toJSON` become their type name, Maps become objects, Sets arrays, cycles `"[Circular]"`.
 */
export function toJsonValue(value: unknown, seen: Set<object> = new Set()): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'bigint':
      return value.toString();
    case 'undefined':
      return null;
    case 'symbol':
      return value.toString();
    case 'function':
      return value.name ? `function ${value.name}` : 'function';
  }
  if (value === null) return null;
  const obj = value as object;
  if (seen.has(obj)) return '[Circular]';
  seen.add(obj);
  try {
    if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? 'Invalid Date' : obj.toISOString();
    const toJSON = (obj as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return toJsonValue(toJSON.call(obj), seen);
    if (Array.isArray(obj)) return obj.map((v) => toJsonValue(v, seen));
    if (obj instanceof Set) return [...obj].map((v) => toJsonValue(v, seen));
    if (obj instanceof Map) {
      const out: { [key: string]: JsonValue } = {};
      for (const [k, v] of obj) out[String(k)] = toJsonValue(v, seen);
      return out;
    }
    if (ArrayBuffer.isView(obj) || obj instanceof ArrayBuffer) return typeLabel(obj);
    const proto: unknown = Object.getPrototypeOf(obj);
    if (proto !== null && proto !== Object.prototype) return typeLabel(obj);
    const out: { [key: string]: JsonValue } = {};
    for (const [k, v] of Object.entries(obj)) {
      if (v === undefined) continue;
      out[k] = toJsonValue(v, seen);
    }
    return out;
  } finally {
    seen.delete(obj);
  }
}
