/**
 * What every route of the service shares, below the route modules: storage, futures, the engine host (worker
 * threads that own models and samplers), the registries of sessions, training runs (models) and samplers, and the
 * session clock. Invariants: a model's requests run in seq_id order through its queue, which holds a bounded
 * payload; a session that stopped heartbeating for `sessionTimeoutMs` has its models and samplers unloaded (their
 * saved files stay) and a later request for one of them gets a 410 that says why; the models loaded stay within
 * the model memory budget; a `base_model` folder is read only under the operator's model roots; no message leaves
 * with the service root's path in it.
 */
import { randomBytes } from 'node:crypto';
import { isAbsolute, resolve, sep } from 'node:path';
import { BoundedMap } from '@cookbook/core';
import type { WireLoraConfig } from '@cookbook/tinker-wire';
import { checkBaseModel, realOrResolved } from './base-models.js';
import { formatBytes, pruneCache } from './cache.js';
import { ClockCycle } from './clock-cycle.js';
import { EngineHost, EngineOpCancelled, EngineOpError, EngineWorkerLost } from './engine-host.js';
import type { BaseInfo, EngineOp, EngineOpKind, EngineOpResult, SequenceProgress } from './engine-protocol.js';
import { NOT_RESIDENT } from './engine-protocol.js';
import { FutureFailure, FutureTable } from './futures.js';
import { futureReply, HttpError, type ServiceReply, userError } from './http-errors.js';
import { formatMb, overLimit, resolveLimits, type ServiceLimits } from './limits.js';
import { bodyHash, ModelQueue, QueueLimitError, SeqConflictError, SeqRangeError } from './model-queue.js';
import { SampleRequests } from './sample-requests.js';
import { SamplerPool } from './sampler-pool.js';
import type { ModelState, ResolvedServiceOptions as Resolved, ServiceOptions, SessionState } from './service-types.js';
import { type RunRecord, Storage } from './storage.js';

export type { ModelState, ServiceOptions, SessionState } from './service-types.js';

/**
 * Engine failures that are the request's fault (bad input, a model or checkpoint that cannot be read or written):
 * answered as user errors, by the failure's class name (a worker's error crosses the thread boundary by name).
 */
const USER_ERROR_KINDS = new Set([
  'EngineInputError',
  'ModelLoadError',
  'CheckpointError',
  'SafetensorsError',
  'WeightsError',
]);

/** The service's shared state and the helpers the routes use. */
export class ServiceState {
  readonly storage: Storage;
  readonly futures: FutureTable;
  readonly engine: EngineHost;
  /** The clock-cycle model, when on. */
  readonly clock: ClockCycle | undefined;
  readonly options: Resolved;
  readonly limits: ServiceLimits;
  readonly sessions = new Map<string, SessionState>();
  readonly models = new Map<string, ModelState>();
  readonly samplers: SamplerPool;
  /** Sample requests queued or running (cancel_future, the per-client bound). */
  readonly sampleRequests: SampleRequests;
  /** Models being created: their create request, for replays. */
  readonly creating = new Map<string, { requestId: string; hash: string }>();
  /** Why a session, model or sampler that existed is gone (answered 410), most recent last. */
  private readonly gone = new BoundedMap<string, string>(10_000);
  /** Keys the HMACs of signed download URLs and of the constant-time API-key check; new per process. */
  readonly secret = randomBytes(32);
  private readonly rootPaths: string[];
  private sweeper: ReturnType<typeof setInterval> | undefined;
  private pruner: ReturnType<typeof setInterval> | undefined;
  closing = false;

