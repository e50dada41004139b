/**
 * The result files of an evaluation in `log_path`:
 * - `results.jsonl`: one line per sample — `id` (`<benchmark>/<example id>`), `sample_index`, `prompt` (the messages
 *   before the final reply), `response`, `answer`, `correct`, `score`, `stop_reason`, and `error` when it failed;
 *   `extracted` (what the grader read), `time_seconds` and `tokens` (per model turn: prompt and completion tokens)
 *   when known (lines written before these fields existed lack them).
 *   Appended one whole line at a time, so a killed run loses at most the line being written; a resumed run skips
 *   every (id, sample_index) already there (the last line wins when one appears twice).
 * - `results.json`: per benchmark `score`, `num_examples`, `num_correct`, `num_errors`, `num_truncated` and `pass@k`
 *   for each k asked.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataError, type Message } from '@cookbook/core';
import { appendJsonLine, parseJsonl, repairTruncatedTail, writeFileAtomicSync } from '@cookbook/logging';
import { meanPassAtK } from '../pass-at-k.js';

export const RESULTS_JSONL = 'results.jsonl';
export const RESULTS_JSON = 'results.json';

/** One line of `results.jsonl`. */
export interface SampleRecord {
  id: string;
  sample_index: number;
  prompt: Message[];
  response: string;
  answer: string | string[] | null;
  correct: boolean;
  score: number;
  stop_reason: 'stop' | 'length' | null;
  error?: string;
  /** What the grader extracted from the reply. */
  extracted?: string;
  /** Wall-clock seconds of the sample. */
  time_seconds?: number;
  /** Per model turn: [prompt tokens, completion tokens]. */
  tokens?: [number, number][];
}

/** One benchmark of `results.json`. */
export interface BenchmarkSummary {
  score: number;
  num_examples: number;
  num_correct: number;
  num_errors: number;
  num_truncated: number;
  /** `pass@1`, `pass@4`, …: one key per k. */
  [passAtK: string]: number;
}

/** The `results.jsonl` id of an example. */
export function resultId(benchmark: string, exampleId: string): string {
  return `${benchmark}/${exampleId}`;
}

/** The benchmark and example id of a result id. */
export function splitResultId(id: string): { benchmark: string; exampleId: string } {
  const i = id.indexOf('/');
  return i < 0 ? { benchmark: '', exampleId: id } : { benchmark: id.slice(0, i), exampleId: id.slice(i + 1) };
}

/** The key of a sample. */
export function sampleKey(id: string, sampleIndex: number): string {
  return `${id}#${sampleIndex}`;
}

function checkRecord(r: unknown, file: string, line: number): SampleRecord {
  const bad = (field: string, what: string): never => {
    throw new DataError(`expected ${what}`, { file, line, field });
  };
  if (typeof r !== 'object' || r === null || Array.isArray(r)) return bad('(line)', 'a JSON object per line');
  const o = r as Record<string, unknown>;
  if (typeof o.id !== 'string') bad('id', 'a string');
  if (!Number.isInteger(o.sample_index) || (o.sample_index as number) < 0) bad('sample_index', 'an integer ≥ 0');
  if (!Array.isArray(o.prompt)) bad('prompt', 'a list of messages');
  if (typeof o.response !== 'string') bad('response', 'a string');
  if (typeof o.correct !== 'boolean') bad('correct', 'true or false');
  if (typeof o.score !== 'number') bad('score', 'a number');
  if (o.stop_reason !== null && o.stop_reason !== 'stop' && o.stop_reason !== 'length') {
    bad('stop_reason', '"stop", "length" or null');
  }
  return o as unknown as SampleRecord;
}

/**
 * The records of a `results.jsonl` (empty when there is none). A truncated last line (a killed run) is skipped; any
 * other malformed line throws a DataError naming the file, line and field.
 */
export function readResults(logPath: string): SampleRecord[] {
  const path = join(logPath, RESULTS_JSONL);
  if (!existsSync(path)) return [];
  const { records } = parseJsonl<unknown>(readFileSync(path, 'utf8'), path);
  return records.map((r, i) => checkRecord(r, path, i + 1));
}

/** Latest record per sample, in first-seen order. */
export function latestRecords(records: readonly SampleRecord[]): SampleRecord[] {
  const byKey = new Map<string, SampleRecord>();
  for (const r of records) {
    const k = sampleKey(r.id, r.sample_index);
    byKey.delete(k);
    byKey.set(k, r);
  }
  return [...byKey.values()];
}

