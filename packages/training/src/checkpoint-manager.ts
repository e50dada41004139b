/**
 * When a training loop saves, which saves it keeps, and how a save overlaps the next step: one owner for every loop
 * (the epoch driver of SFT, DPO and off-policy distillation; the RL loops, hence on-policy distillation). Upstream's
 * `checkpoint_utils.CheckpointManager` is the model:
 *
 * - **periodic** saves (state + sampler weights, TTL `ttl_seconds`) every `save_every` steps, every
 *   `save_every_seconds` of wall time, or every `save_every_tokens` trained tokens, whichever comes first;
 * - **rolling** saves (state only, resume-only, record `rolling: true`, TTL `rolling_ttl_seconds`) every
 *   `rolling_save_every` steps between the periodic ones;
 * - the **final** save (no TTL), and the resumable save of an interrupted run.
 *
 * A save is queued right behind the step's optimizer step, so it holds exactly the first `done` updates however long
 * the loop takes to look at it; the loop does not wait for it. Its record is appended to `checkpoints.jsonl` once its
 * paths are back AND the metrics row of the step before it is written (`logged`), so a resumed run never loses a row.
 * The loop waits only where it must: before queuing the next save while the previous one is still running (one save
 * in flight), and at the end (`drain`, `saveFinal`).
 *
 * Retention: resume states (`state_path`) are deleted through the service only after a newer one is recorded. With
 * `keep_last = N`, the newest N resume states are kept (the final one counts), older intermediate ones are deleted
 * (a periodic save keeps its sampler weights); with `keep_last = null`, every periodic state is kept and only the
 * newest rolling one (upstream's behaviour), and the final save removes the rolling ones left. A failed delete is a
 * warning, not a failed run: the TTL removes the state later. While a save is running the service briefly holds one
 * more state than `keep_last`: the oldest goes only once the new one is recorded.
 *
 * Differences from upstream: `keep_last` generalises upstream's fixed "one rolling checkpoint"; a timed or
 * token-count save overlaps the next step by default (upstream's `async_periodic_saves`), and its record waits for the
 * step's metrics row; a resumed run re-deletes the states a killed process may have left just before the kept ones.
 */
import { performance } from 'node:perf_hooks';
import { ConfigError, traceScope } from '@cookbook/core';
import {
  appendCheckpointRecord,
  type CheckpointClient,
  type CheckpointRecord,
  checkpointName,
  readCheckpoints,
  type SavedPaths,
  submitCheckpointSave,
} from '@cookbook/logging';
import { z } from 'zod';

/** The checkpoint fields of every loop that saves checkpoints, described and defaulted once. */
export const checkpointConfigShape = {
  saveEvery: z.number().int().nonnegative().default(20).describe('Steps between checkpoints (0 = final only)'),
  saveEverySeconds: z
    .number()
    .nonnegative()
    .default(0)
    .describe('Also save a checkpoint once this many seconds have passed since the last one (0 = off)'),
  saveEveryTokens: z
    .number()
    .int()
    .nonnegative()
    .default(0)
    .describe('Also save a checkpoint once this many tokens were trained since the last one (0 = off)'),
  ttlSeconds: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(604_800)
    .describe('Lifetime of periodic checkpoints in seconds; null = forever'),
  rollingSaveEvery: z
    .number()
    .int()
    .nonnegative()
    .default(0)
    .describe('Steps between resume-only saves (state only, no sampler weights) between the periodic ones (0 = off)'),
  rollingTtlSeconds: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(7200)
    .describe('Lifetime of resume-only saves in seconds (a safety net if deleting one fails); null = forever'),
  keepLast: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe(
      'Resume states kept on the service, the final one included: older ones are deleted once a newer one is recorded (their sampler weights stay); null = every periodic state and the newest resume-only one',
    ),
};

/** The checkpoint settings a loop hands the manager (the parsed `checkpointConfigShape` fields). */
export interface CheckpointPolicy {
  saveEvery: number;
  saveEverySeconds?: number;
  saveEveryTokens?: number;
  ttlSeconds: number | null;
  rollingSaveEvery?: number;
  rollingTtlSeconds?: number | null;
  keepLast?: number | null;
}

