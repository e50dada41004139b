/**
 * Python's string semantics, for checkers whose rules are stated in Python (IFBench's): `str.split()` on Unicode
 * whitespace, `strip(chars)`, `string.punctuation`, `str.translate` deleting it, code-point lengths and slicing,
 * `str.count`, `re.match`'s anchoring, `isupper`/`islower`/`isalpha`, `re`'s Unicode `\b`, NFKD-to-ASCII, and the
 * `csv` module's reader.
 */
import { CookbookError } from '@cookbook/core';

/** Python's `string.punctuation`. */
export const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';

/** Characters `str.isspace()` accepts (and `str.split()` splits on) and Python's `\s` matches: a class's contents. */
export const PY_SPACE =
  '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const WS_RUN = new RegExp(`[${PY_SPACE}]+`, 'u');
const WS_ONE = new RegExp(`^[${PY_SPACE}]$`, 'u');

/** `ch.isspace()` for one character. */
export function isSpace(ch: string): boolean {
  return WS_ONE.test(ch);
}

/** `s.split()`: runs of whitespace, no empty pieces. */
export function pySplit(s: string): string[] {
  return s.split(WS_RUN).filter((w) => w !== '');
}

/** `s.strip(chars)` (whitespace when `chars` is undefined), `lstrip`, `rstrip`. */
export function pyStrip(s: string, chars?: string, side: 'both' | 'left' | 'right' = 'both'): string {
  const cps = [...s];
  const drop = (c: string) => (chars === undefined ? isSpace(c) : chars.includes(c));
  let a = 0;
  let b = cps.length;
  if (side !== 'right') while (a < b && drop(cps[a]!)) a++;
  if (side !== 'left') while (b > a && drop(cps[b - 1]!)) b--;
  return cps.slice(a, b).join('');
}

/** `s.translate(str.maketrans('', '', string.punctuation))`. */
export function removePunctuation(s: string): string {
  let out = '';
  for (const c of s) if (!PUNCTUATION.includes(c)) out += c;
  return out;
}

