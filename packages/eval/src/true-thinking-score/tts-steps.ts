/**
 * The true-thinking score's text pieces (upstream `recipes/true_thinking_score/tts.py`): a chain of thought split
 * into steps at discourse markers (short pieces merged into the previous step), the self-verification test, and the
 * number perturbation (each number offset by one of ±1, ±2, ±3 drawn from Python's seeded generator, keeping its
 * decimals), so a seeded run perturbs exactly as upstream does.
 *
 * Differences from upstream, on purpose or forced by the regex engine: digits are ASCII digits (Python's `\d` also
 * takes other scripts' digits), and lengths count code points as Python does.
 */
import type { PythonRandom } from '@cookbook/core';

const MARKERS = [
  // Numbered lists and markdown headers.
  '\\d+[\\.\\)]\\s',
  '\\*\\*[\\p{L}\\p{N}_]',
  '#{1,3}\\s',
  // Explicit step markers.
  'Step \\d',
  'First',
  'Second',
  'Third',
  'Fourth',
  'Fifth',
  'Next',
  'Then',
  'Now',
  'Finally',
  // Discourse transitions.
  'So ',
  'Therefore',
  'Thus',
  'Hence',
  'Let me',
  "Let's",
  'Wait',
  'Hmm',
  'Actually',
  // Subject-verb patterns.
  'We (?:can|have|know|need|get|see|find|note|observe)',
  'I (?:can|need|should|will|notice|think|see)',
  'This (?:means|gives|implies|shows|is)',
  // Causal / conditional cues.
  'Since ',
  'Because ',
  'Given ',
  'If ',
  'But ',
  'However ',
  'Note ',
  // Calculation cues.
  'For ',
  'Using ',
  'Substitut',
  'Comput',
  'Calculat',
  'Evaluat',
  'Apply',
  'Recall ',
];

/**
 * Upstream's step boundary: the start of a line (Python's MULTILINE `^`: the text's start or after `\n`) or a
 * newline, followed by a marker.
 */
export const STEP_SPLIT_PATTERN = new RegExp(`(?:(?<![^\\n])|\\n)(?=(?:${MARKERS.join('|')}))`, 'gu');

/** Upstream's self-verification ("aha moment") cues, case-insensitive. */
export const SELF_VERIFICATION_PATTERN = new RegExp(
  "(?:Wait|Hmm|Actually|Let me (?:re-?check|re-?evaluate|verify|double.?check|reconsider)|Hold on|No,? that's|" +
    "That (?:doesn't|can't) be right|Let me (?:think|reconsider) (?:about|again)|I (?:made|think there's) (?:a|an) (?:mistake|error))",
  'i',
);

/** A number not glued to a letter or underscore: an integer or a simple decimal, with an optional minus. */
export const NUMBER_PATTERN = /(?<![a-zA-Z_])(-?\d+(?:\.\d+)?)(?![a-zA-Z_])/g;

/** The offsets a perturbed number moves by (the paper's Appendix A). */
export const PERTURBATION_OFFSETS = [-3, -2, -1, 1, 2, 3] as const;

/** Upstream's shortest step (characters); a shorter piece joins the previous step. */
export const MIN_STEP_CHARS = 20;

const codePoints = (s: string) => [...s].length;

/** Splits a chain of thought into steps (non-empty, in order); pieces shorter than `minStepChars` join the previous. */
export function segmentCotSteps(cotText: string, minStepChars = MIN_STEP_CHARS): string[] {
  const parts: string[] = [];
  let from = 0;
  for (const m of cotText.matchAll(STEP_SPLIT_PATTERN)) {
    parts.push(cotText.slice(from, m.index));
    from = m.index + m[0].length;
  }
  parts.push(cotText.slice(from));
  const pieces = parts.map((p) => p.trim()).filter((p) => p !== '');
  if (pieces.length === 0) return cotText.trim() === '' ? [] : [cotText.trim()];
  const merged: string[] = [];
  for (const piece of pieces) {
    if (merged.length > 0 && codePoints(piece) < minStepChars) merged[merged.length - 1] += `\n${piece}`;
    else merged.push(piece);
  }
  return merged;
}

/** Whether a step reads like self-verification ("Wait", "Let me double-check", "I made a mistake", …). */
export function isSelfVerificationStep(step: string): boolean {
  return SELF_VERIFICATION_PATTERN.test(step);
}

/** Whether a text holds a number the perturbation would change. */
export function hasNumbers(text: string): boolean {
  return new RegExp(NUMBER_PATTERN.source).test(text);
}

/** Python's `str(int(x))` for a finite double. */
function pyIntString(x: number): string {
  return BigInt(Math.trunc(x)).toString();
}

/**
 * Every number offset by a draw from {@link PERTURBATION_OFFSETS} (one draw per number, left to right, from `rng`):
 * an integer stays an integer (`007` → `8`, as Python's `int` writes it), a decimal keeps its number of decimals.
 */
export function perturbNumbers(text: string, rng: PythonRandom): string {
  return text.replace(NUMBER_PATTERN, (original: string) => {
    const value = Number(original);
    const next = value + rng.choice(PERTURBATION_OFFSETS);
    const dot = original.indexOf('.');
    if (dot < 0) return pyIntString(next);
    // toFixed takes at most 100 decimals (Python formats any number; a longer decimal is cut to 100 here).
    return next.toFixed(Math.min(original.length - dot - 1, 100));
  });
}