/** The service calls retention needs: delete a checkpoint, list a training run's state checkpoints. */
export interface CheckpointStore {
  /** Deletes a checkpoint by its `tinker://` path; one already gone counts as deleted. */
  delete(tinkerPath: string): Promise<void>;
  /** The `tinker://` paths of the training states (`weights/…`) of a training run. */
  listStates(trainingRunId: string): Promise<string[]>;
}

/** What a save is: `periodic` (state + sampler, kept), `rolling` (state only, resume-only). */
export type SaveKind = 'periodic' | 'rolling';

interface RestLike {
  deleteCheckpoint(path: string): Promise<void>;
  listCheckpoints(runId: string): Promise<{ tinker_path: string; checkpoint_type: string }[]>;
}

/**
 * The checkpoint store of a service client that has a REST client (`createRestClient()`: the official SDK's and
 * ours), else undefined. A delete answered 404 counts as done.
 */
export function checkpointStoreFor(service: unknown): CheckpointStore | undefined {
  if (typeof service !== 'object' || service === null || !('createRestClient' in service)) return undefined;
  const create = (service as { createRestClient: unknown }).createRestClient;
  if (typeof create !== 'function') return undefined;
  let rest: Promise<RestLike> | undefined;
  const client = () => {
    rest ??= Promise.resolve(create.call(service) as RestLike | Promise<RestLike>);
    return rest;
  };
  return {
    async delete(path) {
      try {
        await (await client()).deleteCheckpoint(path);
      } catch (error) {
        if (typeof error === 'object' && error !== null && (error as { status?: unknown }).status === 404) return;
        throw error;
      }
    },
    async listStates(runId) {
      const all = await (await client()).listCheckpoints(runId);
      return all.filter((c) => c.checkpoint_type === 'training').map((c) => c.tinker_path);
    },
  };
}

/** `tinker://<run>/weights/<name>` → run and name (undefined for another shape). */
function parseStatePath(path: string): { run: string; name: string } | undefined {
  const m = /^tinker:\/\/([^/]+)\/weights\/([^/]+)$/.exec(path);
  return m === null ? undefined : { run: m[1]!, name: m[2]! };
}

/** Options of {@link CheckpointManager}. */
export interface CheckpointManagerOptions {
  client: CheckpointClient;
  logPath: string;
  policy: CheckpointPolicy;
  /** Deletes older resume states (`checkpointStoreFor(service)`); required when `keepLast` or `rollingSaveEvery` is set. */
  store?: CheckpointStore | undefined;
  /** The step the run starts at (0, or its resume point). */
  startStep: number;
  /** Tokens trained before `startStep` (the resume record's `elapsed_tokens`). */
  startTokens?: number;
  /** Warnings (a failed delete). */
  log?: (line: string) => void;
  /** Wall clock in ms (tests). Default `performance.now`. */
  now?: () => number;
}

/** A save in flight. */
export interface QueuedSave {
  name: string;
  kind: SaveKind;
  /** Steps done = the step a resume starts at. */
  step: number;
  /** The state path and, for a periodic save, the sampler path, once the service has them. */
  paths: Promise<SavedPaths>;
}

interface Queued extends QueuedSave {
  fields: Omit<CheckpointRecord, 'name'>;
  recorded: Promise<void> | undefined;
}

interface LiveState {
  state_path: string;
  step: number;
  rolling: boolean;
}

/** How many resume states a killed process can have left undeleted just before the kept ones (retried on resume). */
const RESUME_RETRY = 2;

/** See the file comment. One manager per run; its methods are called in step order. */
export class CheckpointManager {
  private readonly client: CheckpointClient;
  private readonly logPath: string;
  private readonly policy: Required<CheckpointPolicy>;
  private readonly store: CheckpointStore | undefined;
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  private lastSaveTime: number;
  private lastSaveTokens: number;
  /** Saves queued and not yet recorded, oldest first. */
  private readonly queue: Queued[] = [];
  /** Metrics rows are written for every step below this. */
  private loggedUpTo: number;
  /** Records are appended one after the other, in step order. */
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown;
  /** Recorded resume states still on the service (as far as this run knows), oldest first. */
  private readonly live: LiveState[] = [];
  /** States an earlier process of the run may have left undeleted (deleted at start-up). */
  private leftovers: LiveState[] = [];
  private lastSavedStep: number | undefined;
  /** The step the run started at (0, or its resume point). */
  private readonly startStep: number;
  /** The training run a killed process trained, to search once for states it saved but never recorded. */
  private orphanRun: { run: string; after: number } | undefined;
  /** The deletion of what an earlier process left (see the constructor). */
  private startup: Promise<void> = Promise.resolve();

