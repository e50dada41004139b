/**
 * The native benchmarks by name, and loading one — from the Hugging Face Hub (upstream's dataset, configs and split)
 * or from its shipped offline sample (`<name>:sample`, a few rows in the dataset's format, for the mechanics).
 * A new benchmark: a spec file (see `native-benchmark.ts`) and one entry in {@link NATIVE_BENCHMARKS}.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError, DataError } from '@cookbook/core';
import { createSandboxPool, type SandboxPool } from '@cookbook/sandbox';
import type { Benchmark, BenchmarkExample } from '../benchmark.js';
import { fetchHubRows, HubRowsError } from '../tasks/hub-rows.js';
import { ceval, gpqa, mmluPro, mmluRedux, supergpqa } from './choice-benchmarks.js';
import { livecodebench, mbpp } from './code-benchmarks.js';
import { ifbench } from './ifbench.js';
import { aime2025, aime2026, gsm8k, hmmtFeb2025, hmmtNov2025, math500 } from './math-benchmarks.js';
import { type NativeBenchmarkSpec, RowError } from './native-benchmark.js';
import { numpyPermutation, pythonShuffle } from './upstream-shuffle.js';

/** Every native benchmark, by name. */
export const NATIVE_BENCHMARKS: Readonly<Record<string, NativeBenchmarkSpec>> = Object.fromEntries(
  [
    gsm8k,
    math500,
    aime2025,
    aime2026,
    hmmtFeb2025,
    hmmtNov2025,
    mmluPro,
    mmluRedux,
    gpqa,
    ceval,
    supergpqa,
    ifbench,
    mbpp,
    livecodebench,
  ].map((s) => [s.name, s]),
);

/** Upstream's aliases: `aime` is AIME 2025. */
export const NATIVE_ALIASES: Readonly<Record<string, string>> = { aime: 'aime_2025' };

/** The suffix that picks a benchmark's shipped offline sample: `aime_2025:sample`. */
export const SAMPLE_SUFFIX = ':sample';

/** Programs graded at once by a code benchmark when no sandbox pool is given (the default local sandbox). */
export const DEFAULT_CODE_SANDBOX_CONCURRENCY = 4;

/** Most rows read from one sample file or Hub dataset. */
export const MAX_NATIVE_ROWS = 100_000;

/** The spec of a native benchmark name (alias or `:sample` selector accepted); undefined when it is none. */
export function nativeSpec(selector: string): NativeBenchmarkSpec | undefined {
  const base = selector.endsWith(SAMPLE_SUFFIX) ? selector.slice(0, -SAMPLE_SUFFIX.length) : selector;
  const name = NATIVE_ALIASES[base] ?? base;
  return Object.hasOwn(NATIVE_BENCHMARKS, name) ? NATIVE_BENCHMARKS[name] : undefined;
}

/** The shipped offline sample of a benchmark. */
export function nativeSamplePath(name: string): string {
  return fileURLToPath(new URL(`../../data/native/${name}.jsonl`, import.meta.url));
}

/** Options of {@link loadNativeBenchmark}. */
export interface LoadNativeOptions {
  /** System prompt of every example; undefined/null = the benchmark's recommended one (upstream's rule). */
  systemPrompt?: string | null;
  /**
   * Most rows to evaluate (`max_examples`), picked as upstream picks them ({@link pickRows}: the first ones, or
   * upstream's seeded shuffle of all rows for MMLU-Pro, MMLU-Redux, C-Eval and SuperGPQA — which then reads every
   * row first). Default: all, up to {@link MAX_NATIVE_ROWS}. Applies to the offline samples too.
   */
  maxRows?: number;
  fetch?: typeof globalThis.fetch;
  /** Notices (rows skipped, configs that failed). */
  log?: (line: string) => void;
  /**
   * Where code benchmarks (`mbpp`, `livecodebench`) run the model's programs. Default: a pool of
   * {@link DEFAULT_CODE_SANDBOX_CONCURRENCY} local bubblewrap sandboxes, made (and checked, so a machine that cannot
   * isolate is refused before any sampling) when such a benchmark is loaded. Other benchmarks ignore it.
   */
  sandbox?: SandboxPool;
}

