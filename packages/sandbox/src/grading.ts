/**
 * Grading code by running it (upstream code RL's `sandbox_check_correctness`): the tests and the program go into a
 * sandbox with the harness ({@link HARNESS_PY}), which runs every test with a per-test limit (default 6 s); the
 * whole command gets (limit + 1) × tests + 5 seconds. The program passes only when every test passes.
 */
import { DataError } from '@cookbook/core';
import { HARNESS_PY } from './internal/harness.js';
import type { SandboxPool } from './pool.js';
import { failedResult, type Sandbox, type SandboxResult } from './sandbox.js';

/** Tests of one problem: stdin inputs and expected stdouts pairwise, or, with `fnName`, JSON-lines arguments and a JSON result. */
export interface CodeTests {
  inputs: string[];
  outputs: string[];
  /** A functional problem: the function (or `Solution` method) called with each input's JSON lines as arguments. */
  fnName?: string;
}

/** Upstream's per-test limit, seconds. */
export const DEFAULT_TEST_TIMEOUT_SECONDS = 6;
/** The most tests one problem may have. */
export const MAX_TESTS_PER_PROBLEM = 1000;

/** Upstream's limit for a whole grading: (per-test + 1) × tests + 5 seconds. */
export function totalTimeoutSeconds(tests: number, perTestSeconds = DEFAULT_TEST_TIMEOUT_SECONDS): number {
  return (perTestSeconds + 1) * tests + 5;
}

/** The outcome of grading one program. */
export interface Grade {
  passed: boolean;
  /** `Accepted`, or the harness's verdict (`Wrong Answer`, `Time Limit Exceeded`, `Runtime Error`, `Compilation Error`), or `Sandbox Error`. */
  verdict: string;
  /** The first failing test (−1: the program did not load). */
  failedTest?: number;
  result?: SandboxResult;
}

/** Options of {@link gradeCode}. */
export interface GradeOptions {
  /** Per-test limit, whole seconds. Default 6. */
  timeoutSeconds?: number;
  /** The interpreter command inside the sandbox. Default `python3`. */
  python?: string;
  signal?: AbortSignal;
}

/**
 * Checks and normalises a problem's tests (`{inputs, outputs, fn_name?}`; a list item is its lines joined). Throws a
 * {@link DataError} at `where` naming the field.
 */
export function parseCodeTests(
  value: unknown,
  where: { file?: string; line?: number; field?: string } = {},
): CodeTests {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch (e) {
      throw new DataError(`the tests are not valid JSON (${(e as Error).message})`, where);
    }
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new DataError('the tests must be an object {inputs, outputs, fn_name?}', where);
  const r = v as Record<string, unknown>;
  const text = (x: unknown): string | undefined =>
    typeof x === 'string' ? x : Array.isArray(x) && x.every((y) => typeof y === 'string') ? x.join('\n') : undefined;
  if (!Array.isArray(r.inputs) || !Array.isArray(r.outputs))
    throw new DataError('the tests need "inputs" and "outputs" lists', where);
  if (r.inputs.length === 0 || r.inputs.length !== r.outputs.length) {
    throw new DataError(
      `"inputs" and "outputs" must have the same non-zero length (got ${r.inputs.length} and ${r.outputs.length})`,
      where,
    );
  }
  if (r.inputs.length > MAX_TESTS_PER_PROBLEM)
    throw new DataError(`more than ${MAX_TESTS_PER_PROBLEM} tests (${r.inputs.length})`, where);
  const inputs = r.inputs.map(text);
  const outputs = r.outputs.map(text);
  const bad = [...inputs, ...outputs].indexOf(undefined);
  if (bad >= 0) throw new DataError('every test input and output must be a string (or a list of strings)', where);
  const fn = r.fn_name ?? r.fnName;
  if (fn !== undefined && fn !== null && (typeof fn !== 'string' || !/^[A-Za-z_]\w*$/.test(fn))) {
    throw new DataError(`fn_name must be a Python identifier, got ${JSON.stringify(fn)}`, where);
  }
  return {
    inputs: inputs as string[],
    outputs: outputs as string[],
    ...(typeof fn === 'string' ? { fnName: fn } : {}),
  };
}

/** Grades `code` against `tests` in `sandbox` (which it leaves for the caller to clean up). Never throws. */
export async function gradeCode(
  sandbox: Sandbox,
  code: string,
  tests: CodeTests,
  options: GradeOptions = {},
): Promise<Grade> {
  const perTest = options.timeoutSeconds ?? DEFAULT_TEST_TIMEOUT_SECONDS;
  const spec = {
    inputs: tests.inputs,
    outputs: tests.outputs,
    ...(tests.fnName === undefined ? {} : { fn_name: tests.fnName }),
  };
  for (const [path, content] of [
    ['tests.json', JSON.stringify(spec)],
    ['solution.py', code],
    ['run.py', HARNESS_PY],
  ] as const) {
    const w = await sandbox.writeFile(path, content);
    if (w.exitCode !== 0) return { passed: false, verdict: 'Sandbox Error', result: w };
  }
  const python = options.python ?? 'python3';
  if (!/^[\w./-]+$/.test(python))
    return {
      passed: false,
      verdict: 'Sandbox Error',
      result: failedResult(`python must be a command name or path, got ${JSON.stringify(python)}`),
    };
  const result = await sandbox.runCommand(`${python} run.py ${Math.max(1, Math.trunc(perTest))}`, {
    timeoutMs: totalTimeoutSeconds(tests.inputs.length, perTest) * 1000,
    maxOutputBytes: 64 * 1024,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (result.exitCode === 0) return { passed: true, verdict: 'Accepted', result };
  let verdict = result.exitCode === -1 ? 'Sandbox Error' : 'Runtime Error';
  let failedTest: number | undefined;
  const last = result.stdout.trim().split('\n').at(-1) ?? '';
  try {
    const meta = JSON.parse(last) as { verdict?: unknown; test?: unknown };
    if (typeof meta.verdict === 'string') verdict = meta.verdict;
    if (typeof meta.test === 'number') failedTest = meta.test;
  } catch {
    // the harness itself was stopped (deadline, memory, output): keep the sandbox's reason
  }
  if (result.metrics.timedOut) verdict = 'Time Limit Exceeded';
  return { passed: false, verdict, ...(failedTest === undefined ? {} : { failedTest }), result };
}

/** {@link gradeCode} in a fresh sandbox of `pool`; a call the pool refuses (cancelled, closed) is a failed grade. */
export async function gradeWithPool(
  pool: SandboxPool,
  code: string,
  tests: CodeTests,
  options: GradeOptions = {},
): Promise<Grade> {
  try {
    return await pool.run((sb, signal) => gradeCode(sb, code, tests, { ...options, signal }), {
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
  } catch (e) {
    return {
      passed: false,
      verdict: 'Sandbox Error',
      result: {
        stdout: '',
        stderr: (e as Error).message,
        exitCode: -1,
        metrics: { wallMs: 0, timedOut: false, outputLimitHit: false, cancelled: true },
      },
    };
  }
}

const CODE_BLOCK = /```(?:\w+)?\n([\s\S]*?)```/g;

/** Upstream's `extract_code_from_model`: the last fenced block's body, stripped; `undefined` when there is none. */
export function extractCode(response: string): string | undefined {
  let last: string | undefined;
  for (const m of response.matchAll(CODE_BLOCK)) last = m[1];
  return last?.trim();
}
