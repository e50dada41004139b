/**
 * Problems for the true-thinking score: upstream's MATH-500 and GSM8K loaders (rows whose answer cannot be extracted
 * are left out, then a seeded Python shuffle and the first `n`), and a shipped offline set. The offline problems carry
 * a written chain of thought: the stand-in model's own greedy reasoning is rarely more than noise, so
 * `reasoning=shipped` scores these instead, to show the mechanics.
 */
import { DataError, PythonRandom } from '@cookbook/core';
import { extractBoxed, extractGsm8kAnswer } from '../graders/math-grading.js';
import { type FetchHubRowsOptions, fetchHubRows } from '../tasks/hub-rows.js';

/** One problem: the question, its known answer, and (offline set) a written chain of thought. */
export interface TTSProblem {
  question: string;
  answer: string;
  reasoning?: string;
}

/** The shipped offline problems (two of upstream's small-experiment problems, upstream's test chain of thought, and a few
 * of ours; the sum-of-residues problem is left out: its stated answer, 2500, is not the sum it asks for, 1633). */
export const OFFLINE_TTS_PROBLEMS: readonly TTSProblem[] = [
  {
    question: 'How many positive integers less than 100 are divisible by 3, 5, or 7?',
    answer: '54',
    reasoning:
      'First, count the multiples of each number below 100: 33 of 3, 19 of 5, 14 of 7.\n' +
      'Then subtract the pairs: 6 multiples of 15, 4 of 21, 2 of 35.\n' +
      'Now add back the 0 multiples of 105 below 100.\n' +
      'So the count is 33 + 19 + 14 - 6 - 4 - 2 + 0 = 54.\n' +
      'Wait, let me double-check the pairs: 99 / 15 gives 6, 99 / 21 gives 4, 99 / 35 gives 2. Yes.\n' +
      'Therefore the answer is 54.',
  },
  {
    question: 'What is the sum of the positive integers from 1 to 10?',
    answer: '55',
    reasoning:
      'First, I need to find the sum of 1 to 10.\n' +
      'We know the formula is n*(n+1)/2.\n' +
      'So the answer is 10*11/2 = 55.\n' +
      'Let me verify by pairing: 1 + 10, 2 + 9, 3 + 8, 4 + 7, 5 + 6 are 5 pairs of 11, so 55.\n' +
      'Therefore the sum is 55.',
  },
  {
    question:
      'A bag contains 5 red balls and 3 blue balls. Two balls are drawn without replacement. What is the probability that both balls are red? Express your answer as a common fraction.',
    answer: '5/14',
    reasoning:
      'First, the chance the first ball is red is 5/8.\n' +
      'Then the chance the second is red is 4/7.\n' +
      'So the probability is 5/8 * 4/7 = 20/56.\n' +
      'This simplifies to 5/14.\n' +
      'Therefore the answer is 5/14.',
  },
  {
    question: 'Tom has 12 apples and gives 5 to Ann. How many apples does Tom have left?',
    answer: '7',
    reasoning: 'Tom starts with 12 apples.\nThen he gives away 5.\nSo 12 - 5 = 7.\nTherefore he has 7 left.',
  },
  {
    question: 'What is 3 + 4?',
    answer: '7',
    reasoning: 'We add the two numbers.\nSo 3 + 4 = 7.\nTherefore the answer is 7.',
  },
  {
    question: 'Is a square a rectangle? Answer yes or no.',
    answer: 'yes',
    reasoning:
      'A rectangle has four right angles.\nSince a square has four right angles too, it is a rectangle.\nTherefore the answer is yes.',
  },
];

/** Which problems: the shipped offline set, MATH-500 or GSM8K (the last two from the Hub). */
export type TTSDatasetName = 'offline' | 'math' | 'gsm8k';

/** Largest number of Hub rows read. */
export const MAX_TTS_HUB_ROWS = 10_000;

/** `n` problems of a data set, in upstream's order (a Python shuffle seeded with `seed`). */
export async function loadTTSProblems(
  dataset: TTSDatasetName,
  n: number,
  seed: number,
  options: { fetch?: FetchHubRowsOptions['fetch'] } = {},
): Promise<TTSProblem[]> {
  if (!Number.isInteger(n) || n < 1) throw new DataError(`n_problems must be a positive integer, got ${n}`);
  let problems: TTSProblem[];
  if (dataset === 'offline') {
    problems = OFFLINE_TTS_PROBLEMS.map((p) => ({ ...p }));
  } else {
    const source =
      dataset === 'math'
        ? { dataset: 'HuggingFaceH4/MATH-500', split: 'test', q: 'problem', a: 'solution', read: extractBoxed }
        : {
            dataset: 'openai/gsm8k',
            config: 'main',
            split: 'test',
            q: 'question',
            a: 'answer',
            read: extractGsm8kAnswer,
          };
    const rows = await fetchHubRows({
      dataset: source.dataset,
      split: source.split,
      ...('config' in source ? { config: source.config } : {}),
      limit: MAX_TTS_HUB_ROWS,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
    });
    problems = [];
    for (const row of rows) {
      const q = row[source.q];
      const a = row[source.a];
      if (typeof q !== 'string' || typeof a !== 'string') continue;
      const answer = source.read(a);
      if (answer !== undefined) problems.push({ question: q, answer });
    }
  }
  new PythonRandom(seed).shuffle(problems);
  return problems.slice(0, n);
}