function toBenchmark(spec: NativeBenchmarkSpec, examples: BenchmarkExample[], sandbox?: SandboxPool): Benchmark {
  let pool = sandbox;
  if (spec.requiresSandbox) pool ??= createSandboxPool('bubblewrap', DEFAULT_CODE_SANDBOX_CONCURRENCY);
  const context = pool === undefined ? {} : { sandbox: pool };
  return {
    name: spec.name,
    examples,
    grader: ({ response, example }) => spec.grade(response, example, context),
    ...(spec.aggregate ? { aggregate: spec.aggregate } : {}),
    samplingDefaults: {
      temperature: spec.defaults.temperature,
      maxTokens: spec.defaults.maxTokens,
      concurrency: spec.defaults.concurrency,
      timeoutSeconds: spec.defaults.timeoutSeconds,
    },
  };
}

function dedupe(examples: BenchmarkExample[]): BenchmarkExample[] {
  // Upstream ids are content hashes: a repeated question is one example (its result would be indistinguishable).
  const seen = new Set<string>();
  return examples.filter((e) => !seen.has(e.id) && seen.add(e.id));
}

/** A dataset row and where it came from. */
export interface SourcedRow<R = Record<string, unknown>> {
  row: R;
  /** The dataset config (subject) it was read from. */
  config: string | undefined;
}

/**
 * The rows upstream evaluates when asked for at most `maxRows`: the first ones, or for a benchmark with a
 * {@link NativeBenchmarkSpec.subset} rule, upstream's seeded shuffle of all (kept) rows cut to `maxRows`.
 */
export function pickRows<T extends SourcedRow>(spec: NativeBenchmarkSpec, rows: readonly T[], maxRows?: number): T[] {
  if (maxRows === undefined) return [...rows];
  const rule = spec.subset;
  if (rule === undefined) return rows.slice(0, maxRows);
  const kept = rule.keep ? rows.filter((r) => rule.keep!(r.row)) : [...rows];
  if (rule.shuffle === 'python-random') {
    return kept.length > maxRows ? pythonShuffle(kept, rule.seed).slice(0, maxRows) : kept;
  }
  return numpyPermutation(kept.length, rule.seed)
    .slice(0, maxRows)
    .map((i) => kept[i]!);
}

/**
 * Reads a sample file: one dataset row per line; `_config` names the dataset config (subject) of the row. With
 * `maxRows`, the rows upstream would pick from it ({@link pickRows}).
 */
export function readNativeSample(
  spec: NativeBenchmarkSpec,
  path: string,
  systemPrompt: string | null,
  sandbox?: SandboxPool,
  maxRows?: number,
): Benchmark {
  if (!existsSync(path)) throw new DataError(`no offline sample for ${spec.name}`, { file: path });
  const lines = readFileSync(path, 'utf8').split('\n');
  const rows: (SourcedRow & { line: number })[] = [];
  for (let i = 0; i < lines.length && i < MAX_NATIVE_ROWS; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw new DataError(`not JSON (${(error as Error).message})`, { file: path, line: i + 1 });
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      throw new DataError('expected one JSON object (a dataset row) per line', { file: path, line: i + 1 });
    }
    const r = row as Record<string, unknown>;
    rows.push({ row: r, config: typeof r._config === 'string' ? r._config : undefined, line: i + 1 });
  }
  // Upstream reads a multi-config dataset config by config, in its list's order: the sample's rows are read so too.
  const configs = spec.configs;
  if (configs !== undefined) {
    const rank = (c: string | undefined) => {
      const i = c === undefined ? -1 : configs.indexOf(c);
      return i < 0 ? configs.length : i;
    };
    rows.sort((a, b) => rank(a.config) - rank(b.config) || a.line - b.line);
  }
  const examples: BenchmarkExample[] = [];
  for (const { row, config, line } of pickRows(spec, rows, maxRows)) {
    try {
      const ex = spec.toExample(row, { config, systemPrompt });
      if (ex !== undefined) examples.push(ex);
    } catch (error) {
      if (error instanceof RowError) {
        throw new DataError(error.message.replace(/^field "[^"]*": /, ''), {
          file: path,
          line,
          field: error.rowField,
        });
      }
      throw error;
    }
  }
  if (examples.length === 0) throw new DataError(`no examples for ${spec.name}`, { file: path });
  return toBenchmark(spec, dedupe(examples), sandbox);
}

