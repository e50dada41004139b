/**
 * Upstream's eval store: one folder tracking evaluations across checkpoints, so runs compare with each other and
 * with upstream's `EvalStore` tools.
 *
 * ```
 * <store>/runs.jsonl                         one line per evaluated run: run_id, timestamp, model, checkpoint
 * <store>/runs/<run_id>/metadata.json        run_id, model_name, checkpoint_path, checkpoint_name, benchmarks,
 *                                            timestamp, config, scores
 * <store>/runs/<run_id>/summary.json
 * <store>/runs/<run_id>/<benchmark>/result.json, trajectories.jsonl
 * ```
 *
 * An eval folder keeps its run id in `eval_store.json`, so a resumed eval updates its own store run (the index line
 * is written once, when the run is first recorded); the run id is upstream's `<checkpoint label>_<YYYYmmdd_HHMMSS>_
 * <6 hex>`, the label being the checkpoint's last path segment or `base`.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataError } from '@cookbook/core';
import { appendJsonLine, writeFileAtomicSync } from '@cookbook/logging';
import {
  UPSTREAM_RESULT_JSON,
  UPSTREAM_SUMMARY_JSON,
  UPSTREAM_TRAJECTORIES_JSONL,
  type UpstreamResult,
} from './upstream-format.js';

/** The store's index file. */
export const EVAL_STORE_INDEX = 'runs.jsonl';
/** The file in an eval folder naming its store run. */
export const EVAL_STORE_LINK = 'eval_store.json';

/** Upstream's `RunMetadata`. */
export interface EvalStoreRunMetadata {
  run_id: string;
  model_name: string;
  checkpoint_path: string | null;
  checkpoint_name: string | null;
  benchmarks: string[];
  timestamp: string;
  config: Record<string, unknown>;
  scores: Record<string, number>;
}

/** What {@link recordInEvalStore} records. */
export interface EvalStoreEntry {
  /** The eval folder holding the upstream-format results. */
  logPath: string;
  modelName: string;
  checkpointPath: string | null;
  benchmarks: readonly string[];
  config: Record<string, unknown>;
  results: Record<string, UpstreamResult>;
  /** For tests: the clock. */
  now?: Date;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** Upstream's run id: `<label>_<YYYYmmdd_HHMMSS>_<6 hex>`. */
export function evalStoreRunId(checkpointName: string | null, now: Date): string {
  const ts =
    `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}_` +
    `${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  return `${checkpointName ?? 'base'}_${ts}_${randomBytes(3).toString('hex')}`;
}

/** The checkpoint's name: the last segment of its path (`tinker://…/sampler_weights/final` → `final`). */
export function checkpointLabel(checkpointPath: string | null): string | null {
  if (checkpointPath === null) return null;
  const last = checkpointPath.replace(/\/+$/, '').split('/').at(-1) ?? '';
  const safe = last.replace(/[^\w.-]+/g, '_');
  return safe === '' ? null : safe;
}

function readLink(logPath: string, store: string): string | undefined {
  const path = join(logPath, EVAL_STORE_LINK);
  if (!existsSync(path)) return undefined;
  let link: unknown;
  try {
    link = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new DataError(`not JSON (${(error as Error).message}); delete it to record a new store run`, {
      file: path,
      cause: error,
    });
  }
  const l = link as { store?: unknown; run_id?: unknown };
  if (typeof l.run_id !== 'string' || !/^[\w.-]+$/.test(l.run_id)) {
    throw new DataError('expected {"store": …, "run_id": "<letters, digits, _ . ->"}', { file: path, field: 'run_id' });
  }
  return l.store === store ? l.run_id : undefined;
}

/**
 * Records an eval folder's upstream-format results as a run of the store at `store` (created when missing): copies
 * each benchmark's result.json and trajectories.jsonl, writes metadata.json with the scores, and appends the index
 * line the first time. Returns the run's metadata.
 */
export function recordInEvalStore(store: string, entry: EvalStoreEntry): EvalStoreRunMetadata {
  const now = entry.now ?? new Date();
  const checkpointName = checkpointLabel(entry.checkpointPath);
  const existing = readLink(entry.logPath, store);
  const runId = existing ?? evalStoreRunId(checkpointName, now);
  const runDir = join(store, 'runs', runId);
  const previous = existing !== undefined ? readMetadata(join(runDir, 'metadata.json')) : undefined;
  const metadata: EvalStoreRunMetadata = {
    run_id: runId,
    model_name: entry.modelName,
    checkpoint_path: entry.checkpointPath,
    checkpoint_name: checkpointName,
    benchmarks: [...entry.benchmarks],
    timestamp: previous?.timestamp ?? now.toISOString(),
    config: entry.config,
    scores: Object.fromEntries(Object.entries(entry.results).map(([name, r]) => [name, r.score])),
  };
  mkdirSync(runDir, { recursive: true });
  for (const name of entry.benchmarks) {
    mkdirSync(join(runDir, name), { recursive: true });
    for (const file of [UPSTREAM_RESULT_JSON, UPSTREAM_TRAJECTORIES_JSONL]) {
      const from = join(entry.logPath, name, file);
      if (existsSync(from)) copyFileSync(from, join(runDir, name, file));
    }
  }
  const summary = join(entry.logPath, UPSTREAM_SUMMARY_JSON);
  if (existsSync(summary)) copyFileSync(summary, join(runDir, UPSTREAM_SUMMARY_JSON));
  writeFileAtomicSync(join(runDir, 'metadata.json'), `${JSON.stringify(metadata, null, 2)}\n`);
  if (existing === undefined) {
    appendJsonLine(join(store, EVAL_STORE_INDEX), {
      run_id: runId,
      timestamp: metadata.timestamp,
      model: entry.modelName,
      checkpoint: checkpointName,
    });
    writeFileAtomicSync(join(entry.logPath, EVAL_STORE_LINK), `${JSON.stringify({ store, run_id: runId })}\n`);
  }
  return metadata;
}

function readMetadata(path: string): EvalStoreRunMetadata | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as EvalStoreRunMetadata;
  } catch {
    return undefined;
  }
}