  /** @throws ConfigError when retention is asked for and the service cannot delete checkpoints. */
  constructor(options: CheckpointManagerOptions) {
    const p = options.policy;
    this.policy = {
      saveEvery: p.saveEvery,
      saveEverySeconds: p.saveEverySeconds ?? 0,
      saveEveryTokens: p.saveEveryTokens ?? 0,
      ttlSeconds: p.ttlSeconds,
      rollingSaveEvery: p.rollingSaveEvery ?? 0,
      rollingTtlSeconds: p.rollingTtlSeconds === undefined ? 7200 : p.rollingTtlSeconds,
      keepLast: p.keepLast ?? null,
    };
    this.client = options.client;
    this.logPath = options.logPath;
    this.store = options.store;
    this.log = options.log ?? (() => undefined);
    this.now = options.now ?? (() => performance.now());
    this.lastSaveTime = this.now();
    this.lastSaveTokens = options.startTokens ?? 0;
    this.loggedUpTo = options.startStep;
    this.startStep = options.startStep;
    if (this.store === undefined && (this.policy.keepLast !== null || this.policy.rollingSaveEvery > 0)) {
      const key = this.policy.keepLast !== null ? 'keep_last' : 'rolling_save_every';
      throw new ConfigError(
        `${key} needs a service client that can delete checkpoints (createRestClient()); unset ${key} or use a ServiceClient`,
        { key },
      );
    }
    // The resume states earlier processes of this run recorded (the run resumes from the newest).
    for (const r of readCheckpoints(this.logPath)) {
      const step = typeof r.step === 'number' ? r.step : undefined;
      if (r.final === true || typeof r.state_path !== 'string' || step === undefined || step > options.startStep) {
        continue;
      }
      this.live.push({ state_path: r.state_path, step, rolling: r.rolling === true });
    }
    // A killed process may have died between recording a save and deleting the state it replaced: the few states
    // just before the kept ones are deleted again (a 404 counts as done). Anything further back
    // was deleted by the process that recorded what followed it, or is left to its TTL.
    this.leftovers = this.prune(false).slice(-RESUME_RETRY);
    const last = this.live.at(-1);
    this.lastSavedStep = last?.step === options.startStep ? last.step : undefined;
    // It may also have died after a save reached the service and before its record: states of the resumed training
    // run past the resume point that checkpoints.jsonl does not name. They are found with one list call.
    const resumed = last === undefined ? undefined : parseStatePath(last.state_path);
    if (resumed !== undefined && this.retains()) {
      this.orphanRun = { run: resumed.run, after: options.startStep };
    }
    // Both are deleted now, while the run starts; the first save waits for that.
    if (this.leftovers.length > 0 || this.orphanRun !== undefined) this.startup = this.deleteAll([]);
  }

  /** True when this run deletes states (keep_last, or rolling saves). */
  private retains(): boolean {
    return this.policy.keepLast !== null || this.policy.rollingSaveEvery > 0;
  }

  /** The states of `orphanRun` that no record names, past its resume point. */
  private async orphans(): Promise<LiveState[]> {
    const o = this.orphanRun;
    if (o === undefined || this.store === undefined) return [];
    this.orphanRun = undefined;
    const named = new Set(readCheckpoints(this.logPath).map((r) => r.state_path));
    const out: LiveState[] = [];
    for (const path of await this.store.listStates(o.run)) {
      const parsed = parseStatePath(path);
      const step = parsed !== undefined && /^\d{6,}$/.test(parsed.name) ? Number(parsed.name) : undefined;
      if (step !== undefined && step > o.after && !named.has(path))
        out.push({ state_path: path, step, rolling: false });
    }
    return out;
  }