  constructor(options: ServiceOptions) {
    this.options = {
      root: options.root,
      apiKey: options.apiKey,
      longPollMs: options.longPollMs ?? 20_000,
      futureTtlMs: options.futureTtlMs ?? 30 * 60_000,
      sessionTimeoutMs: options.sessionTimeoutMs ?? 5 * 60_000,
      engineThreads: options.engineThreads ?? 1,
      engineHeapMb: options.engineHeapMb ?? 4096,
      maxRootBytes: options.maxRootBytes ?? null,
      maxRunAgeDays: options.maxRunAgeDays ?? null,
      pruneIntervalMs: options.pruneIntervalMs ?? 3_600_000,
      log: options.log ?? (() => undefined),
      modelRoots:
        options.modelRoots === undefined || options.modelRoots === 'any'
          ? 'any'
          : options.modelRoots.map((r) => realOrResolved(r)),
    };
    this.limits = resolveLimits(options.limits);
    // Every spelling of the root a message may carry: absolute, with symlinks resolved, and as given (a relative
    // root only as a path prefix, `data/`, so the word alone is left alone).
    const given = isAbsolute(options.root) ? options.root : `${options.root.replace(/[\\/]+$/, '')}${sep}`;
    this.rootPaths = [...new Set([given, resolve(options.root), realOrResolved(options.root)])]
      .filter((p) => p.length > 1)
      .sort((a, b) => b.length - a.length);
    this.storage = new Storage(options.root);
    const cycleMs = options.clockCycleMs ?? 0;
    this.clock =
      cycleMs !== 0
        ? new ClockCycle({ cycleMs, logPath: options.clockCycleLogPath, timers: options.clockTimers })
        : undefined;
    const clock = this.clock;
    this.futures = new FutureTable(
      this.options.futureTtlMs,
      undefined,
      clock ? (r) => clock.hold(r) : undefined,
      (message) => this.scrub(message),
    );
    this.engine = new EngineHost({
      threads: this.options.engineThreads,
      heapMb: this.options.engineHeapMb,
      onLost: (residents, reason) => this.lost(residents, reason),
      clock,
    });
    this.samplers = new SamplerPool(this);
    this.sampleRequests = new SampleRequests(this.engine, () => this.limits.maxConcurrentRequests);
  }

  /** Prune the root once, then start the session clock and the pruning timer. */
  async start(): Promise<void> {
    const timeout = this.options.sessionTimeoutMs;
    if (timeout > 0) {
      this.sweeper = setInterval(() => this.expireSessions(Date.now()), Math.max(250, Math.min(timeout / 4, 30_000)));
      this.sweeper.unref();
    }
    await this.prune();
    this.pruner = setInterval(() => void this.prune(), this.options.pruneIntervalMs);
    this.pruner.unref();
  }

  /**
   * Deletes expired checkpoints (their TTL passed), then removes least recently used runs per `maxRootBytes` /
   * `maxRunAgeDays`, never a loaded one; says what it did.
   */
  async prune(): Promise<void> {
    try {
      const expired = await this.storage.removeExpired();
      if (expired.length > 0) this.options.log(`local-tinker: deleted ${expired.length} expired checkpoints`);
      if (this.options.maxRootBytes === null && this.options.maxRunAgeDays === null) return;
      const { removed, freedBytes } = await pruneCache(this.options.root, {
        maxBytes: this.options.maxRootBytes,
        maxAgeDays: this.options.maxRunAgeDays,
        keep: new Set(this.models.keys()),
      });
      if (removed.length > 0) {
        this.options.log(
          `local-tinker: pruned ${removed.length} least recently used runs (${formatBytes(freedBytes)}) from the service root`,
        );
      }
    } catch (err) {
      this.options.log(`local-tinker: pruning failed: ${this.scrub(err instanceof Error ? err.message : String(err))}`);
    }
  }

  /**
   * Resolves once no engine work is queued or running and no model has a request ready to run (requests waiting
   * for a missing seq_id never become ready and are not waited for).
   */
  async idle(): Promise<void> {
    for (;;) {
      await this.engine.idle();
      await Promise.all([...this.models.values()].map((m) => m.queue.settled()));
      await new Promise((r) => setImmediate(r));
      if (this.engine.pending === 0 && [...this.models.values()].every((m) => !m.queue.busy)) return;
    }
  }

