/**
 * Reading an evaluation folder in either layout: this package's (`results.json` + `results.jsonl`) or upstream's
 * (`<benchmark>/result.json` + `<benchmark>/trajectories.jsonl`, e.g. a run folder of upstream's eval store, or a
 * `save_dir` of upstream's runner). Anything else is a DataError saying what was expected.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DataError } from '@cookbook/core';
import { parseJsonl } from '@cookbook/logging';
import {
  type BenchmarkSummary,
  latestRecords,
  RESULTS_JSON,
  readResults,
  readSummary,
  resultId,
  type SampleRecord,
} from '../runner/results.js';
import { UPSTREAM_RESULT_JSON, UPSTREAM_TRAJECTORIES_JSONL } from '../runner/upstream-format.js';

/** An evaluation read back: summaries per benchmark and every sample. */
export interface EvalFolder {
  format: 'cookbook' | 'upstream';
  summary: Record<string, BenchmarkSummary>;
  records: SampleRecord[];
}

function num(o: Record<string, unknown>, key: string, file: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new DataError('expected a number', { file, field: key });
  return v;
}

function readJson(file: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new DataError(`not JSON (${(error as Error).message})`, { file, cause: error });
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new DataError('expected a JSON object', { file });
  return v as Record<string, unknown>;
}

/** The benchmark folders (those with a result.json) of an upstream-layout folder. */
function upstreamBenchmarks(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .filter((n) => existsSync(join(dir, n, UPSTREAM_RESULT_JSON)))
    .sort();
}

function readUpstream(dir: string, names: readonly string[]): EvalFolder {
  const summary: Record<string, BenchmarkSummary> = {};
  const records: SampleRecord[] = [];
  for (const name of names) {
    const file = join(dir, name, UPSTREAM_RESULT_JSON);
    const r = readJson(file);
    const s: BenchmarkSummary = {
      score: num(r, 'score', file),
      num_examples: num(r, 'num_examples', file),
      num_correct: num(r, 'num_correct', file),
      num_errors: typeof r.num_errors === 'number' ? r.num_errors : 0,
      num_truncated: typeof r.num_truncated === 'number' ? r.num_truncated : 0,
    };
    const pk = r.pass_at_k;
    if (typeof pk === 'object' && pk !== null) {
      for (const [k, v] of Object.entries(pk)) if (typeof v === 'number') s[`pass@${k}`] = v;
    }
    summary[name] = s;
    const tfile = join(dir, name, UPSTREAM_TRAJECTORIES_JSONL);
    if (!existsSync(tfile)) continue;
    const seen = new Map<string, number>();
    const { records: lines } = parseJsonl<Record<string, unknown>>(readFileSync(tfile, 'utf8'), tfile);
    lines.forEach((t, i) => {
      const at = { file: tfile, line: i + 1 };
      if (typeof t !== 'object' || t === null) throw new DataError('expected a JSON object per line', at);
      const exampleId = typeof t.example_id === 'string' && t.example_id !== '' ? t.example_id : String(t.idx ?? i);
      const reward = typeof t.reward === 'number' ? t.reward : 0;
      const id = resultId(name, exampleId);
      const index = seen.get(id) ?? 0;
      seen.set(id, index + 1);
      const turns = Array.isArray(t.turns) ? (t.turns as { role?: unknown; content?: unknown }[]) : [];
      const last = turns.filter((x) => x.role === 'assistant').at(-1);
      const metrics = (typeof t.metrics === 'object' && t.metrics !== null ? t.metrics : {}) as Record<string, unknown>;
      const logs = (typeof t.logs === 'object' && t.logs !== null ? t.logs : {}) as Record<string, unknown>;
      const expected = logs.expected;
      records.push({
        id,
        sample_index: index,
        prompt: [],
        response: typeof last?.content === 'string' ? last.content : '',
        answer: typeof expected === 'string' ? expected : null,
        correct: reward > 0,
        score: reward,
        stop_reason: metrics.max_tokens_reached ? 'length' : 'stop',
        ...(typeof t.error === 'string' ? { error: t.error } : {}),
        ...(typeof logs.extracted === 'string' ? { extracted: logs.extracted } : {}),
      });
    });
  }
  return { format: 'upstream', summary, records };
}

/**
 * Reads an evaluation folder. This package's layout wins when both are present (an eval folder of this package
 * holds both); a folder with neither is a DataError naming what was looked for.
 */
export function readEvalFolder(dir: string): EvalFolder {
  if (existsSync(join(dir, RESULTS_JSON))) {
    return { format: 'cookbook', summary: readSummary(dir), records: latestRecords(readResults(dir)) };
  }
  const names = upstreamBenchmarks(dir);
  if (names.length > 0) return readUpstream(dir, names);
  const hint = existsSync(join(dir, 'runs.jsonl'))
    ? ` (this is an eval store: give one of its runs, ${join(dir, 'runs', '<run_id>')})`
    : '';
  throw new DataError(
    `unknown eval folder format: expected ${RESULTS_JSON} (a cookbook eval log_path) or ` +
      `<benchmark>/${UPSTREAM_RESULT_JSON} folders (upstream's layout)${hint}`,
    { file: dir },
  );
}
