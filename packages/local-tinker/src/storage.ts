/**
 * On-disk layout of the embedded service, under one root folder, so that runs and checkpoints survive a restart:
 *
 *   runs/<run id>/run.json                         the training run (base model, LoRA config, metadata)
 *   runs/<run id>/weights/<name>/                  a training state: checkpoint.json, state/ (engine), adapter/ (PEFT)
 *   runs/<run id>/sampler_weights/<name>/          sampler weights: checkpoint.json, adapter/ (PEFT)
 *
 * A checkpoint is written into a hidden staging folder and renamed into place, so a reader (or a restart after
 * a crash) sees either the whole checkpoint or none of it, and a save is reported done only once every file it
 * wrote is in place. A root has one owner at a time: `init` takes `.service.lock` (the owner's pid; a lock left by
 * a dead process is taken over) before it removes the staging leftovers of an interrupted save, so a second service
 * started on the same root fails at once, naming the first, instead of deleting the folders the first is writing.
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { acquireProcessLock, CheckpointError, describeLockOwner, type HeldLock } from '@cookbook/core';

/** A run's persisted description (REST `TrainingRun` plus what is needed to rebuild the model). */
export interface RunRecord {
  training_run_id: string;
  base_model: string;
  model_owner: string;
  is_lora: true;
  lora_rank: number;
  lora_config: { rank: number; seed?: number; train_attn: boolean; train_mlp: boolean; train_unembed: boolean };
  user_metadata?: Record<string, string>;
  created_at: string;
  last_request_time: string;
}

/** A checkpoint's persisted description (REST `Checkpoint`). */
export interface CheckpointRecord {
  checkpoint_id: string;
  checkpoint_type: 'training' | 'sampler';
  time: string;
  tinker_path: string;
  size_bytes?: number;
  public: boolean;
  expires_at?: string;
}

export type CheckpointKind = 'weights' | 'sampler_weights';

/** A run id or checkpoint name that could escape the root or hide from listings (answered 400). */
export class UnsafeNameError extends CheckpointError {
  override name = 'UnsafeNameError';
}

/**
 * Refuses a name that is empty, `.` or `..`, starts with a dot (staging and pruning folders do, and are removed at
 * start-up), is longer than 255 characters, or holds anything but letters, digits, `_`, `-`, `.` and `:`.
 */
export function checkName(name: string, what: string): void {
  if (!/^[A-Za-z0-9_:-][A-Za-z0-9_.:-]{0,254}$/.test(name)) {
    throw new UnsafeNameError(
      `${what} "${name.length > 80 ? `${name.slice(0, 80)}…` : name}" is not allowed: use 1–255 letters, digits, "_", "-", "." or ":", not starting with "."`,
    );
  }
}

/** Folder-safe form of an id (run ids contain ':'), after {@link checkName}. */
export function encodeSegment(id: string, what = 'name'): string {
  checkName(id, what);
  return encodeURIComponent(id);
}

