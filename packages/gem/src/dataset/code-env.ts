/**
 * GEM's code environment (`code_env.py` + `utils/sandbox.py`), single turn: the observation is a programming problem;
 * the response's last fenced code block (```` ```lang\n…``` ````) is run as a Python program once per test, stdin → stdout,
 * and the reward is 1.0 when every run succeeds and prints the expected output (both `strip()`ped), else 0.0; no code
 * block is −0.1. As in GEM: at most 12 tests, the ones with the longest inputs; a test given as a list is its items
 * joined by newlines; code naming a process, thread, socket, `resource` / `ctypes` module, `os.system` / `os.exec…` /
 * `sys.exit` (GEM's string check) fails without running.
 *
 * Each run: `python3 -I` in a fresh `@cookbook/sandbox` sandbox (by default the local bubblewrap one: no network, no
 * file outside its own folder, CPU, memory, process, file-size and output limits, every process gone afterwards), with
 * GEM's wall-clock limit (10 s), an address-space limit (512 MB) and socket connects and lookups that raise as well.
 * Where the machine cannot isolate, the env refuses to start (naming the options) rather than run code unconfined.
 * Difference from GEM: a program that fails with a NameError is not re-run with GEM's block of extra imports
 * prepended (import what you use).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ConfigError, DataError, parseJsonLine, Sfc32Rng } from '@cookbook/core';
import type { Env, ResetResult, StepResult } from '../core/env.js';
import { TERMINAL_STATE } from '../core/env.js';
import { defaultSandboxMaker, runSandboxedPython, type SandboxMaker } from '../core/sandboxed-python.js';

/** One problem and its tests (stdin inputs and expected stdouts, pairwise). */
export interface CodeItem {
  question: string;
  tests: { inputs: string[]; outputs: string[] };
}

/** Largest dataset file read. */
export const MAX_CODE_DATASET_BYTES = 256 * 1024 * 1024;

function testText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n');
  return undefined;
}

/**
 * Reads `{problem, tests}` records (GEM's keys; `tests` = `{inputs, outputs}` or that object as a JSON string), one
 * JSON object per line. Errors name the file, line and field.
 */
export function readCodeDataset(path: string, options: { questionKey?: string; testKey?: string } = {}): CodeItem[] {
  const qKey = options.questionKey ?? 'problem';
  const tKey = options.testKey ?? 'tests';
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new DataError(`cannot read the dataset: ${(e as Error).message}`, { file: path });
  }
  if (text.length > MAX_CODE_DATASET_BYTES)
    throw new DataError(`larger than ${MAX_CODE_DATASET_BYTES} bytes`, { file: path });
  const items: CodeItem[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const where = { file: path, line: i + 1 };
    const r = parseJsonLine(line, where) as Record<string, unknown>;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) throw new DataError('expected a JSON object', where);
    const question = r[qKey];
    if (typeof question !== 'string' || question.trim() === '') {
      throw new DataError('expected a non-empty string', { ...where, field: qKey });
    }
    let tests = r[tKey];
    if (typeof tests === 'string') {
      try {
        tests = JSON.parse(tests);
      } catch {
        throw new DataError('a string that is not JSON', { ...where, field: tKey });
      }
    }
    const t = tests as { inputs?: unknown; outputs?: unknown } | null;
    const inputs = Array.isArray(t?.inputs) ? t.inputs.map(testText) : undefined;
    const outputs = Array.isArray(t?.outputs) ? t.outputs.map(testText) : undefined;
    if (
      inputs === undefined ||
      outputs === undefined ||
      inputs.length === 0 ||
      inputs.length !== outputs.length ||
      inputs.some((x) => x === undefined) ||
      outputs.some((x) => x === undefined)
    ) {
      throw new DataError('expected {inputs: [...], outputs: [...]} of equal, non-zero length (strings or lists)', {
        ...where,
        field: tKey,
      });
    }
    items.push({ question, tests: { inputs: inputs as string[], outputs: outputs as string[] } });
  }
  if (items.length === 0) throw new DataError('the dataset has no records', { file: path });
  return items;
}

const CODE_BLOCK = /```(?:\w+)?\n([\s\S]*?)```/g;

/** GEM's `extract_code_from_model`: the last fenced block's body, stripped; `undefined` when there is none. */
export function extractCode(response: string): string | undefined {
  let last: string | undefined;
  for (const m of response.matchAll(CODE_BLOCK)) last = m[1];
  return last?.trim();
}

const FORBIDDEN = [
  ...['subprocess', 'multiprocessing', 'threading', 'socket', 'psutil', 'resource', 'ctypes'].flatMap((m) => [
    `import ${m}`,
    `from ${m}`,
  ]),
  'os.system',
  'os.popen',
  'os.spawn',
  'os.fork',
  'os.exec',
  'sys.exit',
  'os._exit',
  'os.kill',
];

/** GEM's static refusal (its unsandboxed mode): the code names a module or call from its forbidden list. */
export function hasForbiddenCode(code: string): boolean {
  return FORBIDDEN.some((f) => code.includes(f));
}

const PRELUDE = `
import resource, socket, sys
_limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (_limit, _limit))
def _no_network(*args, **kwargs):
    raise OSError("network access is disabled")
socket.socket.connect = _no_network
socket.socket.connect_ex = _no_network
socket.create_connection = _no_network
socket.getaddrinfo = _no_network
_path = sys.argv[2]
sys.argv = [_path]
with open(_path, encoding="utf-8") as _f:
    _src = _f.read()
del resource, socket, _limit, _no_network, _f
exec(compile(_src, _path, "exec"), {"__name__": "__main__"})
`;

