/**
 * Upstream's native benchmarks (`eval/benchmarks/*.py`): each one is a {@link NativeBenchmarkSpec} — where upstream
 * reads it (dataset, configs, split), how a dataset row becomes an example (upstream's prompt and example id), how a
 * reply is graded (`upstream-graders.ts`), upstream's defaults and its extra result metrics — plus a small offline
 * sample in the dataset's own row format (`data/native/<name>.jsonl`, written for this project, not copied rows).
 * Add a benchmark with one spec file and one line in `registry.ts`.
 */
import { createHash } from 'node:crypto';
import { DataError, type Message } from '@cookbook/core';
import type { SandboxPool } from '@cookbook/sandbox';
import type { BenchmarkExample, GradedSample, GradeResult } from '../benchmark.js';

/** The sampling defaults upstream's runner uses for a benchmark (`BenchmarkConfig` and the builder's overrides). */
export interface NativeDefaults {
  temperature: number;
  maxTokens: number;
  concurrency: number;
  timeoutSeconds: number;
  /** The benchmark's recommended system prompt, used when none is given; null = none. */
  systemPrompt: string | null;
}

/** Upstream's `BenchmarkConfig` defaults (temperature 0.6, 32768 tokens, 64 in flight, 300 s per example). */
export const UPSTREAM_DEFAULTS: NativeDefaults = {
  temperature: 0.6,
  maxTokens: 32768,
  concurrency: 64,
  timeoutSeconds: 300,
  systemPrompt: null,
};

/** The system prompt upstream recommends for its boxed-answer math benchmarks. */
export const BOXED_SYSTEM_PROMPT = 'Put your final answer in \\boxed{}.';

/** A dataset row that cannot become an example: the field and what was expected. */
export class RowError extends DataError {
  override name = 'RowError';
  constructor(
    readonly rowField: string,
    readonly expected: string,
  ) {
    super(`expected ${expected}`, { field: rowField });
  }
}

/** Where a row came from, for {@link NativeBenchmarkSpec.toExample}. */
export interface RowContext {
  /** The dataset config the row was read from (a subject for MMLU-Redux and C-Eval). */
  config: string | undefined;
  /** The system prompt of the examples (given, else the benchmark's recommended one); null = none. */
  systemPrompt: string | null;
}

/** What a benchmark's grader may use besides the reply: the sandbox pool of code benchmarks. */
export interface NativeGradeContext {
  /** Where model-written code runs; set for benchmarks with {@link NativeBenchmarkSpec.requiresSandbox}. */
  sandbox?: SandboxPool;
}

/** A native benchmark. */
export interface NativeBenchmarkSpec {
  name: string;
  /** One line, for `--help` and the README table. */
  description: string;
  /** Hub dataset id, its configs (one request each; undefined = `default`) and split. */
  dataset: string;
  configs?: readonly string[];
  split: string;
  /** What `score` measures. */
  metric: string;
  defaults: NativeDefaults;
  /**
   * A row as an example (upstream's prompt and example id); undefined when upstream's filter leaves the row out
   * (MMLU-Redux's rows flagged as erroneous). Throws {@link RowError} for a missing field or one of the wrong type
   * (on the Hub such rows are skipped and counted, as upstream skips them; in a sample file they are an error).
   */
  toExample(row: Record<string, unknown>, context: RowContext): BenchmarkExample | undefined;
  /** Upstream's verdict on a reply to `example` (code benchmarks run the reply in `context.sandbox`). */
  grade(response: string, example: BenchmarkExample, context: NativeGradeContext): GradeResult | Promise<GradeResult>;
  /** Grading runs model-written code: the loader gives `grade` a sandbox pool (upstream's `requires_sandbox`). */
  requiresSandbox?: boolean;
  /** Extra `metrics` of upstream's result.json (e.g. per-subject accuracy). */
  aggregate?(samples: readonly GradedSample[]): Record<string, number>;
  /** Upstream marks it experimental (scores may not match published ones). */
  experimental?: boolean;
  /** How upstream cuts a `max_examples` subset when it does not take the first rows (see {@link SubsetRule}). */
  subset?: SubsetRule;
}

