/**
 * The samplers of the service: file-backed ones (a base model, or a saved sampler checkpoint) that can be unloaded
 * and reloaded on demand, and ephemeral snapshots of a training model (an unnamed save_weights_for_sampler) that
 * live on that model's worker. Invariant: at most `MAX_LIVE_SAMPLERS` are loaded; beyond that the least recently
 * used are unloaded (file-backed) or dropped with a 410 reason (ephemeral).
 */
import { join } from 'node:path';
import { BoundedMap } from '@cookbook/core';
import type { BaseInfo } from './engine-protocol.js';
import { HttpError, parseCheckpointPath } from './http-errors.js';
import type { ModelState, ServiceState } from './service-state.js';

/** Loaded samplers kept in memory; the least recently used beyond this are dropped (file-backed ones reload). */

/** Sample requests remembered per sampler for idempotent replay (the oldest forgotten first). */
const MAX_SAMPLE_REPLAYS = 10_000;

export const MAX_LIVE_SAMPLERS = 16;

export interface SamplerState {
  id: string;
  baseModel: string;
  modelPath?: string;
  sessionId: string | undefined;
  /** Where a file-backed sampler reloads from (adapter folder, or null for the base alone); none for snapshots. */
  source: { baseModel: string; adapterDir: string | null } | undefined;
  /** The engine worker holding it while loaded. */
  worker: number | undefined;
  /** Set while (re)loading; resolves with the base model's facts. */
  loading: Promise<BaseInfo> | undefined;
  info: BaseInfo | undefined;
  lastUsed: number;
  sampleSeen: BoundedMap<number, { hash: string; requestId: string }>;
  /** The create_sampling_session arguments it was made for (undefined: a snapshot or a direct sampler). */
  createdFor?: string;
  /** Largest slot count and sequence length its KV cache has held (the cache only grows). */
  cacheSlots: number;
  cacheLen: number;
}

export class SamplerPool {
  private readonly all = new Map<string, SamplerState>();

  constructor(private readonly state: ServiceState) {}

  get(id: string): SamplerState | undefined {
    return this.all.get(id);
  }

  has(id: string): boolean {
    return this.all.has(id);
  }

  values(): IterableIterator<SamplerState> {
    return this.all.values();
  }

  /** The sampler `id`, or a 404/410 naming it. */
  require(id: string): SamplerState {
    const s = this.all.get(id);
    if (!s) throw this.state.missing('sampling_session_id', id);
    if (s.sessionId !== undefined) {
      const session = this.state.sessions.get(s.sessionId);
      if (session) session.lastSeen = Date.now();
    }
    return s;
  }

  /** A file-backed sampler over a saved checkpoint (`modelPath`) or a base model; starts loading it. */
  async fromFiles(
    id: string,
    baseModel: string | undefined,
    modelPath: string | undefined,
    sessionId: string | undefined,
  ): Promise<SamplerState> {
    let source: { baseModel: string; adapterDir: string | null };
    if (modelPath !== undefined) {
      const ckpt = parseCheckpointPath(modelPath);
      const record = await this.state.storage.readCheckpoint(ckpt.runId, ckpt.kind, ckpt.name);
      const run = await this.state.storage.readRun(ckpt.runId);
      if (!record || !run) throw new HttpError(404, `checkpoint ${modelPath} does not exist`);
      source = {
        baseModel: run.base_model,
        adapterDir: join(this.state.storage.checkpointDir(ckpt.runId, ckpt.kind, ckpt.name), 'adapter'),
      };
    } else {
      if (baseModel === undefined) throw new HttpError(400, 'give either base_model or model_path');
      this.state.checkBaseModelName(baseModel);
      source = { baseModel, adapterDir: null };
    }
    const s: SamplerState = {
      id,
      baseModel: source.baseModel,
      ...(modelPath !== undefined ? { modelPath } : {}),
      sessionId,
      source,
      worker: undefined,
      loading: undefined,
      info: undefined,
      lastUsed: Date.now(),
      sampleSeen: new BoundedMap(MAX_SAMPLE_REPLAYS),
      cacheSlots: 0,
      cacheLen: 0,
    };
    this.add(s);
    this.load(s).catch(() => undefined);
    return s;
  }

