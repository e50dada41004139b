/**
 * Re-grading without re-sampling: read `results.jsonl`, grade every saved reply again with the benchmarks' current
 * graders (e.g. after fixing a grader or adding accepted answers), and rewrite the result files — `results.jsonl`
 * atomically, `results.json`, `results.html`, the `metrics.jsonl` row and `report.html`. Samples that failed, belong
 * to an unknown benchmark or example, or come from a custom env (which only the env can judge) keep their verdict.
 */
import { join } from 'node:path';
import { ConfigError } from '@cookbook/core';
import { METRICS_FILE, writeFileAtomicSync, writeRunReport } from '@cookbook/logging';
import { type Benchmark, graderOf, regradeConversation } from '../benchmark.js';
import { writeResultsHtml } from '../report/results-html.js';
import {
  type BenchmarkSummary,
  latestRecords,
  readResults,
  type SampleRecord,
  splitResultId,
  summarizeAll,
  summaryMetrics,
  writeResults,
  writeSummary,
} from './results.js';
import { writeUpstreamFormat } from './upstream-format.js';

/** What {@link regradeResults} did. */
export interface RegradeOutcome {
  summary: Record<string, BenchmarkSummary>;
  /** Samples graded again. */
  regraded: number;
  /** Of those, samples whose verdict or score changed. */
  changed: number;
  /** Samples left as they were (errors, unknown examples, custom envs). */
  kept: number;
}

/** Re-grades `logPath`'s samples with `benchmarks`' graders; `passK` null = 1 and the largest sample count. */
export async function regradeResults(
  logPath: string,
  benchmarks: readonly Benchmark[],
  passK: readonly number[] | null = null,
): Promise<RegradeOutcome> {
  const records = latestRecords(readResults(logPath));
  if (records.length === 0) {
    throw new ConfigError(`${logPath} has no results.jsonl to re-grade; run the evaluation first`, { key: 'log_path' });
  }
  const byName = new Map(benchmarks.map((b) => [b.name, b]));
  let regraded = 0;
  let changed = 0;
  let kept = 0;
  const out: SampleRecord[] = [];
  for (const r of records) {
    const { benchmark: bname, exampleId } = splitResultId(r.id);
    const benchmark = byName.get(bname);
    const example = benchmark?.examples.find((e) => e.id === exampleId);
    if (r.error !== undefined || benchmark === undefined || example === undefined || benchmark.makeEnv !== undefined) {
      kept++;
      out.push(r);
      continue;
    }
    let grade: Awaited<ReturnType<typeof regradeConversation>>;
    try {
      grade = await regradeConversation(example, graderOf(benchmark, example), r.prompt, r.response);
    } catch (error) {
      // The grader failed on this reply: the sample becomes an error, as it would have in the run.
      regraded++;
      if (r.correct || r.score !== 0) changed++;
      out.push({ ...r, correct: false, score: 0, error: error instanceof Error ? error.message : String(error) });
      continue;
    }
    if (grade === undefined) {
      kept++;
      out.push(r);
      continue;
    }
    regraded++;
    if (grade.correct !== r.correct || grade.score !== r.score) changed++;
    const { extracted: _old, ...rest } = r;
    out.push({
      ...rest,
      correct: grade.correct,
      score: grade.score,
      ...(grade.extracted !== undefined ? { extracted: grade.extracted } : {}),
    });
  }
  const maxN = Math.max(...[...countPerExample(out).values()]);
  const ks = passK ?? [...new Set([1, maxN])];
  const order = benchmarks.map((b) => b.name).filter((n) => out.some((r) => splitResultId(r.id).benchmark === n));
  const summary = summarizeAll(out, ks, order);
  writeResults(logPath, out);
  writeSummary(logPath, summary);
  await writeResultsHtml(logPath, { summary, records: out, passK: ks, title: 'Evaluation results (re-graded)' });
  writeUpstreamFormat(logPath, out, { benchmarks, passK: ks, order });
  writeFileAtomicSync(join(logPath, METRICS_FILE), `${JSON.stringify({ step: 0, ...summaryMetrics(summary) })}\n`);
  await writeRunReport(logPath);
  return { summary, regraded, changed, kept };
}

function countPerExample(records: readonly SampleRecord[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of records) m.set(r.id, (m.get(r.id) ?? 0) + 1);
  return m;
}