/** `len(s)`: code points. */
export function pyLen(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** `s[0]`: the first code point; throws (as Python's IndexError) on an empty string. */
export function firstChar(s: string): string {
  const c = s.codePointAt(0);
  if (c === undefined) throw new PyIndexError('string index out of range');
  return String.fromCodePoint(c);
}

/** `re.match(pattern, s)` (anchored at the start; `$` also before a final newline, as Python's). */
export function matchPy(re: RegExp, s: string): boolean {
  return re.test(s) || (s.endsWith('\n') && re.test(s.slice(0, -1)));
}

/** `s.count(sub)`: non-overlapping occurrences (an empty `sub` counts every position). */
export function pyCount(s: string, sub: string): number {
  if (sub === '') return pyLen(s) + 1;
  let n = 0;
  for (let i = s.indexOf(sub); i !== -1; i = s.indexOf(sub, i + sub.length)) n++;
  return n;
}

/** `s[start:end]` by code points, with Python's negative and out-of-range indices. */
export function pySlice(s: string, start: number, end: number): string {
  const cps = [...s];
  const at = (i: number) => (i < 0 ? Math.max(0, cps.length + i) : Math.min(i, cps.length));
  return cps.slice(at(start), at(end)).join('');
}

/** Python's IndexError, so a checker's failure reads as upstream's (a checker that raises does not pass). */
export class PyIndexError extends CookbookError {
  override name = 'PyIndexError';
}

const CASED_UPPER = /\p{Lu}|\p{Lt}/u;
const CASED_LOWER = /\p{Ll}/u;
const CASED = /[\p{Lu}\p{Ll}\p{Lt}]/u;

/** `s.isupper()`: some cased character and none lowercase. */
export function isUpper(s: string): boolean {
  return CASED.test(s) && !CASED_LOWER.test(s);
}

/** `s.islower()`: some cased character and none uppercase or titlecase. */
export function isLower(s: string): boolean {
  return CASED.test(s) && !CASED_UPPER.test(s);
}

/** `s.isalpha()`: non-empty, letters only. */
export function isAlpha(s: string): boolean {
  return /^\p{L}+$/u.test(s);
}

/** `s.isalnum()` for one character (letters and numbers). */
export function isAlnumChar(c: string): boolean {
  return /^[\p{L}\p{N}]$/u.test(c);
}

/** `s.isdigit()`: non-empty, decimal digits (and other digit characters) only. */
export function isDigit(s: string): boolean {
  return /^[\p{Nd}\u00b2\u00b3\u00b9\u2070-\u2079\u2080-\u2089\u2460-\u2468]+$/u.test(s);
}

/** Python's `\w` on str: `isalnum()` characters (letters and numbers) and `_`. */
export const PY_WORD_CHAR = '[\\p{L}\\p{N}_]';

/** A regex source for `\b<literal>\b` with Python's Unicode word characters. */
export function wordBounded(literal: string): string {
  const escaped = literal.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
  const startsWord = new RegExp(`^${PY_WORD_CHAR}`, 'u').test(literal);
  const endsWord = new RegExp(`${PY_WORD_CHAR}$`, 'u').test(literal);
  // `\b` beside a non-word character needs a word character on the other side (the string's ends are non-word).
  const before = startsWord ? `(?<!${PY_WORD_CHAR})` : `(?<=${PY_WORD_CHAR})`;
  const after = endsWord ? `(?!${PY_WORD_CHAR})` : `(?=${PY_WORD_CHAR})`;
  return `${before}${escaped}${after}`;
}

/** `unicodedata.normalize('NFKD', s).encode('ASCII', 'ignore').decode()`. */
export function asciiFold(s: string): string {
  let out = '';
  for (const c of s.normalize('NFKD')) if (c.codePointAt(0)! < 0x80) out += c;
  return out;
}

/** Python's `csv.Error`. */
export class PyCsvError extends CookbookError {
  override name = 'PyCsvError';
}

/**
 * `list(csv.reader(io.StringIO(text), delimiter=…))` with the default dialect (quote `"`, doubled quotes, no
 * escape character, not strict): lines end at `\n` only (StringIO's), a `\r` inside an unquoted field followed by
 * more text is the module's "new-line character seen in unquoted field" error, a blank line is an empty row, and a
 * quoted field left open at the end is kept.
 */
export function pyCsvRows(text: string, delimiter = ','): string[][] {
  type State = 'record' | 'field' | 'in' | 'quoted' | 'quote' | 'crnl';
  const rows: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let fieldLen = 0;
  let state = 'record' as State;
  const save = () => {
    fields.push(field);
    field = '';
    fieldLen = 0;
  };
  const add = (c: string) => {
    field += c;
    fieldLen++;
  };
  const EOL = null;
  const step = (c: string | null): void => {
    switch (state) {
      case 'record':
        if (c === EOL) return;
        if (c === '\n' || c === '\r') {
          state = 'crnl';
          return;
        }
        state = 'field';
        step(c);
        return;
      case 'field':
        if (c === EOL || c === '\n' || c === '\r') {
          save();
          state = c === EOL ? 'record' : 'crnl';
        } else if (c === '"') state = 'quoted';
        else if (c === delimiter) save();
        else {
          add(c);
          state = 'in';
        }
        return;
      case 'in':
        if (c === EOL || c === '\n' || c === '\r') {
          save();
          state = c === EOL ? 'record' : 'crnl';
        } else if (c === delimiter) {
          save();
          state = 'field';
        } else add(c);
        return;
      case 'quoted':
        if (c === EOL) return;
        if (c === '"') state = 'quote';
        else add(c);
        return;
      case 'quote':
        if (c === '"') {
          add('"');
          state = 'quoted';
        } else if (c === delimiter) {
          save();
          state = 'field';
        } else if (c === EOL || c === '\n' || c === '\r') {
          save();
          state = c === EOL ? 'record' : 'crnl';
        } else {
          add(c);
          state = 'in';
        }
        return;
      case 'crnl':
        if (c === '\n' || c === '\r') return;
        if (c === EOL) {
          state = 'record';
          return;
        }
        throw new PyCsvError(
          "new-line character seen in unquoted field - do you need to open the file with newline=''?",
        );
    }
  };
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  for (const line of lines) {
    for (const c of line) step(c);
    step(EOL);
    if (state === 'record') {
      rows.push(fields);
      fields = [];
    }
  }
  if (fieldLen !== 0 || state === 'quoted') {
    save();
    rows.push(fields);
  }
  return rows;
}