  /** Stop the clocks and the engine (after the caller let queued work finish, or failed it), release the root. */
  async stop(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.pruner) clearInterval(this.pruner);
    this.clock?.close();
    await this.engine.close();
    await this.clock?.flushed();
    this.storage.release();
  }

  /** `message` without the service root's path in it (in any of its spellings). */
  scrub(message: string): string {
    let out = message;
    for (const p of this.rootPaths)
      out = out.split(p).join(p.endsWith(sep) ? `<service root>${sep}` : '<service root>');
    return out;
  }

  /** Remember why `id` is gone (bounded: the oldest reasons are forgotten first). */
  markGone(id: string, reason: string): void {
    this.gone.delete(id);
    this.gone.set(id, reason);
  }

  /** A 410 for something that was unloaded, or a 404 naming what is unknown. */
  missing(what: string, id: string): HttpError {
    const reason = this.gone.get(id);
    if (reason !== undefined) return new HttpError(410, `${what} "${id}" is gone: ${reason}`);
    return new HttpError(
      404,
      `unknown ${what} "${id}" (if the service restarted, what was in memory is gone; saved checkpoints remain)`,
    );
  }

  /** Refuses a `base_model` this service does not serve ({@link checkBaseModel} under its model roots). */
  checkBaseModelName(name: string): void {
    checkBaseModel(name, this.options.modelRoots);
  }

  // ------------------------------------------------------------------ sessions

  session(id: string): SessionState {
    const s = this.sessions.get(id);
    if (!s) throw this.missing('session_id', id);
    s.lastSeen = Date.now();
    return s;
  }

  /** Unload what belongs to sessions that stopped heartbeating; cancel their samples. */
  expireSessions(now: number): void {
    const timeout = this.options.sessionTimeoutMs;
    if (timeout <= 0) return;
    for (const s of [...this.sessions.values()]) {
      if (now - s.lastSeen <= timeout) continue;
      const reason = `its session ${s.id} sent no heartbeat for ${Math.round((now - s.lastSeen) / 1000)} s, so it was unloaded (saved checkpoints remain: load one to continue)`;
      this.sessions.delete(s.id);
      this.markGone(s.id, `session ${s.id} expired: no heartbeat for ${Math.round(timeout / 1000)} s`);
      this.engine.cancelOwner(s.id, `cancelled: ${reason}`);
      for (const id of s.runIds) this.unloadModel(id, reason);
      for (const id of s.samplerIds) this.samplers.drop(id, reason);
      this.options.log(`local-tinker: session ${s.id} expired; unloaded its models and samplers`);
    }
  }

  // ------------------------------------------------------------------ engine calls

  /**
   * Run `op` on `worker`, turning engine failures into future failures (user or server) without server paths.
   * `cycle` (from {@link admit}, taken when the request arrived) holds it for its clock cycle.
   */
  async call<K extends EngineOpKind>(
    worker: number,
    op: Extract<EngineOp, { kind: K }>,
    owner?: string,
    cycle?: number,
    tag?: string,
    onProgress?: (progress: SequenceProgress[]) => void,
  ): Promise<EngineOpResult[K]> {
    try {
      return await this.engine.run(worker, op, owner, cycle, tag, onProgress);
    } catch (err) {
      throw this.failure(err, op);
    }
  }

  /** The clock cycle a request arriving now runs in (undefined without a clock). */
  admit(): number | undefined {
    return this.clock?.admit();
  }

  private failure(err: unknown, op: EngineOp): FutureFailure {
    if (err instanceof FutureFailure) return err;
    if (err instanceof EngineOpCancelled) return userError(err.message);
    if (err instanceof EngineWorkerLost) return new FutureFailure(this.scrub(err.message), 'server');
    if (err instanceof EngineOpError) {
      const msg = this.scrub(err.message);
      if (err.failure.name === NOT_RESIDENT) {
        const id = 'modelId' in op ? op.modelId : 'samplerId' in op ? op.samplerId : '';
        return userError(this.gone.get(id) ?? msg);
      }
      if (USER_ERROR_KINDS.has(err.failure.name)) return userError(msg);
      return new FutureFailure(`${err.failure.name}: ${msg}`, 'server');
    }
    return new FutureFailure(this.scrub(err instanceof Error ? err.message : String(err)), 'server');
  }

  // ------------------------------------------------------------------ models

  modelState(id: string): ModelState {
    const m = this.models.get(id);
    if (!m) throw this.missing('model_id', id);
    if (m.sessionId !== undefined) {
      const s = this.sessions.get(m.sessionId);
      if (s) s.lastSeen = Date.now();
    }
    return m;
  }

  touch(m: ModelState): void {
    m.run.last_request_time = new Date().toISOString();
  }

  /**
   * Queue a model operation at its seq_id, deduplicating replays; returns the future reply. `bytes` is the payload
   * the request holds while it waits (bounded per model, as is how far ahead its seq_id may be).
   */
  queueModelOp<T>(
    m: ModelState,
    seqId: number | undefined,
    body: unknown,
    op: () => Promise<T>,
    bytes = 0,
  ): ServiceReply {
    const hash = bodyHash(body);
    try {
      const replay = m.queue.replayOf(seqId, hash);
      if (replay !== undefined) return futureReply(replay, m.run.training_run_id);
      const id = m.queue.assign(seqId, bytes);
      if (bytes > 0 && id !== m.queue.nextToRun) {
        let queued = 0;
        for (const other of this.models.values()) queued += other.queue.queuedBytes;
        if (queued + bytes > this.limits.maxQueuedBytes) {
          throw overLimit(
            `the payload waiting in all models' queues (${queued} bytes queued, ${bytes} in this request)`,
            `${queued + bytes} bytes`,
            `${this.limits.maxQueuedBytes} bytes`,
            'maxQueuedBytes',
          );
        }
      }
      const requestId = m.queue.enqueue(id, hash, (p) => this.futures.create(p), op, bytes);
      return futureReply(requestId, m.run.training_run_id);
    } catch (err) {
      if (err instanceof QueueLimitError) throw overLimit(err.field, err.value, err.limit, err.key);
      if (err instanceof SeqConflictError) throw new HttpError(409, err.message);
      if (err instanceof SeqRangeError) throw new HttpError(400, err.message);
      throw err;
    }
  }

  /** Creates a LoRA model in an engine worker, records its run on disk and registers it. */
  async createModel(
    modelId: string,
    baseModel: string,
    lora: WireLoraConfig,
    userMetadata: Record<string, unknown> | undefined,
    session: SessionState | undefined,
    hash: string,
  ): Promise<ModelState> {
    this.checkModelBudget(0);
    const worker = this.engine.place(modelId);
    let base: BaseInfo;
    try {
      base = await this.call(
        worker,
        {
          kind: 'createModel',
          modelId,
          baseModel,
          lora: {
            rank: lora.rank,
            ...(lora.seed !== undefined ? { seed: lora.seed } : {}),
            trainAttn: lora.train_attn,
            trainMlp: lora.train_mlp,
            trainUnembed: lora.train_unembed,
          },
        },
        session?.id,
      );
    } catch (err) {
      this.engine.evict(worker, modelId);
      throw err;
    }
    const now = new Date().toISOString();
    const run: RunRecord = {
      training_run_id: modelId,
      base_model: base.name,
      model_owner: 'local',
      is_lora: true,
      lora_rank: lora.rank,
      lora_config: {
        rank: lora.rank,
        ...(lora.seed !== undefined ? { seed: lora.seed } : {}),
        train_attn: lora.train_attn,
        train_mlp: lora.train_mlp,
        train_unembed: lora.train_unembed,
      },
      created_at: now,
      last_request_time: now,
    };
    if (userMetadata) {
      run.user_metadata = Object.fromEntries(
        Object.entries(userMetadata).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      );
    }
    // Within the budget (after unloading idle models), or dropped again with a 400 naming the limit. Checked and
    // registered in one synchronous stretch, so models created at the same time all count.
    try {
      this.checkModelBudget(this.engine.bytesOf(modelId));
    } catch (err) {
      void this.engine.run(worker, { kind: 'dropModel', modelId }).catch(() => undefined);
      this.engine.evict(worker, modelId);
      throw userError(err instanceof Error ? err.message : String(err));
    }
    const state: ModelState = {
      run,
      base,
      worker,
      sessionId: session?.id,
      queue: new ModelQueue((fn) => fn(), {
        maxAhead: this.limits.maxSeqAhead,
        maxBytes: this.limits.maxQueuedBytesPerModel,
      }),
      createRequestId: '',
      createHash: hash,
    };
    this.models.set(modelId, state);
    session?.runIds.add(modelId);
    try {
      await this.storage.writeRun(run);
    } catch (err) {
      this.unloadModel(modelId, 'its run could not be recorded');
      throw err;
    }
    return state;
  }

  /** Memory the loaded training models hold, bytes (as their workers last reported). */
  modelBytes(): number {
    let total = 0;
    for (const id of this.models.keys()) total += this.engine.bytesOf(id);
    return total;
  }

  /**
   * Makes room for `adding` more bytes of models under `maxModelBytes`: unloads models with no request for
   * `idleModelUnloadMs` (least recently used first, none with work queued), or throws a 400 naming the limit.
   */
  checkModelBudget(adding: number): void {
    const budget = this.limits.maxModelBytes;
    let used = this.modelBytes();
    if (used + adding <= budget && (adding > 0 || used < budget)) return;
    const now = Date.now();
    const idle = [...this.models.values()]
      .filter((m) => m.queue.pending === 0 && !m.queue.busy)
      .filter((m) => now - Date.parse(m.run.last_request_time) >= this.limits.idleModelUnloadMs)
      .sort((a, b) => a.run.last_request_time.localeCompare(b.run.last_request_time));
    for (const m of idle) {
      if (used + adding <= budget && (adding > 0 || used < budget)) break;
      used -= this.engine.bytesOf(m.run.training_run_id);
      const minutes = Math.round(this.limits.idleModelUnloadMs / 60_000);
      this.unloadModel(
        m.run.training_run_id,
        `it was unloaded to keep the service's models within their memory budget, after ${minutes} min without a request (saved checkpoints remain: load one to continue)`,
      );
      this.options.log(`local-tinker: unloaded idle model ${m.run.training_run_id} to stay within max_model_mb`);
    }
    if (used + adding <= budget && (adding > 0 || used < budget)) return;
    throw overLimit(
      `loading this model (${adding > 0 ? formatMb(adding) : 'more'}) next to the ${this.models.size} loaded (${formatMb(used)}): the models' memory`,
      formatMb(used + adding),
      formatMb(budget),
      'maxModelBytes',
    );
  }

  /** Unload a model (its files stay); later requests for it get a 410 with `reason`. */
  unloadModel(id: string, reason: string, options: { inWorker?: boolean } = {}): void {
    const m = this.models.get(id);
    if (!m) return;
    this.models.delete(id);
    this.markGone(id, reason);
    m.queue.failWaiting(userError(`model_id "${id}" is gone: ${reason}`));
    if (options.inWorker !== false) {
      void this.engine.run(m.worker, { kind: 'dropModel', modelId: id }).catch(() => undefined);
    }
    this.engine.evict(m.worker, id);
    if (m.sessionId !== undefined) this.sessions.get(m.sessionId)?.runIds.delete(id);
  }

  /** A worker died: what it held is gone. */
  private lost(residents: string[], reason: string): void {
    const why = `${reason}; it was unloaded (saved checkpoints remain: load one to continue)`;
    for (const id of residents) {
      if (this.models.has(id)) this.unloadModel(id, why, { inWorker: false });
      else this.samplers.drop(id, why, { inWorker: false });
    }
    this.options.log(`local-tinker: ${reason}; lost ${residents.length} models/samplers`);
  }
}
