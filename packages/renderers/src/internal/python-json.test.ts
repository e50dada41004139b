import { describe, expect, it } from 'vitest';
import { canonicalJson, parseJsonNode, pythonFloatRepr, pythonScalarStr, pythonToJson } from './python-json.js';

describe('Python-compatible JSON printing', () => {
  it('floats print as Python repr() does', () => {
    // Facts from CPython: repr(1e16), repr(1e-5), repr(0.0001), repr(123456789012345680.0), repr(100.0), …
    const cases: [number, string][] = [
      [1e16, '1e+16'],
      [1e-5, '1e-05'],
      [0.0001, '0.0001'],
      [123456789012345680, '1.2345678901234568e+17'],
      [1.5, '1.5'],
      [100, '100.0'],
      [9999999999999998, '9999999999999998.0'],
      [-2.5e-7, '-2.5e-07'],
      [0.1, '0.1'],
      [1e22, '1e+22'],
      [-0, '-0.0'],
    ];
    for (const [x, want] of cases) expect(pythonFloatRepr(x), String(x)).toBe(want);
  });

  it('keeps integer literals exact and floats as floats; json.dumps spacing; str() of scalars', () => {
    const node = parseJsonNode('{"a": [1, 2.0, "é\\n\\u0001"], "b": null, "big": 12345678901234567890, "t": true}');
    // json.dumps({...}, ensure_ascii=False) in CPython:
    expect(pythonToJson(node)).toBe(
      '{"a": [1, 2.0, "é\\n\\u0001"], "b": null, "big": 12345678901234567890, "t": true}',
    );
    expect(canonicalJson(node)).toBe('{"a":[1,2.0,"é\\n\\u0001"],"b":null,"big":12345678901234567890,"t":true}');
    expect(['true', 'null', '1.0', '"s"'].map((t) => pythonScalarStr(parseJsonNode(t)))).toEqual([
      'True',
      'None',
      '1.0',
      's',
    ]);
  });

  it('rejects invalid JSON with the offset', () => {
    expect(() => parseJsonNode('{"a": }')).toThrow(/offset 6/);
    expect(() => parseJsonNode('[1, 2')).toThrow(/invalid JSON/);
    expect(() => parseJsonNode('"a\nb"')).toThrow(/malformed string/);
    expect(() => parseJsonNode('1 2')).toThrow(/trailing/);
  });
});
