/**
 * Python's text rules that GEM's games rely on when they read an action, so the same text gives the same move here:
 *
 * - `re` on `str` patterns: `\s` is every character for which `str.isspace()` holds (ASCII whitespace plus
 *   U+001C–U+001F, U+0085, U+00A0 and the Unicode spaces; not U+FEFF, which JavaScript's `\s` includes); `\d` is every
 *   decimal digit (Unicode category Nd: `５`, `٥`, `𝟓`…), not just 0–9.
 * - `re.IGNORECASE`: an ASCII letter also matches Python's extra case equivalents — `i` matches `İ` (U+0130) and `ı`
 *   (U+0131), `k` matches the Kelvin sign (U+212A), `s` matches the long s `ſ` (U+017F). JavaScript's `/iu` case
 *   folding knows only the last two.
 * - `int(text)`: any Nd digits, arbitrary size (`bigint` here, never rounded), and more than 4300 digits raise
 *   `ValueError` (CPython's integer string conversion limit, on by default since 3.11 / 3.10.7) — which GEM's games
 *   catch and answer as a format error.
 * - `str.upper()` / `str.lower()`: the full Unicode case mappings, the same as JavaScript's locale-independent
 *   `toUpperCase()` / `toLowerCase()` (`ſ` → `S`, `ı` → `I`, `ß` → `SS`).
 *
 * Deliberate difference: the Unicode tables (which characters are Nd digits, case mappings) are the JavaScript
 * engine's, GEM's are those of the Python it runs on; they differ only on characters added to Unicode in between.
 */

import { ConfigError } from '@cookbook/core';

/** Python's `\s` in a `str` pattern, as a JavaScript class body (use with the `u` flag). */
export const PY_SPACE_CLASS =
  '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';

/** Python's `\d` in a `str` pattern (use with the `u` flag). */
export const PY_DIGIT_CLASS = '\\p{Nd}';

/** The characters Python's `re.IGNORECASE` adds to an ASCII letter beyond its other case. */
const PY_CASE_EXTRAS: Readonly<Record<string, string>> = { i: '\u0130\u0131', k: '\u212a', s: '\u017f' };

/** CPython's default limit on the digits of `int(text)` (`sys.get_int_max_str_digits()`). */
export const PY_INT_MAX_STR_DIGITS = 4300;

function caseClassAdditions(matches: (ch: string) => boolean): string {
  let extra = '';
  for (let code = 97; code <= 122; code++) {
    const lower = String.fromCharCode(code);
    const upper = lower.toUpperCase();
    if (matches(lower) || matches(upper)) extra += lower + upper + (PY_CASE_EXTRAS[lower] ?? '');
  }
  return extra;
}

/**
 * Compiles a Python `re` pattern of the simple kind GEM's games use (literals, groups, `|`, `+ * ?`, classes,
 * `\s`, `\d`, escaped punctuation) into a global Unicode JavaScript RegExp with Python's meaning of `\s`, `\d` and,
 * with `ignoreCase`, of IGNORECASE on ASCII letters. Anything else (backreferences, lookarounds, `.`, other escapes)
 * is refused, so a pattern never silently changes meaning.
 */
