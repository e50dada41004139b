/**
 * The built-in graders (upstream passes a `grade_fn` per benchmark): exact match, contains, boxed-math equivalence,
 * multiple-choice letter, regular expression and IFEval-style instructions, plus {@link customGrader} for a
 * function of your own. Graders are pure: re-grading a saved response gives the same verdict.
 */
import { ConfigError } from '@cookbook/core';
import type { GradeInput, GradeResult, Grader, GradeTarget } from '../benchmark.js';
import { checkInstructions } from './instructions.js';
import { extractBoxed, gradeAnswer } from './math-grading.js';

function answersOf(target: GradeTarget): string[] {
  const a = target.answer;
  if (a === undefined) return [];
  return typeof a === 'string' ? [a] : [...a];
}

function verdict(correct: boolean, extracted?: string): GradeResult {
  return { correct, score: correct ? 1 : 0, ...(extracted === undefined ? {} : { extracted }) };
}

/** Lower case, surrounding quotes and final punctuation removed, whitespace collapsed. */
export function normalizeText(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^["'“‘`]+|["'”’`]+$/g, '')
    .replace(/[.!?;:,]+$/, '')
    .trim();
}

/** The reply equals an answer after {@link normalizeText}. */
export const exactMatch: Grader = ({ response, target }) => {
  const r = normalizeText(response);
  return verdict(
    answersOf(target).some((a) => normalizeText(a) === r),
    r,
  );
};

/** An answer occurs in the reply as a whole word or phrase (case-insensitive): short-answer questions. */
export const contains: Grader = ({ response, target }) => {
  const r = normalizeText(response);
  const hit = answersOf(target).find((a) => {
    const n = normalizeText(a);
    if (n === '') return false;
    const escaped = n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u').test(r);
  });
  return verdict(hit !== undefined, hit);
};

/**
 * The last `\boxed{…}` of the reply is mathematically equal to an answer (normalisation, numeric comparison and a
 * symbolic check); no boxed answer is wrong, like upstream.
 */
export const boxedMath: Grader = ({ response, target }) => {
  const boxed = extractBoxed(response);
  return verdict(boxed !== undefined && answersOf(target).some((a) => gradeAnswer(boxed, a)), boxed);
};

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The letter a multiple-choice answer stands for: the text of a choice, a letter, or a 0-based index. */
export function answerLetter(answer: string | number, choices?: readonly string[]): string | undefined {
  if (typeof answer === 'number') return Number.isInteger(answer) ? LETTERS[answer] : undefined;
  const t = answer.trim();
  // The text of a choice wins (a choice may itself be "B" or "2"); then a letter, then a 0-based index.
  const i = choices?.findIndex((c) => normalizeText(c) === normalizeText(t)) ?? -1;
  if (i >= 0) return LETTERS[i];
  if (/^\(?[A-Za-z]\)?\.?$/.test(t)) return t.replace(/[^A-Za-z]/g, '').toUpperCase();
  if (/^\d+$/.test(t) && choices !== undefined && Number(t) < choices.length) return LETTERS[Number(t)];
  return undefined;
}

/**
 * The letter the reply picks: `Answer: C`, `\boxed{C}`, `(C)`, `C)` / `C.` at the start of a line, a lone letter,
 * else the last standalone capital letter among the choices.
 */
export function extractChoiceLetter(response: string, numChoices = 26): string | undefined {
  const valid = LETTERS.slice(0, Math.max(1, Math.min(26, numChoices)));
  const ok = (l: string | undefined) =>
    l !== undefined && valid.includes(l.toUpperCase()) ? l.toUpperCase() : undefined;
  const patterns = [
    /answer(?:\s+is)?\s*[:：]?\s*\**\(?([A-Za-z])\)?(?![A-Za-z])/gi,
    /\\boxed\{\s*\(?([A-Za-z])\)?\s*\}/g,
    /^\s*\(?([A-Z])\)?\s*$/gm,
    /^\s*\(?([A-Z])[).:](?:\s|$)/gm,
    /\(([A-Z])\)/g,
  ];
  for (const p of patterns) {
    const m = [...response.matchAll(p)].at(-1);
    const l = ok(m?.[1]);
    if (l !== undefined) return l;
  }
  const lone = [...response.matchAll(/(?<![A-Za-z'])([A-Z])(?![A-Za-z'])/g)].map((m) => m[1]).filter((l) => ok(l));
  return ok(lone.at(-1));
}

/** The letter picked by the reply is the answer's letter. */
export const multipleChoice: Grader = ({ response, target }) => {
  const want = answersOf(target)
    .map((a) => answerLetter(a, target.choices))
    .filter((l): l is string => l !== undefined);
  if (want.length === 0) throw new ConfigError('multiple_choice: the answer is not a letter, an index or a choice');
  const got = extractChoiceLetter(response, target.choices?.length ?? 26);
  return verdict(got !== undefined && want.includes(got), got);
};

/** Longest regular expression accepted (characters). */
const MAX_PATTERN = 1000;

/** A regular expression from `/body/flags` or a bare body (no flags). */
function compilePattern(pattern: string): RegExp {
  if (pattern.length > MAX_PATTERN) throw new ConfigError(`regex: pattern longer than ${MAX_PATTERN} characters`);
  const m = /^\/(.*)\/([dgimsuvy]*)$/s.exec(pattern);
  try {
    return m ? new RegExp(m[1]!, m[2]!.replace('g', '')) : new RegExp(pattern);
  } catch (error) {
    throw new ConfigError(`regex: invalid pattern ${JSON.stringify(pattern)} (${(error as Error).message})`);
  }
}

/** The reply matches an answer read as a regular expression (`pattern` or `/pattern/flags`). */
export const regex: Grader = ({ response, target }) => {
  const hit = answersOf(target).find((a) => compilePattern(a).test(response));
  return verdict(hit !== undefined, hit);
};

function instructionGrader(loose: boolean, allOrNothing = false): Grader {
  return ({ response, target, prompt }) => {
    const specs = target.instructions ?? [];
    if (specs.length === 0) throw new ConfigError('instructions: the example has no instructions to check');
    const lastUser = [...prompt].reverse().find((m) => m.role === 'user');
    const followed = checkInstructions(response, specs, {
      loose,
      prompt: typeof lastUser?.content === 'string' ? lastUser.content : '',
    });
    const n = followed.filter(Boolean).length;
    const correct = n === specs.length;
    return {
      correct,
      score: allOrNothing ? (correct ? 1 : 0) : n / specs.length,
      extracted: `${n}/${specs.length} followed`,
    };
  };
}

/** Every instruction followed (strict); score = fraction followed. */
export const instructions: Grader = instructionGrader(false);
/** Like {@link instructions}, with IFEval's loose response variants. */
export const instructionsLoose: Grader = instructionGrader(true);
/**
 * Like {@link instructions} (strict), without partial credit: score 1 when every instruction is followed, else 0
 * (IFEval's prompt-level accuracy), for tasks whose checks only mean something together.
 */
export const instructionsAll: Grader = instructionGrader(false, true);

/** A grader from a plain function of the reply and the reference answer(s); `true`/`false` or a score in [0, 1]. */
export function customGrader(
  fn: (response: string, answer: string | readonly string[] | undefined, input: GradeInput) => boolean | number,
): Grader {
  return (input) => {
    const out = fn(input.response, input.target.answer, input);
    const score = typeof out === 'boolean' ? (out ? 1 : 0) : out;
    if (!Number.isFinite(score) || score < 0 || score > 1) {
      throw new ConfigError(`custom grader returned ${String(out)}; expected a boolean or a score in [0, 1]`);
    }
    return { correct: score >= 1, score };
  };
}

/** The built-in graders by name. */
export const GRADERS: Readonly<Record<string, Grader>> = {
  exact_match: exactMatch,
  contains,
  math: boxedMath,
  multiple_choice: multipleChoice,
  regex,
  instructions,
  instructions_loose: instructionsLoose,
  instructions_all: instructionsAll,
};

/** The grader an example's shape asks for: instructions, choices, else exact match. */
export function autoGraderName(target: GradeTarget): string {
  if (target.instructions !== undefined && target.instructions.length > 0) return 'instructions';
  if (target.choices !== undefined && target.choices.length > 0) return 'multiple_choice';
  return 'exact_match';
}

/** A built-in grader by name; a ConfigError listing the names otherwise. */
export function graderNamed(name: string): Grader {
  const g = GRADERS[name];
  if (g === undefined) {
    throw new ConfigError(`unknown grader "${name}"; choose one of ${Object.keys(GRADERS).join(', ')}`, {
      key: 'grader',
    });
  }
  return g;
}
