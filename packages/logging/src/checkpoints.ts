/**
 * `checkpoints.jsonl` of a run (upstream `checkpoint_utils.py`): one JSON line per saved checkpoint with its name,
 * the loop position it resumes at, and the `tinker://` paths of the full state and the sampler weights. Lines are
 * appended whole; a half-written last line left by a killed process is ignored when reading and cut off before the
 * next append. Difference from upstream: records also carry `step`, the number of optimizer steps the state holds,
 * and `epoch`/`batch` name the NEXT batch to train, so a resume replays nothing; and a resumed run drops the
 * metrics rows written past its checkpoint ({@link truncateMetricsFrom}), so metrics.jsonl never holds a step twice.
 *
 * The training client is structural ({@link CheckpointClient}, picked from `@cookbook/tinker-client`'s one
 * `TrainingClientLike` definition, a type-only import): the client's TrainingClient fits it, and so do test fakes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TrainingClientLike } from '@cookbook/tinker-client';
import { deferred } from './internal/deferred.js';
import { appendJsonLine, parseJsonl, repairTruncatedTail, truncateStepsFrom } from './jsonl.js';
import { METRICS_FILE } from './metrics-logger.js';

/** File name of the checkpoint log inside a log dir. */
export const CHECKPOINTS_FILE = 'checkpoints.jsonl';

/** One saved checkpoint. Extra loop-state keys (e.g. `elapsed_tokens`) are kept. */
export interface CheckpointRecord {
  /** `000020` (steps done, 6 digits) or `final`. */
  name: string;
  /** Epoch of the next batch to train. */
  epoch?: number;
  /** Index (within the epoch) of the next batch to train. */
  batch?: number;
  /** Optimizer steps contained in the state = index of the next step. */
  step?: number;
  /** Set on the checkpoint written when training finished. */
  final?: boolean;
  /** `tinker://…/weights/<name>`: weights and optimizer state. */
  state_path?: string;
  /** `tinker://…/sampler_weights/<name>`: weights for sampling. */
  sampler_path?: string;
  [key: string]: unknown;
}

/** The checkpoint name for `step` optimizer steps done: `000042` for 42 (6 digits, as upstream). */
export function checkpointName(step: number): string {
  return String(step).padStart(6, '0');
}

/** Every checkpoint record of a log dir, oldest first ([] when there is no file). */
export function readCheckpoints(logDir: string): CheckpointRecord[] {
  const path = join(logDir, CHECKPOINTS_FILE);
  if (!existsSync(path)) return [];
  return parseJsonl<CheckpointRecord>(readFileSync(path, 'utf8'), path).records.filter(
    (r) => typeof r === 'object' && r !== null && typeof r.name === 'string',
  );
}

/** The newest record that has `requiredKey` (default `state_path`, i.e. one a run can resume from). */
export function getLastCheckpoint(logDir: string, requiredKey = 'state_path'): CheckpointRecord | undefined {
  const records = readCheckpoints(logDir);
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i]!;
    if (r[requiredKey] !== undefined && r[requiredKey] !== null) return r;
  }
  return undefined;
}

/** Appends one record as a whole line (after cutting off a half-written tail). */
export function appendCheckpointRecord(logDir: string, record: CheckpointRecord): void {
  const path = join(logDir, CHECKPOINTS_FILE);
  repairTruncatedTail(path);
  appendJsonLine(path, record);
}

/** What a checkpoint save stores. */
export type CheckpointKind = 'state' | 'sampler' | 'both';

/** The client calls a checkpoint save needs, from the one client definition in `@cookbook/tinker-client`. */
export type CheckpointClient = Pick<TrainingClientLike, 'saveState' | 'saveWeightsForSampler'>;

/** Paths of a submitted save. */
export interface SavedPaths {
  state_path?: string;
  sampler_path?: string;
}

/**
 * Submits the save requests now (so they are ordered right after everything already submitted to the client) and
 * returns a promise for their paths. The record is written by the caller once it chooses to.
 */
export function submitCheckpointSave(
  client: CheckpointClient,
  name: string,
  options: { kind?: CheckpointKind; ttlSeconds?: number | null } = {},
): Promise<SavedPaths> {
  const kind = options.kind ?? 'both';
  const ttl = options.ttlSeconds ?? undefined;
  const opts = ttl === undefined ? {} : { ttlSeconds: ttl };
  const state = kind === 'sampler' ? undefined : deferred(client.saveState(name, opts));
  const sampler = kind === 'state' ? undefined : deferred(client.saveWeightsForSampler(name, opts));
  return deferred(
    (async () => {
      const out: SavedPaths = {};
      if (state !== undefined) out.state_path = (await state).path;
      if (sampler !== undefined) {
        const p = (await sampler).path;
        if (p !== undefined) out.sampler_path = p;
      }
      return out;
    })(),
  );
}

/**
 * Saves a checkpoint and appends its record (upstream `save_checkpoint_async`): `loopState` (epoch, batch, step, …)
 * is stored with the paths.
 */
export async function saveCheckpoint(
  client: CheckpointClient,
  name: string,
  logDir: string,
  loopState: Omit<CheckpointRecord, 'name'>,
  options: { kind?: CheckpointKind; ttlSeconds?: number | null } = {},
): Promise<CheckpointRecord> {
  const paths = await submitCheckpointSave(client, name, options);
  const record: CheckpointRecord = { name, ...loopState, ...paths };
  appendCheckpointRecord(logDir, record);
  return record;
}

/**
 * Drops the rows of `logDir/metrics.jsonl` with `step` ≥ `fromStep` (rows a killed process wrote past the checkpoint
 * a run resumes from; they are recomputed). The file is rewritten atomically, and only when something changes; a
 * half-written last line goes too. Returns the number of rows dropped (0 when there is no file).
 */
export function truncateMetricsFrom(logDir: string, fromStep: number): number {
  return truncateStepsFrom(join(logDir, METRICS_FILE), fromStep);
}