export function pyRegExp(source: string, options: { ignoreCase?: boolean } = {}): RegExp {
  const ignoreCase = options.ignoreCase === true;
  let out = '';
  let i = 0;
  const unsupported = (what: string): never => {
    throw new ConfigError(`pyRegExp: unsupported ${what} at ${i} in ${JSON.stringify(source)}`);
  };
  const translateEscape = (inClass: boolean): string => {
    const c = source[i + 1];
    if (c === undefined) return unsupported('trailing backslash');
    i += 2;
    if (c === 's') return inClass ? PY_SPACE_CLASS : `[${PY_SPACE_CLASS}]`;
    if (c === 'd') return PY_DIGIT_CLASS;
    if (/[\\{}()[\]|+*?.^$,-]/.test(c)) return `\\${c}`;
    return unsupported(`escape \\${c}`);
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === '\\') {
      out += translateEscape(false);
    } else if (c === '[') {
      let body = '';
      i += 1;
      if (source[i] === '^') unsupported('negated class');
      while (i < source.length && source[i] !== ']') {
        if (source[i] === '\\') body += translateEscape(true);
        else {
          body += source[i];
          i += 1;
        }
      }
      if (source[i] !== ']') unsupported('unterminated class');
      i += 1;
      if (ignoreCase) {
        const cls = new RegExp(`^[${body}]$`, 'u');
        body += caseClassAdditions((ch) => cls.test(ch));
      }
      out += `[${body}]`;
    } else if (c === '{' && /^\{\d*(,\d*)?\}/.test(source.slice(i)) && /^\{\d/.test(source.slice(i))) {
      unsupported('quantifier');
    } else if (c === '{' || c === '}') {
      // Python reads a brace that does not start a valid quantifier as a literal; GEM's patterns use it that way.
      out += `\\${c}`;
      i += 1;
    } else if (c === '(' && source[i + 1] === '?') {
      if (source[i + 2] !== ':') unsupported('group extension');
      out += '(?:';
      i += 3;
    } else if (/[a-zA-Z]/.test(c)) {
      out += ignoreCase ? `[${caseClassAdditions((ch) => ch === c.toLowerCase())}]` : c;
      i += 1;
    } else if (/[()|+*?,: ]/.test(c) || /[0-9]/.test(c)) {
      out += c;
      i += 1;
    } else {
      unsupported(`character ${JSON.stringify(c)}`);
    }
  }
  return new RegExp(out, 'gu');
}

/** The last match of a global pattern in `text` (GEM reads the last one), or `undefined`. */
export function pyLastMatch(text: string, pattern: RegExp): RegExpMatchArray | undefined {
  let last: RegExpMatchArray | undefined;
  for (const m of text.matchAll(pattern)) last = m;
  return last;
}

const digitValues = new Map<number, number>();
const ND = /^\p{Nd}$/u;

/** The value 0–9 of a Unicode decimal digit (Nd digits come in runs of ten, 0 to 9), or `undefined`. */
export function pyDigitValue(ch: string): number | undefined {
  const cp = ch.codePointAt(0);
  if (cp === undefined || !ND.test(ch)) return undefined;
  if (cp >= 48 && cp <= 57) return cp - 48;
  let value = digitValues.get(cp);
  if (value === undefined) {
    let start = cp;
    while (start > 0 && ND.test(String.fromCodePoint(start - 1))) start -= 1;
    value = (cp - start) % 10;
    digitValues.set(cp, value);
  }
  return value;
}

/**
 * Python's `int(text)` for a run of decimal digits (what `\d+` matched): the exact value as a `bigint`, or
 * `undefined` where Python raises `ValueError` — not digits only, or more than {@link PY_INT_MAX_STR_DIGITS} digits.
 */
export function pyInt(text: string): bigint | undefined {
  const chars = [...text];
  if (chars.length === 0 || chars.length > PY_INT_MAX_STR_DIGITS) return undefined;
  let ascii = '';
  for (const ch of chars) {
    const d = pyDigitValue(ch);
    if (d === undefined) return undefined;
    ascii += String(d);
  }
  return BigInt(ascii);
}

/** Python's `str.split()` without arguments: split on runs of whitespace, no empty parts. */
export function pySplit(text: string): string[] {
  return text.split(new RegExp(`[${PY_SPACE_CLASS}]+`, 'u')).filter((part) => part.length > 0);
}

/**
 * Python's `str.upper()` (full Unicode mapping, e.g. `ſ` → `S`, `ß` → `SS`); the same as JavaScript's
 * locale-independent `toUpperCase()`.
 */
export function pyUpper(text: string): string {
  return text.toUpperCase();
}

/** Python's `str.lower()` (full Unicode mapping, e.g. `İ` → `i̇`). */
export function pyLower(text: string): string {
  return text.toLowerCase();
}

/** `value` as a number when `0 <= value < size` (a board index), else `undefined`. */
export function pyIndex(value: bigint, size: number): number | undefined {
  return value >= 0n && value < BigInt(size) ? Number(value) : undefined;
}
