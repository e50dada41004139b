/**
 * Upstream's math benchmarks: GSM8K, MATH-500, AIME 2025/2026 and HMMT February/November 2025 — upstream's prompts,
 * example ids, answer extraction and the boxed-answer system prompt it recommends for them.
 */
import type { BenchmarkExample } from '../benchmark.js';
import {
  BOXED_SYSTEM_PROMPT,
  buildMessages,
  makeExampleId,
  type NativeBenchmarkSpec,
  RowError,
  requiredString,
  stringField,
  UPSTREAM_DEFAULTS,
} from './native-benchmark.js';
import { checkGsm8k, extractLastBoxedStrict, gradeAime, gradeHmmt, gradeMath500 } from './upstream-graders.js';

const boxedDefaults = { ...UPSTREAM_DEFAULTS, systemPrompt: BOXED_SYSTEM_PROMPT };

function expectedOf(example: BenchmarkExample): string {
  return typeof example.answer === 'string' ? example.answer : String(example.answer ?? '');
}

function verdict(r: { correct: boolean; extracted: string }) {
  return { correct: r.correct, score: r.correct ? 1 : 0, extracted: r.extracted };
}

/** GSM8K (`openai/gsm8k`, main, test): the question as is; the answer after `####`. */
export const gsm8k: NativeBenchmarkSpec = {
  name: 'gsm8k',
  description: 'grade-school math word problems; first \\boxed{} or the last number',
  dataset: 'openai/gsm8k',
  configs: ['main'],
  split: 'test',
  metric: 'accuracy (numeric match within 1e-5)',
  defaults: boxedDefaults,
  toExample(row, { systemPrompt }) {
    const question = requiredString(row, 'question');
    const answer = requiredString(row, 'answer');
    return {
      id: makeExampleId('gsm8k', question),
      messages: buildMessages(question, systemPrompt),
      answer: (answer.split('####').at(-1) ?? '').trim(),
    };
  },
  grade: (response, example) => verdict(checkGsm8k(response, expectedOf(example))),
};

/** MATH-500 (`HuggingFaceH4/MATH-500`, test): the reference is the last boxed answer of the solution. */
export const math500: NativeBenchmarkSpec = {
  name: 'math500',
  description: 'MATH-500 competition problems; last \\boxed{}, MATH normalisation and symbolic check',
  dataset: 'HuggingFaceH4/MATH-500',
  split: 'test',
  metric: 'accuracy (MATH answer equivalence)',
  defaults: boxedDefaults,
  toExample(row, { systemPrompt }) {
    const problem = requiredString(row, 'problem');
    const expected = extractLastBoxedStrict(stringField(row, 'solution'));
    if (expected === undefined) throw new RowError('solution', 'a solution with a \\boxed{} answer');
    return {
      id: makeExampleId('math500', problem),
      messages: buildMessages(`${problem} Put your final answer in \\boxed{}.`, systemPrompt),
      answer: expected,
      metadata: { subject: row.subject, level: row.level },
    };
  },
  grade: (response, example) => verdict(gradeMath500(response, expectedOf(example))),
};

function aimeSpec(name: string, year: string): NativeBenchmarkSpec {
  return {
    name,
    description: `AIME ${year} (MathArena, 30 problems); integer answer, first \\boxed{}`,
    dataset: `MathArena/aime_${year}`,
    split: 'train',
    metric: 'accuracy (integer match)',
    defaults: boxedDefaults,
    toExample(row, { systemPrompt }) {
      const problem = requiredString(row, 'problem', 'question', 'Problem');
      const raw = stringField(row, 'answer', 'Answer', 'expected_answer');
      const digits = /^\s*[+-]?\d+\s*$/.test(raw) ? raw : /\d+/.exec(raw)?.[0];
      if (digits === undefined) throw new RowError('answer', 'an integer answer');
      const prompt =
        `${problem}\n\nThis is an AIME problem. The answer is an integer from 000 to 999. ` +
        'Show your work step by step, then put your final answer in \\boxed{}.';
      return {
        id: makeExampleId(name, problem),
        messages: buildMessages(prompt, systemPrompt),
        answer: String(Number.parseInt(digits, 10)),
      };
    },
    grade: (response, example) => verdict(gradeAime(response, Number(expectedOf(example)))),
  };
}

/** AIME 2025 (`MathArena/aime_2025`). */
export const aime2025 = aimeSpec('aime_2025', '2025');
/** AIME 2026 (`MathArena/aime_2026`). */
export const aime2026 = aimeSpec('aime_2026', '2026');

function hmmtSpec(name: string, competition: string, label: string): NativeBenchmarkSpec {
  return {
    name,
    description: `HMMT ${label} (MathArena, 30 problems); LaTeX answers, first \\boxed{}`,
    dataset: `MathArena/hmmt_${competition}`,
    split: 'train',
    metric: 'accuracy (normalised LaTeX, numeric or symbolic match)',
    defaults: boxedDefaults,
    experimental: true,
    toExample(row, { systemPrompt }) {
      const problem = requiredString(row, 'problem', 'question');
      const expected = requiredString(row, 'answer').trim();
      const prompt =
        `${problem}\n\nThis is an HMMT competition problem. ` +
        'Show your work step by step, then put your final answer in \\boxed{}.';
      return { id: makeExampleId(name, problem), messages: buildMessages(prompt, systemPrompt), answer: expected };
    },
    grade: (response, example) => verdict(gradeHmmt(response, expectedOf(example))),
  };
}

/** HMMT February 2025 (`MathArena/hmmt_feb_2025`). */
export const hmmtFeb2025 = hmmtSpec('hmmt_feb_2025', 'feb_2025', 'February 2025');
/** HMMT November 2025 (`MathArena/hmmt_nov_2025`). */
export const hmmtNov2025 = hmmtSpec('hmmt_nov_2025', 'nov_2025', 'November 2025');
