/**
 * Upstream's result layout, written beside this package's own files so results compare with upstream's tools:
 *
 * - `<log_path>/<benchmark>/result.json`: `name, score, num_examples, num_correct, num_errors, num_truncated,
 *   metrics, time_seconds, pass_at_k` (pass@k keys as strings, empty with one sample, as upstream writes it);
 * - `<log_path>/<benchmark>/trajectories.jsonl`: one line per sample — `idx, benchmark, example_id,
 *   turns[{role, content, token_count, metadata}], reward, metrics, logs, error, time_seconds`;
 * - `<log_path>/summary.json`: per benchmark `score, num_examples, num_correct` (and `pass_at_k`).
 *
 * Mapping: `score` is the fraction of samples judged correct (upstream's accuracy; partial credit stays in the
 * trajectory's `metrics.score`), `num_examples` counts samples as upstream does, `reward` is 1 for a correct sample
 * and 0 otherwise, `time_seconds` of a benchmark is the sum of its samples' wall times (upstream measures one wall
 * clock per benchmark call; a resumed run has no such single clock). A prompt's messages become turns: the first
 * user turn and any system message are `user` turns (the system one marked in `metadata.role`), later user turns
 * `environment`, replies `assistant`; token counts are the model's (prompt tokens on the turn before each reply).
 */
import { join } from 'node:path';
import { getTextContent } from '@cookbook/core';
import { writeFileAtomicSync } from '@cookbook/logging';
import type { Benchmark, BenchmarkExample } from '../benchmark.js';
import { meanPassAtK } from '../pass-at-k.js';
import { type SampleRecord, splitResultId } from './results.js';

/** Upstream's `BenchmarkResultDict`. */
export interface UpstreamResult {
  name: string;
  score: number;
  num_examples: number;
  num_correct: number;
  num_errors: number;
  num_truncated: number;
  metrics: Record<string, number>;
  time_seconds: number;
  pass_at_k: Record<string, number>;
}

/** Upstream's `StoredTurnDict`. */
export interface UpstreamTurn {
  role: 'user' | 'assistant' | 'environment' | 'grader';
  content: string;
  token_count: number;
  metadata: Record<string, unknown>;
}

/** Upstream's `StoredTrajectoryDict`. */
export interface UpstreamTrajectory {
  idx: number;
  benchmark: string;
  example_id: string;
  turns: UpstreamTurn[];
  reward: number;
  metrics: Record<string, number>;
  logs: Record<string, unknown>;
  error: string | null;
  time_seconds: number;
}

/** The file names of upstream's layout. */
export const UPSTREAM_RESULT_JSON = 'result.json';
export const UPSTREAM_TRAJECTORIES_JSONL = 'trajectories.jsonl';
export const UPSTREAM_SUMMARY_JSON = 'summary.json';

function turnsOf(record: SampleRecord): UpstreamTurn[] {
  const turns: UpstreamTurn[] = [];
  const tokens = record.tokens ?? [];
  let reply = 0;
  let seenUser = false;
  for (const m of record.prompt) {
    const content = getTextContent(m);
    if (m.role === 'assistant') {
      turns.push({ role: 'assistant', content, token_count: tokens[reply]?.[1] ?? 0, metadata: {} });
      reply++;
    } else if (m.role === 'user' && seenUser) {
      turns.push({ role: 'environment', content, token_count: 0, metadata: {} });
    } else {
      if (m.role === 'user') seenUser = true;
      turns.push({ role: 'user', content, token_count: 0, metadata: m.role === 'user' ? {} : { role: m.role } });
    }
  }
  // The prompt tokens of each model call go on the last non-assistant turn before its reply.
  let call = 0;
  for (let i = 0; i < turns.length; i++) {
    const next = turns[i + 1];
    if (turns[i]!.role !== 'assistant' && (next === undefined || next.role === 'assistant')) {
      turns[i]!.token_count = tokens[call]?.[0] ?? 0;
      call++;
    }
  }
  if (record.error === undefined || record.response !== '') {
    turns.push({ role: 'assistant', content: record.response, token_count: tokens.at(-1)?.[1] ?? 0, metadata: {} });
  }
  return turns;
}

/** A results.jsonl record as upstream's trajectory line. */
export function toUpstreamTrajectory(record: SampleRecord, idx: number): UpstreamTrajectory {
  const { benchmark, exampleId } = splitResultId(record.id);
  const acTokens = (record.tokens ?? []).reduce((a, [, c]) => a + c, 0);
  const obTokens = (record.tokens ?? []).reduce((a, [p]) => a + p, 0);
  return {
    idx,
    benchmark,
    example_id: exampleId,
    turns: turnsOf(record),
    reward: record.correct ? 1 : 0,
    metrics: {
      correct: record.correct ? 1 : 0,
      score: record.score,
      ...(record.stop_reason === 'length' ? { max_tokens_reached: 1 } : {}),
      _eval_turns: record.tokens?.length ?? 0,
      _eval_ac_tokens: acTokens,
      _eval_ob_tokens: obTokens,
    },
    logs: {
      expected: record.answer,
      ...(record.extracted !== undefined ? { extracted: record.extracted } : {}),
      output: record.response.slice(0, 500),
      sample_index: record.sample_index,
    },
    error: record.error ?? null,
    time_seconds: record.time_seconds ?? 0,
  };
}

