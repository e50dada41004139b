/**
 * Upstream's code benchmarks, graded by running the model's program in `@cookbook/sandbox` (by default the local
 * bubblewrap sandbox: no network, its own folder, CPU/memory/process/output limits):
 *
 * - **MBPP** (`google-research-datasets/mbpp`, `sanitized`, test): upstream's prompt (the task, its first assert as
 *   the example test, the instruction) and example id (`mbpp_<task_id>`); the program is the reply's code followed
 *   by the row's asserts, run with upstream's 15 s limit; it passes when it exits with status 0. Deliberate
 *   difference: the row's `test_imports` go before the asserts (as MBPP's own harness does; upstream leaves them
 *   out, which fails a correct solution whose asserts need e.g. `math` when the solution did not import it).
 * - **LiveCodeBench** (`livecodebench/code_generation_lite`, test): upstream's example id and per-difficulty
 *   metrics; graded with the LiveCodeBench `run_test` harness that `code_rl` uses (stdin/stdout and functional
 *   tests, 6 s a test, lines compared stripped, floats with `allclose`, pass only if every test passes). Deliberate
 *   differences from upstream's eval builder, which runs the program once per public stdin test and compares the
 *   whole stripped stdout (so every LeetCode-style functional problem fails there): the public and the private
 *   tests run, functional ones call `func_name`, and the prompt is LiveCodeBench's own (upstream's code RL
 *   `fetch_live_code_bench_system_prompt`: the instruction, the format block with the starter code, the answer
 *   instruction), which asks for the starter code's function where there is one.
 *
 * Both take the code of a reply as upstream's `extract_python_code` does: the first ```` ```python ```` block, else the
 * last fenced block, else the whole reply.
 */
import type { CodeTests, SandboxPool } from '@cookbook/sandbox';
import { gradeWithPool } from '@cookbook/sandbox';
import type { BenchmarkExample, GradedSample, GradeResult } from '../benchmark.js';
import { liveCodeBenchTests } from './lcb-tests.js';
import {
  buildMessages,
  makeExampleId,
  type NativeBenchmarkSpec,
  type NativeGradeContext,
  RowError,
  requiredString,
  stringField,
  stringListField,
  UPSTREAM_DEFAULTS,
} from './native-benchmark.js';

/** Upstream's limit for one MBPP program (solution and asserts), seconds. */
export const MBPP_TIMEOUT_SECONDS = 15;
/** LiveCodeBench's limit per test, seconds (the grader's total is (6 + 1) × tests + 5). */
export const LIVECODEBENCH_TEST_TIMEOUT_SECONDS = 6;
/** Bytes of a program's output kept while grading (more stops it: a failed grade). */
const GRADE_OUTPUT_BYTES = 64 * 1024;

const PYTHON_BLOCK = /```python\s*\n([\s\S]*?)\n```/;
const ANY_BLOCK = /```(?:\w*)\s*\n([\s\S]*?)\n```/g;

/**
 * Upstream's `extract_python_code`: the first ```` ```python ```` block, else the last fenced block of any language,
 * else the whole reply; stripped.
 */
export function extractPythonCode(response: string): string {
  const python = PYTHON_BLOCK.exec(response);
  if (python) return python[1]!.trim();
  let last: string | undefined;
  for (const m of response.matchAll(ANY_BLOCK)) last = m[1];
  return (last ?? response).trim();
}

function poolOf(context: NativeGradeContext, name: string): SandboxPool {
  if (context.sandbox === undefined) {
    throw new Error(`${name} runs the model's code: load it with loadNativeBenchmark, which gives it a sandbox pool`);
  }
  return context.sandbox;
}

function result(passed: boolean, verdict: string): GradeResult {
  return { correct: passed, score: passed ? 1 : 0, extracted: verdict };
}

/** The MBPP program: the solution, then the row's test imports and asserts (one a line). */
export function mbppProgram(code: string, testImports: readonly string[], testList: readonly string[]): string {
  return `${code}\n\n${[...testImports, ...testList].join('\n')}`;
}

/**
 * The MBPP verdict of a program: `Accepted` (exit 0), `Time Limit Exceeded`, or the last line of its stderr.
 * `timeoutSeconds` defaults to upstream's {@link MBPP_TIMEOUT_SECONDS}. Never throws.
 */
export async function gradeMbppProgram(
  pool: SandboxPool,
  program: string,
  timeoutSeconds = MBPP_TIMEOUT_SECONDS,
): Promise<GradeResult> {
  try {
    return await pool.run(async (sandbox, signal) => {
      const w = await sandbox.writeFile('test_code.py', program);
      if (w.exitCode !== 0) return result(false, `Sandbox Error: ${w.stderr.trim().split('\n').at(-1) ?? ''}`);
      const r = await sandbox.runCommand('python3 test_code.py', {
        timeoutMs: timeoutSeconds * 1000,
        maxOutputBytes: GRADE_OUTPUT_BYTES,
        signal,
      });
      if (r.exitCode === 0) return result(true, 'Accepted');
      if (r.metrics.timedOut) return result(false, 'Time Limit Exceeded');
      const reason = r.stderr.trim().split('\n').at(-1) ?? '';
      return result(false, reason === '' ? `exit code ${r.exitCode}` : reason.slice(0, 200));
    });
  } catch (e) {
    return result(false, `Sandbox Error: ${(e as Error).message}`);
  }
}

