/**
 * Code RL (upstream `recipes/code_rl`): a programming problem in upstream's LiveCodeBench prompt, answered with a
 * fenced Python block that is graded by running it on the problem's tests in `@cookbook/sandbox` (upstream's
 * `run_test` semantics: every test must pass). reward = 0.1 · (has_code − 1) + correct, from the last fenced block.
 *
 * Data: DeepCoder-Preview from the Hub when online (train: `primeintellect`, `taco`, `lcbv5`; test: `codeforces`,
 * `lcbv5`; tests as a list of `{input, output, testtype, metadata}` or in TACO form `{inputs, outputs, fn_name?}`);
 * offline, a generated set of small stdin/stdout programs (read a number, print a value derived from it) that the
 * tiny stand-in can climb after a warm start on their reference programs.
 *
 * The episode is single-turn by default; `agent` in {@link buildCodeDatasets} gives upstream's agent variant instead
 * (`code-agent-env.ts`: a `check_solution(code)` tool, at most 2 turns, a trajectory token cap, −0.1 for overflow).
 */
import { DataError, type Message, Mulberry32Rng } from '@cookbook/core';
import { type FetchHubRowsOptions, fetchHubRows } from '@cookbook/eval';
import type { Renderer } from '@cookbook/renderers';
import { type CodeTests, extractCode, type Grade, parseCodeTests } from '@cookbook/sandbox';
import type { RLDataset } from '@cookbook/training';
import { ProblemDataset } from '../problem-dataset.js';
import { ProblemEnv, type ProblemEnvOptions } from '../problem-env.js';
import { CodeAgentEnv } from './code-agent-env.js';

/** A programming problem. */
export interface CodeTask {
  /** The problem statement (without the prompt around it). */
  question: string;
  tests: CodeTests;
  starterCode?: string;
  /** A correct program (offline tasks), for warm-start demonstrations. */
  reference?: string;
}

/** Grades a program on a task's tests (a sandbox pool behind it). */
export type CodeGrader = (code: string, tests: CodeTests) => Promise<Grade>;

// Upstream's LiveCodeBench instruction, format block and answer instruction (`lcb_utils.py`), verbatim: the prompt the
// hosted models are trained and evaluated with.
const LCB_SYSTEM =
  'You are an expert Python programmer. You will be given a question (problem specification) and will generate a correct Python program that matches the specification and passes all tests.';
const LCB_WITH_STARTER =
  'You will use the following starter code to write the solution to the problem and enclose your code within delimiters.';
const LCB_WITHOUT_STARTER =
  'Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test on the sample inputs). Enclose your code within delimiters as follows. Ensure that when the python program runs, it reads the inputs, runs the algorithm and writes output to STDOUT.';

/** Upstream's prompt around a problem (`fetch_live_code_bench_system_prompt`). */
export function liveCodeBenchPrompt(question: string, starterCode?: string): string {
  let prompt = `${LCB_SYSTEM}\n\n${question}`;
  if (starterCode !== undefined && starterCode.trim() !== '') {
    prompt += `### Format: ${LCB_WITH_STARTER}\n\`\`\`python\n${starterCode}\n\`\`\`\n\n`;
  } else {
    prompt += `### Format: ${LCB_WITHOUT_STARTER}\n\`\`\`python\n# YOUR CODE HERE\n\`\`\`\n\n`;
  }
  return `${prompt}### Answer: (use the provided format with backticks)\n\n`;
}

/** One problem: format = a fenced code block exists; correct = the last block passes every test. */
export class CodeProblemEnv extends ProblemEnv {
  constructor(
    readonly task: CodeTask,
    renderer: Renderer,
    readonly grade: CodeGrader,
    options: ProblemEnvOptions & { prompt?: (task: CodeTask) => string } = {},
  ) {
    super(renderer, { requireStopSequenceForFormat: false, ...options });
    this.prompt = options.prompt ?? ((t) => liveCodeBenchPrompt(t.question, t.starterCode));
  }

  private readonly prompt: (task: CodeTask) => string;

  getQuestion(): string {
    return this.prompt(this.task);
  }

  checkFormat(response: string): boolean {
    return extractCode(response) !== undefined;
  }

  async checkAnswer(response: string): Promise<boolean> {
    const code = extractCode(response);
    if (code === undefined) return false;
    return (await this.grade(code, this.task.tests)).passed;
  }

  getReferenceAnswer(): string {
    return this.task.reference ?? '(no reference program)';
  }