  /** The sampler for a sample request that names a base model or checkpoint instead of a session (cached). */
  async direct(baseModel: string | undefined, modelPath: string | undefined): Promise<SamplerState> {
    const id = `direct:${modelPath ?? baseModel ?? ''}`;
    return this.all.get(id) ?? (await this.fromFiles(id, baseModel, modelPath, undefined));
  }

  /** An ephemeral sampler over a snapshot of `m`'s current weights, on `m`'s worker. */
  async snapshot(id: string, m: ModelState, sessionId: string | undefined): Promise<void> {
    this.state.engine.pin(m.worker, id);
    let info: BaseInfo;
    try {
      info = await this.state.call(m.worker, {
        kind: 'snapshotSampler',
        modelId: m.run.training_run_id,
        samplerId: id,
      });
    } catch (err) {
      this.state.engine.evict(m.worker, id);
      throw err;
    }
    this.add({
      id,
      baseModel: m.base.name,
      sessionId,
      source: undefined,
      worker: m.worker,
      loading: undefined,
      info,
      lastUsed: Date.now(),
      sampleSeen: new BoundedMap(MAX_SAMPLE_REPLAYS),
      cacheSlots: 0,
      cacheLen: 0,
    });
  }

  /** Loads `s` if it is not loaded (file-backed only); resolves with its base model's facts. */
  load(s: SamplerState): Promise<BaseInfo> {
    if (this.all.get(s.id) !== s) return Promise.reject(this.state.missing('sampling_session_id', s.id));
    if (s.worker !== undefined && s.info !== undefined) return Promise.resolve(s.info);
    if (s.loading) return s.loading;
    const source = s.source;
    if (!source) return Promise.reject(this.state.missing('sampling_session_id', s.id));
    const worker = this.state.engine.place(s.id);
    s.cacheSlots = 0;
    s.cacheLen = 0;
    const p = this.state
      .call(
        worker,
        { kind: 'loadSampler', samplerId: s.id, baseModel: source.baseModel, adapterDir: source.adapterDir },
        s.sessionId,
      )
      .then(
        (info) => {
          s.worker = worker;
          s.info = info;
          s.loading = undefined;
          if (this.all.get(s.id) !== s) {
            this.unload(s); // dropped while loading
            throw this.state.missing('sampling_session_id', s.id);
          }
          return info;
        },
        (err: unknown) => {
          s.loading = undefined;
          this.state.engine.evict(worker, s.id);
          throw err;
        },
      );
    s.loading = p;
    return p;
  }

  /** Loads `s` if needed and returns the worker holding it (a 404/410 error when it was dropped). */
  async worker(s: SamplerState): Promise<number> {
    for (;;) {
      await this.load(s);
      if (s.worker !== undefined) return s.worker;
    }
  }

  /** Registers `s` (in its session's list) and keeps the pool within its size. */
  add(s: SamplerState): void {
    this.all.set(s.id, s);
    if (s.sessionId !== undefined) this.state.sessions.get(s.sessionId)?.samplerIds.add(s.id);
    const live = [...this.all.values()]
      .filter((x) => x.worker !== undefined || x.loading !== undefined)
      .sort((a, b) => a.lastUsed - b.lastUsed);
    for (const old of live.slice(0, Math.max(0, live.length - MAX_LIVE_SAMPLERS))) {
      if (old.source) this.unload(old);
      else
        this.drop(
          old.id,
          `ephemeral samplers are dropped after the ${MAX_LIVE_SAMPLERS} most recent; save sampler weights by name to keep one`,
        );
    }
  }

  /** Frees `s` in its worker; a file-backed sampler reloads on its next use. */
  private unload(s: SamplerState): void {
    const w = s.worker;
    s.worker = undefined;
    s.info = s.source ? s.info : undefined;
    if (w === undefined) return;
    void this.state.engine.run(w, { kind: 'dropSampler', samplerId: s.id }).catch(() => undefined);
    this.state.engine.evict(w, s.id);
  }

  /** Forget a sampler; later requests for it get a 410 with `reason`. */
  drop(id: string, reason: string, options: { inWorker?: boolean } = {}): void {
    const s = this.all.get(id);
    if (!s) return;
    this.all.delete(id);
    this.state.markGone(id, reason);
    if (options.inWorker === false) s.worker = undefined;
    this.unload(s);
    if (s.sessionId !== undefined) this.state.sessions.get(s.sessionId)?.samplerIds.delete(id);
  }
}