async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.${randomUUID()}.tmp`;
  await writeFile(tmp, `${JSON.stringify(value, null, 2)}\n`);
  await rename(tmp, file);
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

async function dirSize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) total += await dirSize(p);
    else total += (await stat(p)).size;
  }
  return total;
}

/** The file that makes a process the owner of a service root. */
export const ROOT_LOCK_FILE = '.service.lock';

function incomplete(path: string, lost: string[]): CheckpointError {
  return new CheckpointError(
    `saving checkpoint ${path} failed: ${lost.join(', ')} went missing while it was written (did another process change the service root?)`,
  );
}

/** Reads and writes runs and checkpoints under `root`. */
export class Storage {
  readonly root: string;
  private lock: HeldLock | undefined;

  constructor(root: string) {
    this.root = root;
  }

  runDir(runId: string): string {
    return join(this.root, 'runs', encodeSegment(runId, 'run id'));
  }

  checkpointDir(runId: string, kind: CheckpointKind, name: string): string {
    return join(this.runDir(runId), kind, encodeSegment(name, 'checkpoint name'));
  }

  /**
   * Create the root, take its lock and remove staging leftovers of an interrupted save.
   * @throws LockHeldError when another live process serves this root (the message names it)
   */
  async init(): Promise<void> {
    await mkdir(join(this.root, 'runs'), { recursive: true });
    const who = [basename(process.argv[1] ?? 'node'), ...process.argv.slice(2, 3)].join(' ');
    this.lock ??= acquireProcessLock(
      join(this.root, ROOT_LOCK_FILE),
      `local Tinker service of "${who}"`,
      (owner) =>
        `the service root ${this.root} is in use by another local Tinker service: ${describeLockOwner(owner)}. ` +
        'One service owns a root at a time: stop that one, give this one another root (root=… or ' +
        'COOKBOOK_LOCAL_TINKER_ROOT), or share the running service by pointing TINKER_BASE_URL at it',
    );
    for (const run of await readdir(join(this.root, 'runs'))) {
      for (const kind of ['weights', 'sampler_weights']) {
        const d = join(this.root, 'runs', run, kind);
        if (!existsSync(d)) continue;
        for (const entry of await readdir(d)) {
          if (entry.startsWith('.')) await rm(join(d, entry), { recursive: true, force: true });
        }
      }
    }
  }

  /** Give up the root (the service stopped). */
  release(): void {
    this.lock?.release();
    this.lock = undefined;
  }

  async writeRun(run: RunRecord): Promise<void> {
    await mkdir(this.runDir(run.training_run_id), { recursive: true });
    await writeJsonAtomic(join(this.runDir(run.training_run_id), 'run.json'), run);
  }

  async readRun(runId: string): Promise<RunRecord | undefined> {
    return readJson<RunRecord>(join(this.runDir(runId), 'run.json'));
  }

  async listRuns(): Promise<RunRecord[]> {
    const out: RunRecord[] = [];
    const dir = join(this.root, 'runs');
    if (!existsSync(dir)) return out;
    for (const entry of await readdir(dir)) {
      if (entry.startsWith('.')) continue; // a prune in progress
      const r = await readJson<RunRecord>(join(dir, entry, 'run.json'));
      if (r) out.push(r);
    }
    return out;
  }

  /**
   * Write a checkpoint atomically: `fill(staging)` writes the payload into a staging folder, then the record
   * is added and the folder renamed into place. Throws if the checkpoint exists and `overwrite` is false, or if an
   * entry named in `required` is missing (before and after the rename: never a success with files missing).
   */
  async writeCheckpoint(
    runId: string,
    kind: CheckpointKind,
    name: string,
    fill: (staging: string) => Promise<void>,
    options: { ttlSeconds?: number; overwrite?: boolean; required?: readonly string[] } = {},
  ): Promise<CheckpointRecord> {
    const required = options.required ?? [];
    const missing = (dir: string) => required.filter((entry) => !existsSync(join(dir, entry)));
    const final = this.checkpointDir(runId, kind, name);
    const parent = join(this.runDir(runId), kind);
    await mkdir(parent, { recursive: true });
    const staging = join(parent, `.${encodeURIComponent(name)}.${randomUUID()}`);
    try {
      await mkdir(staging);
      await fill(staging);
      const lost = missing(staging);
      if (lost.length > 0) throw incomplete(`tinker://${runId}/${kind}/${name}`, lost);
      const now = new Date();
      const record: CheckpointRecord = {
        checkpoint_id: `${kind}/${name}`,
        checkpoint_type: kind === 'weights' ? 'training' : 'sampler',
        time: now.toISOString(),
        tinker_path: `tinker://${runId}/${kind}/${name}`,
        size_bytes: await dirSize(staging),
        public: false,
      };
      if (options.ttlSeconds !== undefined)
        record.expires_at = new Date(now.getTime() + options.ttlSeconds * 1000).toISOString();
      await writeJsonAtomic(join(staging, 'checkpoint.json'), record);
      if (existsSync(final)) {
        if (!options.overwrite) throw new CheckpointError(`checkpoint ${record.tinker_path} already exists`);
        await rm(final, { recursive: true, force: true });
      }
      await rename(staging, final);
      const gone = missing(final);
      if (!existsSync(join(final, 'checkpoint.json'))) gone.push('checkpoint.json');
      if (gone.length > 0) throw incomplete(record.tinker_path, gone);
      return record;
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }

  async checkpointExists(runId: string, kind: CheckpointKind, name: string): Promise<boolean> {
    const r = await this.readCheckpoint(runId, kind, name);
    return r !== undefined;
  }

  /** The record of a checkpoint, or undefined when missing or expired (an expired one is deleted). */
  async readCheckpoint(runId: string, kind: CheckpointKind, name: string): Promise<CheckpointRecord | undefined> {
    const dir = this.checkpointDir(runId, kind, name);
    const r = await readJson<CheckpointRecord>(join(dir, 'checkpoint.json'));
    if (r === undefined) return undefined;
    if (r.expires_at !== undefined && Date.parse(r.expires_at) <= Date.now()) {
      await rm(dir, { recursive: true, force: true });
      return undefined;
    }
    return r;
  }

  async updateCheckpoint(
    runId: string,
    kind: CheckpointKind,
    name: string,
    patch: Partial<CheckpointRecord>,
  ): Promise<CheckpointRecord> {
    const r = await this.readCheckpoint(runId, kind, name);
    if (r === undefined) throw new CheckpointError(`no checkpoint tinker://${runId}/${kind}/${name}`);
    const next = { ...r, ...patch };
    for (const [k, v] of Object.entries(patch)) if (v === undefined) delete (next as Record<string, unknown>)[k];
    await writeJsonAtomic(join(this.checkpointDir(runId, kind, name), 'checkpoint.json'), next);
    return next;
  }

  async deleteCheckpoint(runId: string, kind: CheckpointKind, name: string): Promise<boolean> {
    const dir = this.checkpointDir(runId, kind, name);
    if (!existsSync(dir)) return false;
    await rm(dir, { recursive: true, force: true });
    return true;
  }

  /**
   * Deletes every checkpoint whose `expires_at` (its save's or `ttl` route's `ttl_seconds`) has passed, so an expired
   * checkpoint frees its disk even if nobody reads it again (a read also deletes it). Bounded: looks at most at
   * `limit` checkpoints per call (the rest wait for the next call). Returns the tinker paths removed.
   */
  async removeExpired(options: { now?: number; limit?: number } = {}): Promise<string[]> {
    const now = options.now ?? Date.now();
    let budget = options.limit ?? 100_000;
    const removed: string[] = [];
    const runs = join(this.root, 'runs');
    if (!existsSync(runs)) return removed;
    for (const run of await readdir(runs)) {
      for (const kind of ['weights', 'sampler_weights'] as const) {
        const dir = join(runs, run, kind);
        if (!existsSync(dir)) continue;
        for (const entry of await readdir(dir)) {
          if (entry.startsWith('.')) continue;
          if (budget-- <= 0) return removed;
          const r = await readJson<CheckpointRecord>(join(dir, entry, 'checkpoint.json'));
          if (r?.expires_at !== undefined && Date.parse(r.expires_at) <= now) {
            await rm(join(dir, entry), { recursive: true, force: true });
            removed.push(r.tinker_path);
          }
        }
      }
    }
    return removed;
  }

  /** The checkpoints of a run, oldest first (expired ones are deleted and left out). */
  async listCheckpoints(runId: string): Promise<CheckpointRecord[]> {
    const out: CheckpointRecord[] = [];
    for (const kind of ['weights', 'sampler_weights'] as const) {
      const d = join(this.runDir(runId), kind);
      if (!existsSync(d)) continue;
      for (const entry of await readdir(d)) {
        if (entry.startsWith('.')) continue;
        let name: string;
        try {
          name = decodeURIComponent(entry);
          checkName(name, 'checkpoint name');
        } catch {
          continue; // not a checkpoint this service wrote
        }
        const r = await this.readCheckpoint(runId, kind, name);
        if (r) out.push(r);
      }
    }
    return out.sort((a, b) => a.time.localeCompare(b.time));
  }
}