  override referenceResponse(): string {
    return `\`\`\`python\n${this.task.reference ?? ''}\n\`\`\``;
  }
}

const OPS: readonly { op: string; apply: (n: number, k: number) => number }[] = [
  { op: '+', apply: (n, k) => n + k },
  { op: '-', apply: (n, k) => n - k },
  { op: '*', apply: (n, k) => n * k },
];

/** Tests per generated task. */
export const OFFLINE_CODE_TESTS = 3;

/**
 * `count` small stdin/stdout tasks from a seed: "read an integer n and print n <op> k" (op one of + − ×, k in
 * 1..9: 27 tasks), 3 tests each, a reference program each. The prompt is the question alone (short: the stand-in reads
 * a short prompt, and every step samples it 32 times); online tasks get upstream's LiveCodeBench prompt.
 */
export function generateCodeTasks(count: number, seed: number): CodeTask[] {
  const rng = new Mulberry32Rng(seed);
  return Array.from({ length: count }, () => {
    const { op, apply } = OPS[rng.int(0, OPS.length - 1)]!;
    const k = rng.int(1, 9);
    const inputs: string[] = [];
    const outputs: string[] = [];
    for (let i = 0; i < OFFLINE_CODE_TESTS; i++) {
      const n = rng.int(-20, 50);
      inputs.push(`${n}\n`);
      outputs.push(`${apply(n, k)}\n`);
    }
    return {
      question: `Write a Python program that reads an integer from stdin and prints it ${op} ${k}.`,
      tests: { inputs, outputs },
      reference: `print(int(input()) ${op} ${k})`,
    };
  });
}

/** Upstream's DeepCoder-Preview subsets. */
export const DEEPCODER_DATASET = 'agentica-org/DeepCoder-Preview-Dataset';
export const DEEPCODER_TRAIN_SUBSETS = ['primeintellect', 'taco', 'lcbv5'] as const;
export const DEEPCODER_TEST_SUBSETS = ['codeforces', 'lcbv5'] as const;

function asRecord(v: unknown): Record<string, unknown> {
  if (typeof v === 'string') {
    try {
      return asRecord(JSON.parse(v));
    } catch {
      return {};
    }
  }
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/**
 * One DeepCoder row as a task (upstream `_normalize_tests` + `_build_question`): tests a list of `{input, output,
 * testtype, metadata.func_name}` or TACO's `{inputs, outputs, fn_name?}` (a list output is its first item); `undefined`
 * for a row upstream drops (no question, no tests). Tests that are not JSON raise a {@link DataError} naming the row.
 */
export function deepcoderTask(
  row: Record<string, unknown>,
  where: { file?: string; line?: number } = {},
): CodeTask | undefined {
  const question = [row.question, row.prompt, row.problem].find((q) => typeof q === 'string' && q.trim() !== '');
  if (typeof question !== 'string') return undefined;
  let raw = row.tests ?? row.ground_truth;
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch (e) {
      throw new DataError(`the tests are not valid JSON (${(e as Error).message})`, { ...where, field: 'tests' });
    }
  }
  const meta = asRecord(row.metadata);
  let tests: CodeTests;
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw) && 'inputs' in raw && 'outputs' in raw) {
    const taco = raw as { inputs: unknown[]; outputs: unknown[]; fn_name?: unknown };
    const outputs = (Array.isArray(taco.outputs) ? taco.outputs : []).map((o) => (Array.isArray(o) ? (o[0] ?? '') : o));
    tests = parseCodeTests({ inputs: taco.inputs, outputs, fn_name: taco.fn_name }, { ...where, field: 'tests' });
  } else {
    const list = (Array.isArray(raw) ? raw : [raw]).map(asRecord).filter((t) => Object.keys(t).length > 0);
    if (list.length === 0) return undefined;
    const first = list[0]!;
    const fn =
      first.testtype === 'functional' ? (asRecord(first.metadata).func_name ?? meta.func_name ?? undefined) : undefined;
    tests = parseCodeTests(
      { inputs: list.map((t) => String(t.input ?? '')), outputs: list.map((t) => String(t.output ?? '')), fn_name: fn },
      { ...where, field: 'tests' },
    );
  }
  const starter = typeof row.starter_code === 'string' && row.starter_code.trim() !== '' ? row.starter_code : undefined;
  return { question, tests, ...(starter === undefined ? {} : { starterCode: starter }) };
}