/** Upstream's token and turn summary of a benchmark's samples. */
function tokenSummary(records: readonly SampleRecord[]): Record<string, number> {
  let ac = 0;
  let ob = 0;
  let turns = 0;
  for (const r of records) {
    for (const [p, c] of r.tokens ?? []) {
      ob += p;
      ac += c;
      turns++;
    }
  }
  return {
    total_ac_tokens: ac,
    total_ob_tokens: ob,
    total_turns: turns,
    turns_per_episode: records.length > 0 ? turns / records.length : 0,
    ...(turns > 0 ? { ac_tokens_per_turn: ac / turns, ob_tokens_per_turn: ob / turns } : {}),
  };
}

/** The result.json of one benchmark's records. `passK` applies when some example has more than one sample. */
export function toUpstreamResult(
  benchmark: Benchmark | undefined,
  name: string,
  records: readonly SampleRecord[],
  passK: readonly number[],
): UpstreamResult {
  const correct = records.filter((r) => r.correct).length;
  const byId = new Map<string, BenchmarkExample>(benchmark?.examples.map((e) => [e.id, e]) ?? []);
  const graded = records.flatMap((r) => {
    const example = byId.get(splitResultId(r.id).exampleId);
    return example === undefined ? [] : [{ example, correct: r.correct, score: r.score }];
  });
  const perExample = new Map<string, { n: number; c: number }>();
  for (const r of records) {
    const e = perExample.get(r.id) ?? { n: 0, c: 0 };
    e.n++;
    if (r.correct) e.c++;
    perExample.set(r.id, e);
  }
  const multi = [...perExample.values()].some((e) => e.n > 1);
  const passAtK: Record<string, number> = {};
  if (multi) {
    for (const k of passK) {
      const eligible = [...perExample.values()].filter((e) => e.n >= k);
      if (eligible.length > 0) passAtK[String(k)] = meanPassAtK(eligible, k);
    }
  }
  return {
    name,
    score: records.length > 0 ? correct / records.length : 0,
    num_examples: records.length,
    num_correct: correct,
    num_errors: records.filter((r) => r.error !== undefined).length,
    num_truncated: records.filter((r) => r.stop_reason === 'length').length,
    metrics: { ...tokenSummary(records), ...(benchmark?.aggregate?.(graded) ?? {}) },
    time_seconds: records.reduce((a, r) => a + (r.time_seconds ?? 0), 0),
    pass_at_k: passAtK,
  };
}

/**
 * Writes upstream's layout for `records` (grouped by benchmark, in `order`) under `logPath`, each file atomically.
 * Returns the results by benchmark.
 */
export function writeUpstreamFormat(
  logPath: string,
  records: readonly SampleRecord[],
  options: { benchmarks: readonly Benchmark[]; passK: readonly number[]; order: readonly string[] },
): Record<string, UpstreamResult> {
  const groups = new Map<string, SampleRecord[]>(options.order.map((n) => [n, []]));
  for (const r of records) groups.get(splitResultId(r.id).benchmark)?.push(r);
  const results: Record<string, UpstreamResult> = {};
  const summary: Record<string, unknown> = {};
  for (const [name, rs] of groups) {
    const benchmark = options.benchmarks.find((b) => b.name === name);
    const index = new Map(benchmark?.examples.map((e, i) => [e.id, i]) ?? []);
    const lines = rs.map((r) => {
      const idx = index.get(splitResultId(r.id).exampleId) ?? -1;
      return `${JSON.stringify(toUpstreamTrajectory(r, idx))}\n`;
    });
    const result = toUpstreamResult(benchmark, name, rs, options.passK);
    writeFileAtomicSync(join(logPath, name, UPSTREAM_TRAJECTORIES_JSONL), lines.join(''));
    writeFileAtomicSync(join(logPath, name, UPSTREAM_RESULT_JSON), `${JSON.stringify(result, null, 2)}\n`);
    results[name] = result;
    summary[name] = {
      score: result.score,
      num_examples: result.num_examples,
      num_correct: result.num_correct,
      ...(Object.keys(result.pass_at_k).length > 0 ? { pass_at_k: result.pass_at_k } : {}),
    };
  }
  writeFileAtomicSync(join(logPath, UPSTREAM_SUMMARY_JSON), `${JSON.stringify(summary, null, 2)}\n`);
  return results;
}