  /** True when a save of the first `step` steps is queued or recorded by this run (or is its resume point). */
  hasSaveAt(step: number): boolean {
    return this.lastSavedStep === step;
  }

  /**
   * What is due once `done` steps are submitted (`elapsedTokens`: tokens trained so far): a periodic save on the step,
   * time or token cadence, else a rolling one, else nothing. The last step of a run is the final save's, never due.
   */
  due(done: number, totalSteps: number, elapsedTokens = 0): SaveKind | undefined {
    if (done <= 0 || done >= totalSteps) return undefined;
    const p = this.policy;
    if (p.saveEvery > 0 && done % p.saveEvery === 0) return 'periodic';
    if (p.saveEverySeconds > 0 && (this.now() - this.lastSaveTime) / 1000 >= p.saveEverySeconds) return 'periodic';
    if (p.saveEveryTokens > 0 && elapsedTokens - this.lastSaveTokens >= p.saveEveryTokens) return 'periodic';
    if (p.rollingSaveEvery > 0 && done % p.rollingSaveEvery === 0) return 'rolling';
    return undefined;
  }

  /**
   * Waits until a new save may be queued: the previous save is back, and — when its step's row is logged — recorded,
   * with the states it replaces deleted. So the service holds at most one state beyond the kept ones. Nothing waits
   * when the previous save finished while the loop worked.
   */
  async ready(): Promise<void> {
    await this.startup;
    const previous = this.queue.at(-1);
    if (previous === undefined) return;
    await previous.paths.catch(() => undefined);
    if (previous.recorded !== undefined) await previous.recorded;
  }

  /**
   * Queues a save of the first `done` steps now, without waiting (call right after the step's optimizer step is
   * submitted, before the next step's work: the service runs requests in order, so the save holds exactly `done`
   * updates). Its record is appended once the save is back and {@link logged} has seen step `done - 1`.
   */
  queueSave(kind: SaveKind, done: number, fields: Omit<CheckpointRecord, 'name'> = {}, elapsedTokens = 0): QueuedSave {
    this.throwIfFailed();
    const name = checkpointName(done);
    const paths = submitCheckpointSave(this.client, name, {
      kind: kind === 'periodic' ? 'both' : 'state',
      ttlSeconds: kind === 'periodic' ? this.policy.ttlSeconds : this.policy.rollingTtlSeconds,
    });
    this.lastSaveTime = this.now();
    this.lastSaveTokens = elapsedTokens;
    this.lastSavedStep = done;
    const queued: Queued = {
      name,
      kind,
      step: done,
      paths,
      fields: { ...fields, step: done, ...(kind === 'rolling' ? { rolling: true } : {}) },
      recorded: undefined,
    };
    this.queue.push(queued);
    this.flush();
    return queued;
  }

  /**
   * {@link ready}, then {@link queueSave}: the loop waits only when saves come faster than they finish. Submit nothing
   * else to the training client until this resolves (the save must come right behind the step's optimizer step).
   */
  async submit(
    kind: SaveKind,
    done: number,
    fields: Omit<CheckpointRecord, 'name'> = {},
    elapsedTokens = 0,
  ): Promise<QueuedSave> {
    // The loop's wait here is its checkpoint time (a span in `timing_spans.jsonl`).
    return traceScope('checkpoint', async () => {
      await this.ready();
      return this.queueSave(kind, done, fields, elapsedTokens);
    });
  }

  /** The metrics row of `step` is written (or the step has none): saves of `step + 1` steps may be recorded. */
  logged(step: number): void {
    if (step + 1 > this.loggedUpTo) this.loggedUpTo = step + 1;
    this.flush();
  }

  /** Waits until every queued save is recorded and the states it replaces deleted. Rethrows a failed save. */
  async drain(): Promise<void> {
    this.loggedUpTo = Number.POSITIVE_INFINITY;
    this.flush();
    await this.startup;
    await this.chain;
    this.throwIfFailed();
  }

  /** Settles everything in flight without throwing (a run that failed elsewhere). */
  async settle(): Promise<void> {
    await Promise.allSettled([this.startup, this.chain, ...this.queue.map((q) => q.paths)]);
  }

