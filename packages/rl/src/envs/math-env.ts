/**
 * Math RL environments (upstream `recipes/math_rl/math_env.py`, `arithmetic_env.py`): arithmetic generated from a
 * seed, MATH-style problems answered in `\boxed{}`, and GSM8K. Hub datasets are read through the Hugging Face
 * datasets-server rows API when online; offline, a generated problem set stands in for MATH and GSM8K is read
 * from a local JSONL file.
 */
import { readFile } from 'node:fs/promises';
import { ConfigError, DataError, type Message, Mulberry32Rng } from '@cookbook/core';
import { extractBoxed, extractGsm8kAnswer, fetchHubRows, gradeAnswer } from '@cookbook/eval';
import type { Renderer } from '@cookbook/renderers';
import type { RLDataset } from '@cookbook/training';
import { ProblemDataset } from '../problem-dataset.js';
import { ProblemEnv, type ProblemEnvOptions } from '../problem-env.js';

/** A question with its reference answer. */
export interface MathProblem {
  question: string;
  answer: string;
}

/** Appended to MATH questions. */
export const MATH_SUFFIX = ' Write your answer in \\boxed{} format.';
/** Appended to GSM8K questions. */
export const GSM8K_SUFFIX = ' Provide a numerical answer without units, written inside \\boxed{}.';

/** A one-shot example that shows the `\boxed{}` format (upstream uses the same strawberry question). */
export function standardFewshotPrefix(): Message[] {
  return [
    { role: 'user', content: `How many r's are in strawberry?${MATH_SUFFIX}` },
    {
      role: 'assistant',
      content: "Let's spell the word out: s-t-r-a-w-b-e-r-r-y. The r's are at positions 3, 8 and 9. \\boxed{3}",
    },
  ];
}

/** The last integer in `text`, or undefined. */
export function lastInteger(text: string): number | undefined {
  const matches = text.match(/-?\d+/g);
  const last = matches?.[matches.length - 1];
  return last === undefined ? undefined : Number(last);
}

/** "What is x + y?" graded by the last integer of the response; the format is always accepted. */
export class ArithmeticEnv extends ProblemEnv {
  readonly x: number;
  readonly y: number;

  constructor(x: number, y: number, renderer: Renderer, options: ProblemEnvOptions = {}) {
    super(renderer, options);
    this.x = x;
    this.y = y;
  }

  getQuestion(): string {
    return `What is ${this.x} + ${this.y}?`;
  }

  checkAnswer(response: string): boolean {
    return lastInteger(response) === this.x + this.y;
  }

  checkFormat(_response: string): boolean {
    return true;
  }

  getReferenceAnswer(): string {
    return String(this.x + this.y);
  }
}

/** A problem answered in `\boxed{}`: format = a boxed answer exists; correct = it grades equal to the reference. */
export class MathEnv extends ProblemEnv {
  readonly problem: MathProblem;
  readonly suffix: string;

  constructor(problem: MathProblem, renderer: Renderer, options: ProblemEnvOptions & { suffix?: string } = {}) {
    super(renderer, options);
    this.problem = problem;
    this.suffix = options.suffix ?? MATH_SUFFIX;
  }

  getQuestion(): string {
    return this.problem.question + this.suffix;
  }

  checkFormat(response: string): boolean {
    return extractBoxed(response) !== undefined;
  }

  checkAnswer(response: string): boolean {
    return gradeAnswer(extractBoxed(response), this.problem.answer);
  }

  getReferenceAnswer(): string {
    return this.problem.answer;
  }

  override referenceResponse(): string {
    return `\\boxed{${this.problem.answer}}`;
  }
}

/** Arithmetic problems `x + y` with x, y drawn from [0, maxOperand] by a seeded generator. */
export function generateArithmeticProblems(count: number, seed: number, maxOperand = 100): { x: number; y: number }[] {
  const rng = new Mulberry32Rng(seed);
  return Array.from({ length: count }, () => ({ x: rng.int(0, maxOperand), y: rng.int(0, maxOperand) }));
}

/**
 * A generated stand-in for MATH (offline): sums, products, differences, and fraction reductions whose answers
 * exercise the normaliser (`\frac{a}{b}`).
 */
export function generateMathProblems(count: number, seed: number): MathProblem[] {
  const rng = new Mulberry32Rng(seed);
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  return Array.from({ length: count }, () => {
    const kind = rng.int(0, 3);
    const a = rng.int(2, 20);
    const b = rng.int(2, 20);
    if (kind === 0) return { question: `Compute $${a} + ${b}$.`, answer: String(a + b) };
    if (kind === 1) return { question: `Compute $${a} \\times ${b}$.`, answer: String(a * b) };
    if (kind === 2) return { question: `Compute $${a} - ${b}$.`, answer: String(a - b) };
    const g = gcd(a, b);
    const answer = b / g === 1 ? String(a / g) : `\\frac{${a / g}}{${b / g}}`;
    return { question: `Simplify $\\frac{${a}}{${b}}$ to lowest terms.`, answer };
  });
}

/** A GSM8K row `{question, answer}` → a problem whose answer is the text after `####`. */
export function parseGsm8kRow(row: { question: string; answer: string }, line?: number): MathProblem {
  const answer = extractGsm8kAnswer(row.answer);
  if (answer === undefined) {
    throw new DataError('a GSM8K answer must end with a "#### <answer>" line', {
      ...(line !== undefined ? { line } : {}),
      field: 'answer',
    });
  }
  return { question: row.question, answer };
}

