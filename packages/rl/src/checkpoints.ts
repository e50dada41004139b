/**
 * Checkpoints of an RL run (upstream `checkpoint_utils.py` and `cli_utils.check_log_dir`): one JSON line per save
 * in `log_path/checkpoints.jsonl`, resume from the last record that holds a training state, and what to do when
 * the log folder already exists.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { CheckpointError, ConfigError } from '@cookbook/core';
import { appendJsonLine } from '@cookbook/logging';
import type { RLTrainingClient } from './clients.js';

/** File name of the checkpoint log inside a log dir. */
export const CHECKPOINTS_FILE = 'checkpoints.jsonl';

/** One line of `checkpoints.jsonl`. */
export interface CheckpointRecord {
  /** `000020` style step name, or `final`. */
  name: string;
  /** The batch training resumes at. */
  batch?: number;
  /** `tinker://…/weights/…`: weights and optimizer state. */
  state_path?: string;
  /** `tinker://…/sampler_weights/…`: weights for sampling. */
  sampler_path?: string;
  final?: boolean;
  [key: string]: unknown;
}

/** `000042` for step 42. */
export function checkpointName(step: number): string {
  return String(step).padStart(6, '0');
}

/** Every record of `log_path/checkpoints.jsonl` (none when the file is missing). Unparsable lines are skipped. */
export function loadCheckpointRecords(logPath: string): CheckpointRecord[] {
  const path = join(logPath, CHECKPOINTS_FILE);
  if (!existsSync(path)) return [];
  const out: CheckpointRecord[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const rec = JSON.parse(line) as CheckpointRecord;
      if (typeof rec.name === 'string') out.push(rec);
    } catch {
      // a line cut short by a crash: ignore it
    }
  }
  return out;
}

/** The last record that has `requiredKey` (default `state_path`), if any. */
export function getLastCheckpoint(logPath: string, requiredKey = 'state_path'): CheckpointRecord | undefined {
  const records = loadCheckpointRecords(logPath);
  for (let i = records.length - 1; i >= 0; i--) {
    if (records[i]![requiredKey] !== undefined) return records[i];
  }
  return undefined;
}

/** What to save. */
export type CheckpointKind = 'state' | 'sampler' | 'both';

/**
 * Save a checkpoint and append its record. `loopState` (e.g. `{batch}`) is stored in the record. Returns the
 * record, whose `sampler_path` (kinds sampler / both) can seed a sampling client.
 */
export async function saveCheckpoint(
  client: RLTrainingClient,
  name: string,
  logPath: string,
  loopState: Record<string, unknown>,
  kind: CheckpointKind = 'both',
  ttlSeconds?: number,
): Promise<CheckpointRecord> {
  const opts = ttlSeconds === undefined ? {} : { ttlSeconds };
  const statePromise = kind === 'sampler' ? undefined : client.saveState(name, opts);
  const samplerPromise = kind === 'state' ? undefined : client.saveWeightsForSampler(name, opts);
  const record: CheckpointRecord = { name, ...loopState };
  if (statePromise !== undefined) record.state_path = (await statePromise).path;
  if (samplerPromise !== undefined) {
    const saved = await samplerPromise;
    if (saved.path === undefined) throw new CheckpointError(`save_weights_for_sampler("${name}") returned no path`);
    record.sampler_path = saved.path;
  }
  appendJsonLine(join(logPath, CHECKPOINTS_FILE), record);
  return record;
}

/** What to do when the log folder exists. */
export type LogDirBehavior = 'ask' | 'delete' | 'resume' | 'raise';

/**
 * Apply `behavior` to an existing log folder: `delete` removes it, `resume` keeps it (training resumes from its
 * checkpoints), `raise` throws, `ask` prompts on a terminal (delete / resume / exit) and throws otherwise.
 * Returns `exit` when the user chose to stop.
 */
export async function checkLogDir(logPath: string, behavior: LogDirBehavior): Promise<'fresh' | 'resume' | 'exit'> {
  if (!existsSync(logPath)) return 'fresh';
  let choice: LogDirBehavior | 'exit' = behavior;
  if (behavior === 'ask') {
    if (!process.stdin.isTTY) {
      throw new ConfigError(
        `log_path ${logPath} already exists; set behavior_if_log_dir_exists=resume to continue it or =delete to start over`,
        { key: 'behavior_if_log_dir_exists' },
      );
    }
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      for (;;) {
        const a = (await rl.question(`Log dir ${logPath} exists. [delete, resume, exit]: `)).trim().toLowerCase();
        if (a === 'delete' || a === 'resume' || a === 'exit') {
          choice = a;
          break;
        }
      }
    } finally {
      rl.close();
    }
  }
  if (choice === 'exit') return 'exit';
  if (choice === 'raise') {
    throw new ConfigError(`log_path ${logPath} already exists (behavior_if_log_dir_exists=raise)`, {
      key: 'behavior_if_log_dir_exists',
    });
  }
  if (choice === 'delete') {
    rmSync(logPath, { recursive: true, force: true });
    return 'fresh';
  }
  return 'resume';
}