  /**
   * After {@link drain}: saves now (state + sampler) and records it — the resumable save of an interrupted run, or
   * the final one (`final: true`: no TTL; afterwards only the newest `keepLast` resume states stay, the rolling ones
   * go when `keepLast` is null).
   */
  async saveNow(name: string, fields: Omit<CheckpointRecord, 'name'>, final = false): Promise<CheckpointRecord> {
    return traceScope('checkpoint', () => this.saveNowUntraced(name, fields, final));
  }

  private async saveNowUntraced(
    name: string,
    fields: Omit<CheckpointRecord, 'name'>,
    final: boolean,
  ): Promise<CheckpointRecord> {
    await this.drain();
    const paths = await submitCheckpointSave(this.client, name, {
      kind: 'both',
      ttlSeconds: final ? null : this.policy.ttlSeconds,
    });
    const record: CheckpointRecord = { name, ...fields, ...(final ? { final: true } : {}), ...paths };
    appendCheckpointRecord(this.logPath, record);
    if (typeof record.step === 'number') this.lastSavedStep = record.step;
    if (paths.state_path !== undefined && typeof record.step === 'number') {
      this.live.push({ state_path: paths.state_path, step: record.step, rolling: false });
    }
    await this.deleteAll(this.prune(final));
    return record;
  }

  /**
   * The save at a loop's end, `stoppedAt` steps done of `endStep`: the final checkpoint when the loop reached its
   * end; else (interrupted at a step boundary) a resumable one at `stoppedAt`, unless the loop ran no step since
   * `startStep` or a save is there already (then only {@link drain}). Returns the final record, if one was saved.
   */
  async saveAtEnd(
    stoppedAt: number,
    endStep: number,
    fields: Omit<CheckpointRecord, 'name'>,
  ): Promise<CheckpointRecord | undefined> {
    if (stoppedAt >= endStep) return this.saveNow('final', fields, true);
    if (stoppedAt > this.startStep && !this.hasSaveAt(stoppedAt)) await this.saveNow(checkpointName(stoppedAt), fields);
    else await this.drain();
    return undefined;
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  /** Chains the record of every queued save whose metrics are written, in order. */
  private flush(): void {
    for (const q of this.queue) {
      if (q.recorded !== undefined) continue;
      if (q.step - 1 >= this.loggedUpTo) break;
      q.recorded = this.chain = this.chain.then(async () => {
        if (this.failure !== undefined) return;
        try {
          const paths = await q.paths;
          appendCheckpointRecord(this.logPath, { name: q.name, ...q.fields, ...paths });
          this.queue.splice(this.queue.indexOf(q), 1);
          if (paths.state_path !== undefined) {
            this.live.push({ state_path: paths.state_path, step: q.step, rolling: q.kind === 'rolling' });
          }
          await this.deleteAll(this.prune(false));
        } catch (error) {
          this.failure = error;
        }
      });
    }
  }

  /** Takes the resume states past retention off the live list and returns them (oldest first). */
  private prune(final: boolean): LiveState[] {
    const keepLast = this.policy.keepLast;
    if (keepLast !== null) {
      const excess = this.live.length - keepLast;
      return excess > 0 ? this.live.splice(0, excess) : [];
    }
    // keep_last = null: every periodic state stays; the newest rolling one stays until the final save.
    const rolling = this.live.filter((s) => s.rolling);
    const drop = final ? rolling : rolling.slice(0, -1);
    for (const s of drop) this.live.splice(this.live.indexOf(s), 1);
    return drop;
  }

  private async deleteAll(states: readonly LiveState[]): Promise<void> {
    if (this.store === undefined) return;
    let found: LiveState[] = [];
    try {
      found = await this.orphans();
    } catch (error) {
      this.log(
        `warning: could not list the checkpoints of the resumed run: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const all = [...found, ...this.leftovers.splice(0), ...states];
    for (const s of all) {
      try {
        await this.store.delete(s.state_path);
      } catch (error) {
        const why = error instanceof Error ? error.message : String(error);
        this.log(`warning: could not delete checkpoint ${s.state_path} (its TTL will remove it): ${why}`);
      }
    }
  }
}