/** Read GSM8K-format JSONL (`{"question": …, "answer": "… #### 42"}` per line). */
export async function loadGsm8kJsonl(path: string): Promise<MathProblem[]> {
  const text = await readFile(path, 'utf8');
  const out: MathProblem[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (err) {
      throw new DataError(`invalid JSON: ${err instanceof Error ? err.message : String(err)}`, {
        file: path,
        line: i + 1,
      });
    }
    const r = row as { question?: unknown; answer?: unknown };
    if (typeof r.question !== 'string' || typeof r.answer !== 'string') {
      throw new DataError('each line needs string fields "question" and "answer"', { file: path, line: i + 1 });
    }
    try {
      out.push(parseGsm8kRow({ question: r.question, answer: r.answer }, i + 1));
    } catch (err) {
      if (err instanceof DataError) throw new DataError(err.message, { file: path, line: i + 1, field: 'answer' });
      throw err;
    }
  });
  return out;
}

/** Which math environment. */
export type MathEnvName = 'arithmetic' | 'math' | 'gsm8k';

/** Options of {@link buildMathDatasets}. */
export interface MathDatasetOptions {
  env: MathEnvName;
  renderer: Renderer;
  /** Problems per batch. */
  batchSize: number;
  /** Rollouts per problem. */
  groupSize: number;
  /** Number of training batches. */
  numBatches: number;
  seed?: number;
  /** Weight of the format term (see ProblemEnv). Default 0.1. */
  formatCoef?: number;
  /** Require a clean stop for the format term. Default true. */
  requireStopSequenceForFormat?: boolean;
  /** Prepend the one-shot `\boxed{}` example (math, gsm8k). Default true. */
  fewshot?: boolean;
  /** Largest arithmetic operand. Default 100. */
  maxOperand?: number;
  /** math / gsm8k: read from the Hub (network) instead of the offline source. Default false. */
  online?: boolean;
  /** gsm8k offline: JSONL file with `question` and GSM8K-style `answer`. */
  gsm8kPath?: string;
  /** Test problems (one group each, `groupSize` rollouts). Default 0: no test set. */
  numTestProblems?: number;
}

/** The training (and optional test) dataset of a math environment. */
export async function buildMathDatasets(options: MathDatasetOptions): Promise<{ train: RLDataset; test?: RLDataset }> {
  const seed = options.seed ?? 0;
  const total = options.batchSize * options.numBatches;
  const nTest = options.numTestProblems ?? 0;
  const envOptions: ProblemEnvOptions = {
    formatCoef: options.formatCoef ?? 0.1,
    requireStopSequenceForFormat: options.requireStopSequenceForFormat ?? true,
  };
  const fewshot = options.fewshot ?? true;
  const make = <P>(problems: P[], makeEnv: (p: P) => ProblemEnv, name: string, batchSize: number, numBatches: number) =>
    new ProblemDataset({
      problems,
      batchSize,
      groupSize: options.groupSize,
      makeEnv,
      datasetName: name,
      numBatches,
    });
  const split = <P>(all: P[], makeEnv: (p: P) => ProblemEnv, name: string) => {
    const train = make(
      all.slice(0, Math.max(1, all.length - nTest)),
      makeEnv,
      name,
      options.batchSize,
      options.numBatches,
    );
    if (nTest === 0) return { train };
    const test = make(all.slice(-nTest), makeEnv, name, nTest, 1);
    return { train, test };
  };
  if (options.env === 'arithmetic') {
    const problems = generateArithmeticProblems(total + nTest, seed, options.maxOperand ?? 100);
    return split(problems, (p) => new ArithmeticEnv(p.x, p.y, options.renderer, envOptions), 'arithmetic');
  }
  const convoPrefix = fewshot ? standardFewshotPrefix() : [];
  if (options.env === 'math') {
    let problems: MathProblem[];
    if (options.online) {
      const rows = await fetchHubRows({ dataset: 'HuggingFaceH4/MATH-500', split: 'test', limit: total + nTest });
      problems = rows.map((r) => ({ question: String(r.problem), answer: String(r.answer) }));
    } else problems = generateMathProblems(total + nTest, seed);
    return split(problems, (p) => new MathEnv(p, options.renderer, { ...envOptions, convoPrefix }), 'math');
  }
  if (options.env === 'gsm8k') {
    let problems: MathProblem[];
    if (options.online) {
      const rows = await fetchHubRows({
        dataset: 'openai/gsm8k',
        config: 'main',
        split: 'train',
        limit: total + nTest,
      });
      problems = rows.map((r) => parseGsm8kRow({ question: String(r.question), answer: String(r.answer) }));
    } else if (options.gsm8kPath !== undefined) problems = await loadGsm8kJsonl(options.gsm8kPath);
    else {
      throw new ConfigError('env=gsm8k needs online=true (Hub) or gsm8k_path=<file.jsonl>', { key: 'gsm8k_path' });
    }
    return split(
      problems,
      (p) => new MathEnv(p, options.renderer, { ...envOptions, convoPrefix, suffix: GSM8K_SUFFIX }),
      'gsm8k',
    );
  }
  throw new ConfigError(`unknown math env "${String(options.env)}"`, { key: 'env' });
}