/** Limits of one program run. */
export interface RunLimits {
  timeoutMs: number;
  memoryBytes: number;
  /** Characters of stdout / stderr kept. */
  maxOutputChars: number;
  python: string;
  /** The sandbox each run gets. Default: the local bubblewrap sandbox. */
  makeSandbox?: SandboxMaker;
}

/** Runs `code` as a program with `stdin` in a fresh sandbox; `ok` = exit status 0 within the limits. */
export async function runPythonProgram(
  code: string,
  stdin: string,
  limits: RunLimits,
): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  const r = await runSandboxedPython({
    python: limits.python,
    prelude: PRELUDE,
    args: [String(limits.memoryBytes), 'solution.py'],
    files: { 'solution.py': code },
    stdin,
    timeoutMs: limits.timeoutMs,
    maxOutputBytes: limits.maxOutputChars * 4,
    makeSandbox: limits.makeSandbox ?? defaultSandboxMaker(limits.python),
  });
  let stderr = r.stderr;
  if (r.timedOut) stderr += `TimeoutError: the program ran longer than ${limits.timeoutMs / 1000} s`;
  return { ok: r.ok, stdout: r.stdout, stderr };
}

/** Options of {@link CodeEnv}. */
export interface CodeEnvOptions {
  dataset: readonly CodeItem[];
  /** Seeds the item order. Default 0. */
  seed?: number;
  /** Tests run per answer (the longest inputs). Default 12 (GEM). */
  maxTests?: number;
  /** Per-run wall-clock limit in seconds. Default 10 (GEM). */
  timeoutSeconds?: number;
  /** Per-run address-space limit in MB. Default 512. */
  memoryMb?: number;
  /** The interpreter. Default `python3`. */
  python?: string;
  /** The sandbox each run gets. Default: the local bubblewrap sandbox (refused where it cannot isolate). */
  makeSandbox?: SandboxMaker;
}

/** A single-turn code env over a dataset: reward 1 when the program passes every selected test. */
export class CodeEnv implements Env {
  envId?: string;
  readonly dataset: readonly CodeItem[];
  readonly seed: number;
  readonly maxTests: number;
  private readonly limits: RunLimits;
  private order: number[] = [];
  private cursor = 0;
  private epoch = 0;
  private current: CodeItem | undefined;

  constructor(options: CodeEnvOptions) {
    if (options.dataset.length === 0) throw new DataError('a code env needs at least one item');
    this.dataset = options.dataset;
    this.seed = options.seed ?? 0;
    this.maxTests = options.maxTests ?? 12;
    this.limits = {
      timeoutMs: (options.timeoutSeconds ?? 10) * 1000,
      memoryBytes: (options.memoryMb ?? 512) * 1024 * 1024,
      maxOutputChars: 1024 * 1024,
      python: options.python ?? 'python3',
    };
    const probe = spawnSync(this.limits.python, ['--version'], { stdio: 'ignore', timeout: 10_000 });
    if (probe.error !== undefined || probe.status !== 0) {
      throw new ConfigError(
        `the code env runs answers with "${this.limits.python}", which is not installed or not on PATH`,
        { key: 'python' },
      );
    }
    this.limits.makeSandbox = options.makeSandbox ?? defaultSandboxMaker(this.limits.python);
    this.reshuffle();
  }

  private reshuffle(): void {
    this.order = new Sfc32Rng(this.seed + this.epoch).shuffle(this.dataset.map((_, i) => i));
    this.cursor = 0;
  }

  /** The item of the current episode. */
  get item(): CodeItem | undefined {
    return this.current;
  }

  async reset(seed?: number): Promise<ResetResult> {
    let index: number;
    if (seed !== undefined) index = new Sfc32Rng(seed).int(0, this.dataset.length - 1);
    else {
      if (this.cursor >= this.order.length) {
        this.epoch++;
        this.reshuffle();
      }
      index = this.order[this.cursor++]!;
    }
    this.current = this.dataset[index]!;
    return { observation: this.current.question, info: {} };
  }

  /** The tests an answer runs: all, or the `maxTests` with the longest inputs (ties in dataset order). */
  selectedTests(item: CodeItem): { input: string; output: string }[] {
    const all = item.tests.inputs.map((input, i) => ({ input, output: item.tests.outputs[i]! }));
    if (all.length <= this.maxTests) return all;
    return all
      .map((t, i) => ({ t, i }))
      .sort((a, b) => [...b.t.input].length - [...a.t.input].length || a.i - b.i)
      .slice(0, this.maxTests)
      .map((x) => x.t);
  }

  async step(action: string): Promise<StepResult> {
    if (this.current === undefined) throw new DataError('step() before reset(): call reset() first');
    const code = extractCode(action);
    if (code === undefined) {
      return { observation: TERMINAL_STATE, reward: -0.1, terminated: true, truncated: true, info: {} };
    }
    let passed = !hasForbiddenCode(code);
    let failedTest: number | undefined;
    if (passed) {
      for (const [i, t] of this.selectedTests(this.current).entries()) {
        const r = await runPythonProgram(code, t.input, this.limits);
        if (!r.ok || r.stdout.trim() !== t.output.trim()) {
          passed = false;
          failedTest = i;
          break;
        }
      }
    }
    return {
      observation: TERMINAL_STATE,
      reward: passed ? 1 : 0,
      terminated: true,
      truncated: true,
      info: { correct: passed, ...(failedTest === undefined ? {} : { failedTest }) },
    };
  }

  sampleRandomAction(): string {
    return '```python\nprint(input())\n```';
  }
}