/** MBPP, sanitized (`google-research-datasets/mbpp`): write a function that passes the row's asserts. */
export const mbpp: NativeBenchmarkSpec = {
  name: 'mbpp',
  description: 'MBPP sanitized: short Python functions, graded by their asserts in the sandbox',
  dataset: 'google-research-datasets/mbpp',
  configs: ['sanitized'],
  split: 'test',
  metric: 'pass@1 (the program with the asserts exits 0)',
  defaults: UPSTREAM_DEFAULTS,
  requiresSandbox: true,
  toExample(row, { systemPrompt }) {
    const task = stringField(row, 'prompt', 'text');
    const tests = stringListField(row, 'test_list');
    // Upstream skips a row without a task or asserts.
    if (task === '' || tests.length === 0) return undefined;
    const prompt =
      `${task}\n\nExample test: \`${tests[0]}\`\n\n` +
      'Write a Python function that satisfies the requirements. ' +
      'Provide ONLY the function definition in a ```python code block.';
    const taskId = row.task_id;
    if (taskId !== undefined && taskId !== null && typeof taskId !== 'number' && typeof taskId !== 'string') {
      throw new RowError('task_id', 'a number');
    }
    return {
      id: taskId === undefined || taskId === null ? makeExampleId('mbpp', task) : `mbpp_${taskId}`,
      messages: buildMessages(prompt, systemPrompt),
      metadata: { test_list: tests, test_imports: stringListField(row, 'test_imports') },
    };
  },
  async grade(response, example, context) {
    const meta = example.metadata ?? {};
    const list = (v: unknown) => (Array.isArray(v) ? v.map(String) : []);
    const program = mbppProgram(extractPythonCode(response), list(meta.test_imports), list(meta.test_list));
    return gradeMbppProgram(poolOf(context, 'mbpp'), program);
  },
};

/** The LiveCodeBench prompt around a problem (upstream code RL's `fetch_live_code_bench_system_prompt`). */
export function liveCodeBenchPrompt(question: string, starterCode: string): string {
  const format = starterCode
    ? 'You will use the following starter code to write the solution to the problem and enclose your code within ' +
      `delimiters.\n\`\`\`python\n${starterCode}\n\`\`\`\n\n`
    : 'Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test on the ' +
      'sample inputs). Enclose your code within delimiters as follows. Ensure that when the python program runs, it ' +
      'reads the inputs, runs the algorithm and writes output to STDOUT.\n```python\n# YOUR CODE HERE\n```\n\n';
  return (
    'You are an expert Python programmer. You will be given a question (problem specification) and will generate a ' +
    `correct Python program that matches the specification and passes all tests.\n\n${question}` +
    `### Format: ${format}### Answer: (use the provided format with backticks)\n\n`
  );
}

/**
 * LiveCodeBench's verdict on a reply: its code (see {@link extractPythonCode}) on every test in the LiveCodeBench
 * harness, `timeoutSeconds` a test (default {@link LIVECODEBENCH_TEST_TIMEOUT_SECONDS}); `extracted` is the
 * harness's verdict and the first failing test. Never throws.
 */
export async function gradeLiveCodeBenchReply(
  pool: SandboxPool,
  response: string,
  tests: CodeTests,
  timeoutSeconds = LIVECODEBENCH_TEST_TIMEOUT_SECONDS,
): Promise<GradeResult> {
  const g = await gradeWithPool(pool, extractPythonCode(response), tests, { timeoutSeconds });
  return result(g.passed, g.failedTest === undefined ? g.verdict : `${g.verdict} (test ${g.failedTest})`);
}

function testsOf(example: BenchmarkExample): CodeTests {
  const t = example.metadata?.tests as CodeTests | undefined;
  if (t === undefined) throw new Error(`example ${example.id} has no tests`);
  return t;
}

/** Upstream's LiveCodeBench metrics: `livecodebench/pass_at_1` and `livecodebench/<difficulty>/pass_at_1`. */
function liveCodeBenchAggregate(samples: readonly GradedSample[]): Record<string, number> {
  const rate = (xs: readonly GradedSample[]) => xs.filter((s) => s.correct).length / Math.max(1, xs.length);
  const out: Record<string, number> = { 'livecodebench/pass_at_1': rate(samples) };
  const byDifficulty = new Map<string, GradedSample[]>();
  for (const s of samples) {
    const d = s.example.metadata?.difficulty;
    const key = typeof d === 'string' && d !== '' ? d : 'unknown';
    byDifficulty.set(key, [...(byDifficulty.get(key) ?? []), s]);
  }
  for (const d of [...byDifficulty.keys()].sort()) out[`livecodebench/${d}/pass_at_1`] = rate(byDifficulty.get(d)!);
  return out;
}

/** LiveCodeBench (`livecodebench/code_generation_lite`): contest problems, stdin/stdout or a function to write. */
export const livecodebench: NativeBenchmarkSpec = {
  name: 'livecodebench',
  description: 'LiveCodeBench contest problems (stdin/stdout and functional), LiveCodeBench harness in the sandbox',
  dataset: 'livecodebench/code_generation_lite',
  split: 'test',
  metric: 'pass@1 (every public and private test passes)',
  defaults: UPSTREAM_DEFAULTS,
  requiresSandbox: true,
  toExample(row, { systemPrompt }) {
    const question = requiredString(row, 'question_content', 'question');
    const starter = stringField(row, 'starter_code');
    const tests = liveCodeBenchTests(row);
    return {
      id: makeExampleId('livecodebench', question),
      messages: buildMessages(liveCodeBenchPrompt(question, starter), systemPrompt),
      metadata: {
        tests,
        difficulty: stringField(row, 'difficulty') || 'unknown',
        platform: stringField(row, 'platform'),
      },
    };
  },
  grade: (response, example, context) =>
    gradeLiveCodeBenchReply(poolOf(context, 'livecodebench'), response, testsOf(example)),
  aggregate: liveCodeBenchAggregate,
  experimental: true,
};
