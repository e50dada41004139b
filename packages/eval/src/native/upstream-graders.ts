/**
 * Answer extraction and grading as upstream's native benchmarks do it (`eval/benchmarks/_common.py`, `aime.py`,
 * `_hmmt.py`, `math500.py`), written here from their documented behaviour and checked against upstream's verdicts on
 * the same responses (`__fixtures__/upstream-verdicts.json`, written by `scripts/upstream-verdicts.py`).
 *
 * These differ on purpose from this package's general graders (`graders/`): upstream's GSM8K, AIME, HMMT and
 * multiple-choice extraction take the FIRST `\boxed{}` of a reply, while MATH-500 takes the last; a multiple-choice
 * reply is read by the first "answer is"/"answer:" phrase (the letter case-insensitive), else the last standalone
 * letter of the final 300 characters, with Python's Unicode word boundaries (so `答案是B` has no standalone B).
 */
import { DataError } from '@cookbook/core';
import { gradeAnswer } from '../graders/math-grading.js';
import { symbolicEqual } from '../graders/math-symbolic.js';

/** Python's `\w` (letters, digits and numerics of any script, `_`): what its `\b` word boundaries see. */
const WORD = String.raw`[\p{L}\p{N}_]`;

/** `float(s)` as Python parses it; undefined where Python raises ValueError. */
export function pyFloat(s: string): number | undefined {
  const t = s.trim();
  const digits = String.raw`\d(?:_?\d)*`;
  const num = new RegExp(`^[+-]?(?:(?:${digits})?\\.?(?:${digits})?(?:[eE][+-]?${digits})?)$`);
  if (/^[+-]?(?:inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^[+-]?nan$/i.test(t)) return Number.NaN;
  if (!num.test(t) || !/\d/.test(t.replace(/[eE].*$/, ''))) return undefined;
  return Number(t.replace(/_/g, ''));
}

/**
 * The content of the FIRST `\boxed{…}` (nested braces counted); undefined when there is none or its braces never
 * close.
 */
export function extractFirstBoxed(text: string): string | undefined {
  const idx = text.indexOf('\\boxed{');
  if (idx < 0) return undefined;
  const start = idx + '\\boxed{'.length;
  let depth = 1;
  let i = start;
  for (; i < text.length && depth > 0; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}') depth--;
  }
  return depth === 0 ? text.slice(start, i - 1) : undefined;
}

/**
 * The content of the LAST complete `\boxed{…}` (MATH-500's rule), else the token of a brace-less `\boxed 5`.
 * Undefined when there is none — or when the text has a `}` that closes nothing anywhere (upstream then gives up).
 */
export function extractLastBoxedStrict(text: string): string | undefined {
  const found: string[] = [];
  const stack: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '{') stack.push(i);
    else if (text[i] === '}') {
      const open = stack.pop();
      if (open === undefined) return undefined;
      if (text.slice(0, open).endsWith('\\boxed')) found.push(text.slice(open + 1, i));
    }
  }
  if (found.length > 0) return found.at(-1);
  return /\\boxed\s+([a-zA-Z0-9]+)/.exec(text)?.[1];
}

/** The first number of a LaTeX answer (`\text{}`, commands, braces, `$`, commas and spaces removed), else the rest. */
export function extractNumber(text: string): string {
  const cleaned = text
    .replace(/\\text\{[^}]*\}/g, '')
    .replace(/\\[a-zA-Z]+/g, '')
    .replace(/[{}$, ]/g, '');
  return /-?\d+\.?\d*/.exec(cleaned)?.[0] ?? cleaned.trim();
}

/**
 * A numeric answer: the first boxed answer's number, else `#### x`, else "answer is x"/"answer: x", else the last
 * bold number, else the last number; "" when the reply has no number.
 */
export function extractNumericAnswer(text: string): string {
  const boxed = extractFirstBoxed(text);
  if (boxed) return extractNumber(boxed);
  const hash = /####\s*(.+)/.exec(text);
  if (hash) return extractNumber(hash[1]!);
  const phrase = /(?:answer is|answer:)\s*\$?([0-9,.-]+)/i.exec(text);
  if (phrase) return phrase[1]!.trim().replace(/,/g, '');
  const bold = [...text.matchAll(/\*\*\$?(-?\d+[,\d]*\.?\d*)/g)].at(-1);
  if (bold) return bold[1]!.replace(/,/g, '').replace(/\.+$/, '');
  const last = [...text.matchAll(/-?\d+[,\d]*\.?\d*/g)].at(-1);
  return last ? last[0].replace(/,/g, '') : '';
}

