/**
 * The log-dir side of a run: the shape check of `log_path`, the log-dir policy (ask / delete / resume / raise), the
 * run lock that makes a live run the one owner of its folder, the resume point and the truncation of
 * `metrics.jsonl` past it. {@link runLoop} calls {@link decideLogDir} before anything is prepared or contacted, and
 * {@link claimLogDir} once the data and the service are known good.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import {
  acquireProcessLock,
  ConfigError,
  describeLockOwner,
  type HeldLock,
  LockHeldError,
  type LockOwner,
  lockOwnerAlive,
  readLockOwner,
} from '@cookbook/core';
import {
  type CheckLogDirOptions,
  type CheckpointRecord,
  checkLogDir,
  getLastCheckpoint,
  type LogDirDecision,
  readCheckpoints,
  truncateMetricsFrom,
  truncateTimingSpansFrom,
} from '@cookbook/logging';
import type { RunConfig } from './run.js';

/** The lock file that makes a run the owner of its log dir. */
export const RUN_LOCK_FILE = '.run.lock';

/** The step a checkpoint record resumes at: its `step`, or (records of older runs) `epoch × batches + batch`. */
export function resumeStepOf(record: CheckpointRecord, batchesPerEpoch?: number): number {
  if (typeof record.step === 'number') return record.step;
  if (typeof record.batch === 'number') return (record.epoch ?? 0) * (batchesPerEpoch ?? 0) + record.batch;
  return 0;
}

function checkLogPathShape(logPath: string): void {
  if (existsSync(logPath) && !statSync(logPath).isDirectory()) {
    throw new ConfigError(
      `log_path ${logPath} is a file, not a folder; choose another log_path (nothing was changed)`,
      {
        key: 'log_path',
      },
    );
  }
  for (let dir = dirname(resolve(logPath)); ; dir = dirname(dir)) {
    if (existsSync(dir)) {
      if (!statSync(dir).isDirectory()) {
        throw new ConfigError(`log_path ${logPath} is inside ${dir}, which is a file; choose another log_path`, {
          key: 'log_path',
        });
      }
      return;
    }
    if (dirname(dir) === dir) return;
  }
}

const lockedMessage = (logPath: string) => (owner: LockOwner) =>
  `log_path ${logPath} is in use by another run: ${describeLockOwner(owner)}; wait for it to finish (or stop it), or choose another log_path`;

/** Takes `logPath`'s run lock (a lock left by a dead process is taken over). */
function takeRunLock(logPath: string): HeldLock {
  const who = [basename(process.argv[1] ?? 'node'), ...process.argv.slice(2, 3)].join(' ');
  return acquireProcessLock(resolve(logPath, RUN_LOCK_FILE), `run of "${who}"`, lockedMessage(logPath));
}

/** True when `logPath` holds a logged metric or a checkpoint (a failed run's folder then stays). */
export function hasMetricsOrCheckpoints(logPath: string): boolean {
  if (readCheckpoints(logPath).length > 0) return true;
  try {
    return statSync(resolve(logPath, 'metrics.jsonl')).size > 0;
  } catch {
    return false;
  }
}

/**
 * Checks `logPath`'s shape, refuses a folder a live run holds, and applies the log-dir policy (which may ask).
 * Nothing is written or deleted.
 * @throws ConfigError when `logPath` is a file or lies under one, or when the policy refuses.
 * @throws LockHeldError when a live run holds the folder.
 */
export async function decideLogDir(
  logPath: string,
  behavior: RunConfig['behaviorIfLogDirExists'],
  options: CheckLogDirOptions | undefined,
): Promise<LogDirDecision> {
  checkLogPathShape(logPath);
  // A live run's folder is refused before anything is asked or read.
  const holder = readLockOwner(resolve(logPath, RUN_LOCK_FILE));
  if (holder !== undefined && lockOwnerAlive(holder)) throw new LockHeldError(lockedMessage(logPath)(holder), holder);
  return checkLogDir(logPath, behavior, options);
}

/** A log dir this run owns: its lock, where it resumes, and whether the run created the folder. */
export interface ClaimedLogDir {
  lock: HeldLock;
  resumeFrom: CheckpointRecord | undefined;
  /** 0, or the `step` of the checkpoint the run resumes from. */
  startStep: number;
  /** The folder was made (or emptied) by this run: a run that fails before logging anything removes it. */
  createdDir: boolean;
}

/**
 * Acts on a `decision` other than `exit`: finds the resume point, takes the run lock (before deleting anything; the
 * lock file stays through a delete), empties or creates the folder, and drops `metrics.jsonl` rows at or past the
 * resume point.
 */
export function claimLogDir(
  logPath: string,
  decision: Exclude<LogDirDecision, 'exit'>,
  resumeKey: string,
  log: (line: string) => void,
): ClaimedLogDir {
  let resumeFrom: CheckpointRecord | undefined;
  if (decision === 'resume') {
    resumeFrom = getLastCheckpoint(logPath, resumeKey);
    if (resumeFrom === undefined) log(`${logPath}: no checkpoint to resume from; starting at step 0`);
  }
  // Owned from here (before deleting anything in it); the lock file stays through a delete.
  let lock = existsSync(logPath) ? takeRunLock(logPath) : undefined;
  if (decision === 'delete') {
    for (const entry of readdirSync(logPath)) {
      if (entry !== RUN_LOCK_FILE) rmSync(resolve(logPath, entry), { recursive: true, force: true });
    }
  }
  const createdDir = decision === 'delete' || !existsSync(logPath);
  mkdirSync(logPath, { recursive: true });
  lock ??= takeRunLock(logPath);
  const startStep = resumeFrom === undefined ? 0 : resumeStepOf(resumeFrom);
  // Rows past the resume point were written after the checkpoint by a process that died: they are recomputed. A
  // final checkpoint is written after everything of its run (final evaluations included), so nothing is dropped.
  const dropped = resumeFrom?.final === true ? 0 : truncateMetricsFrom(logPath, startStep);
  // The same for the steps' timing spans (never reported: they are only timings).
  if (resumeFrom?.final !== true) truncateTimingSpansFrom(logPath, startStep);
  if (dropped > 0) log(`dropped ${dropped} metrics rows at or after step ${startStep}; they will be recomputed`);
  if (resumeFrom !== undefined) log(`resuming from checkpoint "${resumeFrom.name}" at step ${startStep}`);
  return { lock, resumeFrom, startStep, createdDir };
}