/**
 * A native benchmark by name: `<name>` reads upstream's dataset from the Hub (network), `<name>:sample` the shipped
 * offline sample. Hub rows upstream would skip are skipped with a notice; a config that cannot be read is reported
 * and left out (as upstream does); no usable row at all is a DataError that says how to run offline.
 */
export async function loadNativeBenchmark(selector: string, options: LoadNativeOptions = {}): Promise<Benchmark> {
  const spec = nativeSpec(selector);
  if (spec === undefined) {
    throw new ConfigError(
      `unknown native benchmark "${selector}"; choose one of ${Object.keys(NATIVE_BENCHMARKS).join(', ')} ` +
        `(append ${SAMPLE_SUFFIX} for the offline sample)`,
      { key: 'benchmarks' },
    );
  }
  const systemPrompt = options.systemPrompt ?? spec.defaults.systemPrompt;
  if (selector.endsWith(SAMPLE_SUFFIX)) {
    return readNativeSample(spec, nativeSamplePath(spec.name), systemPrompt, options.sandbox, options.maxRows);
  }
  const log = options.log ?? (() => {});
  const limit = Math.min(options.maxRows ?? MAX_NATIVE_ROWS, MAX_NATIVE_ROWS);
  // A shuffled subset is drawn from every row, so every row is read; otherwise the first `limit` suffice.
  const readAll = spec.subset !== undefined && options.maxRows !== undefined;
  const fetched: SourcedRow[] = [];
  const failures: string[] = [];
  let skipped = 0;
  let firstSkip: string | undefined;
  for (const config of spec.configs ?? [undefined]) {
    let rows: Record<string, unknown>[];
    try {
      rows = await fetchHubRows({
        dataset: spec.dataset,
        ...(config !== undefined ? { config } : {}),
        split: spec.split,
        limit: readAll ? MAX_NATIVE_ROWS : limit,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
    } catch (error) {
      if (!(error instanceof HubRowsError)) throw error;
      failures.push(`${config ?? 'default'}: ${error.reason}`);
      continue;
    }
    for (const row of rows) fetched.push({ row, config });
    if (!readAll && fetched.length >= limit) break;
  }
  const indexInConfig = new Map<SourcedRow, number>();
  const seenPerConfig = new Map<string | undefined, number>();
  for (const r of fetched) {
    const n = seenPerConfig.get(r.config) ?? 0;
    indexInConfig.set(r, n);
    seenPerConfig.set(r.config, n + 1);
  }
  const examples: BenchmarkExample[] = [];
  for (const sourced of pickRows(spec, fetched, options.maxRows)) {
    const { row, config } = sourced;
    const where = `row ${indexInConfig.get(sourced)}${config ? ` of ${config}` : ''}`;
    try {
      const ex = spec.toExample(row, { config, systemPrompt });
      if (ex !== undefined) examples.push(ex);
      else {
        skipped++;
        firstSkip ??= `${where} is left out by ${spec.name}'s filter`;
      }
    } catch (error) {
      if (!(error instanceof RowError)) throw error;
      skipped++;
      firstSkip ??= `${where}: ${error.message}`;
    }
  }
  if (failures.length > 0 && examples.length > 0) {
    log(`${spec.name}: ${failures.length} dataset configs could not be read (${failures[0]})`);
  }
  if (skipped > 0) log(`${spec.name}: ${skipped} rows skipped (first: ${firstSkip})`);
  if (examples.length === 0) {
    const why = failures[0] ?? 'no usable rows were returned';
    throw new DataError(
      `cannot load benchmark ${spec.name} from the Hugging Face Hub (${spec.dataset}): ${why}. ` +
        `Offline, run its shipped sample instead: benchmarks=${spec.name}${SAMPLE_SUFFIX}`,
    );
  }
  return toBenchmark(spec, dedupe(examples).slice(0, limit), options.sandbox);
}