/** GSM8K's verdict: the extracted number equals the expected one (within 1e-5), else the strings are equal. */
export function checkGsm8k(response: string, expected: string): { correct: boolean; extracted: string } {
  const extracted = extractNumericAnswer(response);
  const want = expected.replace(/,/g, '');
  const a = pyFloat(extracted);
  const b = pyFloat(want);
  const correct = a !== undefined && b !== undefined ? Math.abs(a - b) < 1e-5 : extracted.trim() === want.trim();
  return { correct, extracted };
}

/** AIME's verdict: the first boxed number (else the numeric chain), truncated to an integer, equals `expected`. */
export function gradeAime(response: string, expected: number): { correct: boolean; extracted: string } {
  const boxed = extractFirstBoxed(response);
  const s = boxed ? extractNumber(boxed) : extractNumericAnswer(response);
  const f = pyFloat(s);
  if (f === undefined) return { correct: false, extracted: s };
  if (!Number.isFinite(f)) {
    // Python's int(float('inf')) raises OverflowError, which the benchmark does not catch: the example errors.
    throw new DataError(`cannot convert ${JSON.stringify(s)} to an integer`, { field: 'response' });
  }
  const v = Math.trunc(f);
  return { correct: v === expected, extracted: String(v) };
}

/**
 * The letter a multiple-choice reply picks among `valid` (upstream's order: a first `\boxed{}` holding exactly one
 * valid letter, the first "answer is"/"answer:" followed by a letter, the last standalone valid capital in the final
 * 300 characters); "" when none.
 */
export function extractMcqAnswer(text: string, valid = 'ABCD'): string {
  const cls = `[${valid}]`;
  const boxed = extractFirstBoxed(text);
  if (boxed !== undefined) {
    const b = boxed.trim().toUpperCase();
    if (new RegExp(`^${cls}$`).test(b)) return b;
  }
  const phrase = new RegExp(`(?:answer is|answer:)\\s*\\(?(${cls})\\)?`, 'iu').exec(text);
  if (phrase) return phrase[1]!.toUpperCase();
  const tail = [...text].slice(-300).join('');
  const letters = [...tail.matchAll(new RegExp(`(?<!${WORD})(${cls})(?!${WORD})`, 'gu'))];
  return letters.at(-1)?.[1] ?? '';
}

/** HMMT's answer normalisation: `$`, `\text{}`/`\mathrm{}` wrappers, `\left`/`\right`, runs of spaces, final dots. */
export function normalizeHmmtLatex(s: string): string {
  return s
    .trim()
    .replace(/\$/g, '')
    .replace(/\\(?:text|mathrm)\{([^}]*)\}/g, '$1')
    .replace(/\\left|\\right/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/\.+$/, '');
}

/**
 * HMMT's verdict on an extracted answer: equal after {@link normalizeHmmtLatex}, else equal as numbers (1e-6), else
 * symbolically equal. Upstream's third step parses LaTeX with sympy (an optional dependency); here the package's
 * CAS (`math-symbolic.ts`) does it, so verdicts that reach that step may differ (see the fixture test).
 */
export function hmmtEqual(extracted: string, expected: string): boolean {
  const a = normalizeHmmtLatex(extracted);
  const b = normalizeHmmtLatex(expected);
  if (a === b) return true;
  if (a === '' || b === '') return false;
  const fa = pyFloat(a);
  const fb = pyFloat(b);
  if (fa !== undefined && fb !== undefined && Math.abs(fa - fb) < 1e-6) return true;
  return symbolicEqual(a, b) === true;
}

/** HMMT's verdict on a reply: its first boxed answer, by {@link hmmtEqual}; no boxed answer is wrong. */
export function gradeHmmt(response: string, expected: string): { correct: boolean; extracted: string } {
  const extracted = extractFirstBoxed(response) || '';
  return { correct: extracted !== '' && hmmtEqual(extracted, expected), extracted };
}

/** MATH-500's verdict: the last boxed answer, graded by the MATH grader; none (or stray braces) is wrong. */
export function gradeMath500(response: string, expected: string): { correct: boolean; extracted: string } {
  const given = extractLastBoxedStrict(response);
  if (given === undefined) return { correct: false, extracted: '' };
  // Two plain `a/b` fractions must be spelled alike (an unreduced 2/4 does not answer 1/2).
  const frac = /^-?\d+\.?\/0*[1-9]\d*\.?$/;
  const g = given.replace(/\s/g, '');
  const e = expected.replace(/\s/g, '');
  if (frac.test(g) && frac.test(e)) return { correct: g === e, extracted: given };
  return { correct: gradeAnswer(given, expected), extracted: given };
}