/** Reads DeepCoder-Preview (network); fails with a message naming the offline default when it cannot. */
export async function loadDeepcoderTasks(
  split: 'train' | 'test',
  limitPerSubset: number,
  fetchImpl?: FetchHubRowsOptions['fetch'],
): Promise<CodeTask[]> {
  const tasks: CodeTask[] = [];
  for (const subset of split === 'train' ? DEEPCODER_TRAIN_SUBSETS : DEEPCODER_TEST_SUBSETS) {
    let rows: Record<string, unknown>[];
    try {
      rows = await fetchHubRows({
        dataset: DEEPCODER_DATASET,
        config: subset,
        split,
        limit: limitPerSubset,
        ...(fetchImpl === undefined ? {} : { fetch: fetchImpl }),
      });
    } catch (e) {
      throw new DataError(
        `could not read ${DEEPCODER_DATASET} (${subset}, ${split}) from the Hugging Face Hub: ${(e as Error).message}. ` +
          'Without network, run code_rl with online=false (the default): the shipped offline programming tasks.',
      );
    }
    rows.forEach((row, i) => {
      const t = deepcoderTask(row, { file: `${DEEPCODER_DATASET}/${subset}/${split}`, line: i + 1 });
      if (t !== undefined) tasks.push(t);
    });
  }
  if (tasks.length === 0) throw new DataError(`${DEEPCODER_DATASET} (${split}) gave no usable tasks`);
  return tasks;
}

/** Options of {@link buildCodeDatasets}. */
export interface CodeDatasetsOptions {
  renderer: Renderer;
  grade: CodeGrader;
  batchSize: number;
  groupSize: number;
  numBatches: number;
  seed: number;
  /** DeepCoder-Preview from the Hub instead of the generated tasks. */
  online?: boolean;
  /** Test problems (0: none). */
  nTest?: number;
  /** Rows read per DeepCoder subset. Default 1000. */
  rowsPerSubset?: number;
  fetch?: FetchHubRowsOptions['fetch'];
  /** Upstream's agent variant (a `check_solution` tool, turn limit, token cap) instead of single-turn episodes. */
  agent?: {
    /** The sampler's `max_tokens` (the cap's generation reserve). */
    maxGenerationTokens: number;
    maxTurns?: number;
    maxTrajectoryTokens?: number;
    /** Declare the tool in the prompt. Default true. */
    declareTools?: boolean;
    perTestSeconds?: number;
  };
}

/** The train (and test) datasets of code RL. */
export async function buildCodeDatasets(options: CodeDatasetsOptions): Promise<{ train: RLDataset; test?: RLDataset }> {
  const nTest = options.nTest ?? 0;
  let train: CodeTask[];
  let test: CodeTask[];
  if (options.online === true) {
    const rng = new Mulberry32Rng(options.seed);
    train = rng.shuffle(await loadDeepcoderTasks('train', options.rowsPerSubset ?? 1000, options.fetch));
    test = nTest > 0 ? (await loadDeepcoderTasks('test', nTest, options.fetch)).slice(0, nTest) : [];
  } else {
    train = generateCodeTasks(options.batchSize * options.numBatches, options.seed);
    test = generateCodeTasks(nTest, options.seed + 1_000_003);
  }
  const prompt = options.online === true ? undefined : (t: CodeTask) => t.question;
  const agent = options.agent;
  const makeEnv = (t: CodeTask) =>
    agent === undefined
      ? new CodeProblemEnv(t, options.renderer, options.grade, prompt === undefined ? {} : { prompt })
      : new CodeAgentEnv({
          task: t,
          renderer: options.renderer,
          grade: options.grade,
          prompt: prompt === undefined ? liveCodeBenchPrompt(t.question, t.starterCode) : prompt(t),
          ...agent,
        });
  const dataset = (problems: CodeTask[], numBatches: number, groupSize: number, batchSize: number) =>
    new ProblemDataset({ problems, batchSize, groupSize, makeEnv, datasetName: 'code', numBatches });
  return {
    train: dataset(train, options.numBatches, options.groupSize, options.batchSize),
    ...(test.length > 0 ? { test: dataset(test, 1, 1, test.length) } : {}),
  };
}

/** Demonstrations of generated tasks (their reference programs), seeded apart from training. */
export function codeDemonstrations(count: number, seed: number, renderer: Renderer, grade: CodeGrader): Message[][] {
  return generateCodeTasks(count, seed).map((t) =>
    new CodeProblemEnv(t, renderer, grade, { prompt: (x) => x.question }).demonstration(),
  );
}