/** Appends results to `results.jsonl`, one line each, after cutting a half-written last line left by a crash. */
export class ResultsWriter {
  readonly path: string;
  constructor(logPath: string) {
    this.path = join(logPath, RESULTS_JSONL);
    repairTruncatedTail(this.path);
  }

  append(record: SampleRecord): void {
    appendJsonLine(this.path, record);
  }
}

/** Rewrites `results.jsonl` atomically (re-grading). */
export function writeResults(logPath: string, records: readonly SampleRecord[]): void {
  writeFileAtomicSync(join(logPath, RESULTS_JSONL), records.map((r) => `${JSON.stringify(r)}\n`).join(''));
}

/**
 * The summary of one benchmark's records. `passK` values larger than an example's sample count are computed over
 * the examples that have enough samples.
 */
export function summarize(records: readonly SampleRecord[], passK: readonly number[]): BenchmarkSummary {
  const perExample = new Map<string, { n: number; c: number }>();
  let score = 0;
  let correct = 0;
  let errors = 0;
  let truncated = 0;
  for (const r of records) {
    score += r.score;
    if (r.correct) correct++;
    if (r.error !== undefined) errors++;
    if (r.stop_reason === 'length') truncated++;
    const e = perExample.get(r.id) ?? { n: 0, c: 0 };
    e.n++;
    if (r.correct) e.c++;
    perExample.set(r.id, e);
  }
  const summary: BenchmarkSummary = {
    score: records.length > 0 ? score / records.length : 0,
    num_examples: perExample.size,
    num_correct: correct,
    num_errors: errors,
    num_truncated: truncated,
  };
  for (const k of passK) {
    const eligible = [...perExample.values()].filter((e) => e.n >= k);
    summary[`pass@${k}`] = eligible.length > 0 ? meanPassAtK(eligible, k) : 0;
  }
  return summary;
}

/** Summaries of every benchmark in `records` (grouped by the id prefix), in `order` when given. */
export function summarizeAll(
  records: readonly SampleRecord[],
  passK: readonly number[],
  order?: readonly string[],
): Record<string, BenchmarkSummary> {
  const groups = new Map<string, SampleRecord[]>();
  for (const name of order ?? []) groups.set(name, []);
  for (const r of records) {
    const b = splitResultId(r.id).benchmark;
    if (order !== undefined && !order.includes(b)) continue;
    (groups.get(b) ?? groups.set(b, []).get(b)!).push(r);
  }
  return Object.fromEntries([...groups].map(([name, rs]) => [name, summarize(rs, passK)]));
}

/** Writes `results.json` atomically. */
export function writeSummary(logPath: string, summary: Record<string, BenchmarkSummary>): void {
  writeFileAtomicSync(join(logPath, RESULTS_JSON), `${JSON.stringify(summary, null, 2)}\n`);
}

/** Reads `results.json`; DataError naming the file when it is missing or malformed. */
export function readSummary(logPath: string): Record<string, BenchmarkSummary> {
  const path = join(logPath, RESULTS_JSON);
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new DataError(`cannot read eval results (${(error as Error).message}); is this an eval log_path?`, {
      file: path,
      cause: error,
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new DataError('expected {"<benchmark>": {"score": …}, …}', { file: path });
  }
  return value as Record<string, BenchmarkSummary>;
}

/** The metrics a loop logs for a summary: `eval/<benchmark>/<field>`. */
export function summaryMetrics(summary: Record<string, BenchmarkSummary>, prefix = 'eval'): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, s] of Object.entries(summary)) {
    for (const [k, v] of Object.entries(s)) out[`${prefix}/${name}/${k}`] = v;
  }
  return out;
}

/** A plain-text table of a summary (one row per benchmark), as the CLI prints it. */
export function summaryTableText(summary: Record<string, BenchmarkSummary>): string {
  const names = Object.keys(summary);
  const ks = [...new Set(names.flatMap((n) => Object.keys(summary[n]!).filter((k) => k.startsWith('pass@'))))];
  const cols = ['score', ...ks, 'num_examples', 'num_correct', 'num_errors', 'num_truncated'];
  const width = Math.max(9, ...names.map((n) => n.length));
  const cell = (v: number | undefined) => (v === undefined ? '–' : Number.isInteger(v) ? String(v) : v.toFixed(4));
  const lines = [['benchmark'.padEnd(width), ...cols.map((c) => c.padStart(Math.max(8, c.length)))].join('  ')];
  for (const n of names) {
    lines.push([n.padEnd(width), ...cols.map((c) => cell(summary[n]![c]).padStart(Math.max(8, c.length)))].join('  '));
  }
  return lines.join('\n');
}
