/**
 * Eval results, in both layouts the dashboard meets: this project's eval runner (`results.json` with one summary
 * per benchmark, `results.jsonl` with one line per sample, `id` = `<benchmark>/<example>`) and upstream's
 * (`<benchmark>/result.json` with `name, score, num_examples, num_correct, num_errors, num_truncated, metrics,
 * time_seconds, pass_at_k`, and `<benchmark>/trajectories.jsonl` with `idx, benchmark, example_id, turns, reward,
 * metrics, logs, error, time_seconds`). Examples are read through a byte-range index, a page at a time.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { JsonlTail, readRange } from './jsonl-tail.js';
import { readSmallJson } from './run-folders.js';
import { realInside } from './safe-path.js';

/** One benchmark's summary. */
export interface BenchmarkResult {
  name: string;
  score: number | null;
  numExamples: number | null;
  numCorrect: number | null;
  numErrors: number | null;
  numTruncated: number | null;
  passAtK: Record<string, number>;
  timeSeconds: number | null;
}

/** One example of a benchmark, reduced to what the list and the comparison show. */
export interface EvalExample {
  key: string;
  sample: number;
  correct: boolean;
  score: number;
  truncated: boolean;
  error: string | null;
  /** Byte range of the full line. */
  file: string;
  start: number;
  length: number;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The benchmarks of an eval folder (real path), in either layout. */
export async function readBenchmarks(root: string, dir: string): Promise<BenchmarkResult[]> {
  const out: BenchmarkResult[] = [];
  const ours = (await readSmallJson(join(dir, 'results.json'))) as Record<string, Record<string, unknown>> | undefined;
  if (ours !== undefined && typeof ours === 'object' && ours !== null) {
    for (const [name, s] of Object.entries(ours)) {
      if (typeof s !== 'object' || s === null) continue;
      const passAtK: Record<string, number> = {};
      for (const [k, v] of Object.entries(s)) if (k.startsWith('pass@') && typeof v === 'number') passAtK[k] = v;
      out.push({
        name,
        score: num(s.score),
        numExamples: num(s.num_examples),
        numCorrect: num(s.num_correct),
        numErrors: num(s.num_errors),
        numTruncated: num(s.num_truncated),
        passAtK,
        timeSeconds: num(s.time_seconds),
      });
    }
  }
  for (const name of await upstreamBenchmarks(root, dir)) {
    const r = (await readSmallJson(join(dir, name, 'result.json'))) as Record<string, unknown> | undefined;
    if (r === undefined || typeof r !== 'object' || r === null) continue;
    const passAtK: Record<string, number> = {};
    if (typeof r.pass_at_k === 'object' && r.pass_at_k !== null) {
      for (const [k, v] of Object.entries(r.pass_at_k)) if (typeof v === 'number') passAtK[`pass@${k}`] = v;
    }
    out.push({
      name: typeof r.name === 'string' ? r.name : name,
      score: num(r.score),
      numExamples: num(r.num_examples),
      numCorrect: num(r.num_correct),
      numErrors: num(r.num_errors),
      numTruncated: num(r.num_truncated),
      passAtK,
      timeSeconds: num(r.time_seconds),
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

async function upstreamBenchmarks(root: string, dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory() && realInside(root, join(dir, e.name, 'result.json')))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/** Every example of `benchmark` in an eval folder (the index; the lines themselves stay on disk). */
export async function readExamples(
  root: string,
  dir: string,
  benchmark: string,
): Promise<{ examples: EvalExample[]; skipped: number }> {
  const examples: EvalExample[] = [];
  const upstream = join(dir, benchmark, 'trajectories.jsonl');
  if ((await upstreamBenchmarks(root, dir)).includes(benchmark)) {
    if (!realInside(root, upstream)) return { examples, skipped: 0 };
    const tail = new JsonlTail(upstream);
    const { lines } = await tail.readNew();
    for (const line of lines) {
      const r = line.value as Record<string, unknown> | null;
      if (typeof r !== 'object' || r === null) {
        tail.skipped++;
        continue;
      }
      const metrics = (typeof r.metrics === 'object' && r.metrics !== null ? r.metrics : {}) as Record<string, unknown>;
      const reward = num(r.reward) ?? 0;
      const correct = typeof metrics.correct === 'number' ? metrics.correct > 0 : reward > 0;
      examples.push({
        key: String(r.example_id ?? r.idx ?? examples.length),
        sample: 0,
        correct,
        score: reward,
        truncated: metrics.truncated === 1 || metrics.truncated === true,
        error: typeof r.error === 'string' ? r.error : null,
        file: upstream,
        start: line.start,
        length: line.length,
      });
    }
    return { examples, skipped: tail.skipped };
  }
  const path = join(dir, 'results.jsonl');
  if (!realInside(root, path)) return { examples, skipped: 0 };
  const tail = new JsonlTail(path);
  const { lines } = await tail.readNew();
  const prefix = `${benchmark}/`;
  for (const line of lines) {
    const r = line.value as Record<string, unknown> | null;
    if (typeof r !== 'object' || r === null || typeof r.id !== 'string') {
      tail.skipped++;
      continue;
    }
    if (!r.id.startsWith(prefix)) continue;
    examples.push({
      key: r.id.slice(prefix.length),
      sample: typeof r.sample_index === 'number' ? r.sample_index : 0,
      correct: r.correct === true,
      score: num(r.score) ?? 0,
      truncated: r.stop_reason === 'length',
      error: typeof r.error === 'string' ? r.error : null,
      file: path,
      start: line.start,
      length: line.length,
    });
  }
  return { examples, skipped: tail.skipped };
}

/** The full line of an example. */
export async function readExample(ex: EvalExample): Promise<unknown> {
  try {
    return JSON.parse(await readRange(ex.file, ex.start, Math.min(ex.length, 16 * 1024 * 1024)));
  } catch {
    return null;
  }
}

/** Per example: the fraction of its samples that were correct. */
function byExample(examples: readonly EvalExample[]): Map<string, { correct: number; n: number }> {
  const m = new Map<string, { correct: number; n: number }>();
  for (const e of examples) {
    const s = m.get(e.key) ?? { correct: 0, n: 0 };
    s.n++;
    if (e.correct) s.correct++;
    m.set(e.key, s);
  }
  return m;
}

/** What flipped between two eval folders on one benchmark: per example, the share of correct samples in each. */
export function compareExamples(
  a: readonly EvalExample[],
  b: readonly EvalExample[],
  limit = 500,
): {
  common: number;
  onlyA: number;
  onlyB: number;
  fixed: { key: string; a: number; b: number }[];
  broken: { key: string; a: number; b: number }[];
  fixedCount: number;
  brokenCount: number;
  same: number;
} {
  const ma = byExample(a);
  const mb = byExample(b);
  const fixed: { key: string; a: number; b: number }[] = [];
  const broken: { key: string; a: number; b: number }[] = [];
  let common = 0;
  let same = 0;
  let fixedCount = 0;
  let brokenCount = 0;
  for (const [key, sa] of ma) {
    const sb = mb.get(key);
    if (sb === undefined) continue;
    common++;
    const fa = sa.correct / sa.n;
    const fb = sb.correct / sb.n;
    if (fb > fa) {
      fixedCount++;
      if (fixed.length < limit) fixed.push({ key, a: fa, b: fb });
    } else if (fb < fa) {
      brokenCount++;
      if (broken.length < limit) broken.push({ key, a: fa, b: fb });
    } else same++;
  }
  return {
    common,
    onlyA: ma.size - common,
    onlyB: [...mb.keys()].filter((k) => !ma.has(k)).length,
    fixed,
    broken,
    fixedCount,
    brokenCount,
    same,
  };
}