/**
 * Upstream's rule for a `max_examples` subset of a benchmark that shuffles before cutting: every row of every config
 * (in config order) that `keep` accepts is shuffled with `seed` — by Python's `random.Random(seed).shuffle`
 * (`python-random`, only when there are more rows than asked for) or by `datasets`' `Dataset.shuffle(seed=seed)`
 * (`datasets`, whenever a limit is given) — and the first `max_examples` are kept, before rows become examples.
 */
export interface SubsetRule {
  shuffle: 'python-random' | 'datasets';
  seed: number;
  /** Rows upstream drops before shuffling; default: all kept. */
  keep?: (row: Record<string, unknown>) => boolean;
}

/** Upstream's stable example id: `<prefix>_<first 12 hex digits of md5(text)>`. */
export function makeExampleId(prefix: string, text: string): string {
  return `${prefix}_${createHash('md5').update(text, 'utf8').digest('hex').slice(0, 12)}`;
}

/** Lettered choices, one a line: `(A) first\n(B) second`. */
export function formatMcqChoices(choices: readonly string[]): string {
  return choices.map((c, i) => `(${String.fromCharCode(65 + i)}) ${c}`).join('\n');
}

/** The system prompt (when set) and the user turn. */
export function buildMessages(user: string, systemPrompt: string | null): Message[] {
  return [
    ...(systemPrompt ? [{ role: 'system' as const, content: systemPrompt }] : []),
    { role: 'user', content: user },
  ];
}

/** A string field ("" when absent or null); RowError when it holds something else. */
export function stringField(row: Record<string, unknown>, ...names: string[]): string {
  for (const name of names) {
    const v = row[name];
    if (v === undefined || v === null) continue;
    if (typeof v === 'string') return v;
    if (typeof v === 'number') return String(v);
    throw new RowError(name, `a string, got ${JSON.stringify(v).slice(0, 60)}`);
  }
  return '';
}

/** A string field that must be non-empty; RowError naming the first name otherwise. */
export function requiredString(row: Record<string, unknown>, ...names: string[]): string {
  const v = stringField(row, ...names);
  if (v.trim() === '') throw new RowError(names[0]!, 'a non-empty string');
  return v;
}

/** A list-of-strings field ([] when absent); RowError when it holds something else. */
export function stringListField(row: Record<string, unknown>, ...names: string[]): string[] {
  for (const name of names) {
    const v = row[name];
    if (v === undefined || v === null) continue;
    if (!Array.isArray(v)) throw new RowError(name, `a list of strings, got ${JSON.stringify(v).slice(0, 60)}`);
    return v.map((x) => (typeof x === 'string' ? x : String(x)));
  }
  return [];
}

/** Accuracy per value of `key(example)`: `<prefix>/<value>/accuracy`, in sorted order. */
export function accuracyBy(
  samples: readonly GradedSample[],
  prefix: string,
  key: (e: BenchmarkExample) => string,
): Record<string, number> {
  const groups = new Map<string, { n: number; c: number }>();
  for (const s of samples) {
    const k = key(s.example);
    const g = groups.get(k) ?? { n: 0, c: 0 };
    g.n++;
    if (s.correct) g.c++;
    groups.set(k, g);
  }
  const out: Record<string, number> = {};
  for (const k of [...groups.keys()].sort()) {
    const g = groups.get(k)!;
    out[`${prefix}/${k}/accuracy`] = g.c / g.n;
  }
  return out;
}

/** Metadata string of an example ("unknown" when absent). */
export function metaString(example: BenchmarkExample, key: string): string {
  const v = example.metadata?.[key];
  return typeof v === 'string' && v !== '' ? v : 'unknown';
}
