/**
 * What every route of the service shares, below the route modules: storage, futures, the executor, and the registries
 * of sessions, training runs (models) and samplers, with the helpers that read and change them. Invariant: a model's
 * requests run in seq_id order through its queue on the one executor; at most `MAX_LIVE_SAMPLERS` samplers are
 * loaded (file-backed ones reload on demand, ephemeral ones are dropped).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  type BaseModel,
  createLoraModel,
  CheckpointError as EngineCheckpointError,
  EngineInputError,
  type LoraModel,
  listBuiltinModels,
  loadBaseModel,
  loadSampler,
  ModelLoadError,
  type Sampler,
} from '@cookbook/engine';
import type { WireLoraConfig } from '@cookbook/tinker-wire';
import { Executor } from './executor.js';
import { FutureFailure, FutureTable } from './futures.js';
import { futureReply, HttpError, parseCheckpointPath, type ServiceReply, userError } from './http-errors.js';
import { bodyHash, ModelQueue, SeqConflictError, SeqRangeError } from './model-queue.js';
import { type RunRecord, Storage } from './storage.js';

/** Options of the service. */
export interface ServiceOptions {
  /** Folder holding runs and checkpoints. */
  root: string;
  /** When set, every request (but healthz and signed downloads) must carry it in `X-API-Key`. */
  apiKey?: string | undefined;
  /** How long `retrieve_future` holds a pending future before answering try_again, ms. Default 20 000. */
  longPollMs?: number;
  /** How long a completed future stays retrievable, ms. Default 30 min. */
  futureTtlMs?: number;
  /** Where one-line notices go. */
  log?: (message: string) => void;
}

export interface SessionState {
  id: string;
  createdAt: string;
  lastHeartbeat: number;
  runIds: Set<string>;
  samplerIds: Set<string>;
  tags: string[];
}

export interface ModelState {
  run: RunRecord;
  base: BaseModel;
  model: LoraModel;
  queue: ModelQueue;
  createRequestId: string;
  createHash: string;
}

export interface SamplerState {
  id: string;
  baseModel: string;
  modelPath?: string;
  /** The loaded sampler; undefined after eviction when `load` can bring it back. */
  sampler: Promise<Sampler> | undefined;
  /** Reloads a sampler backed by files (base model or a saved checkpoint); absent for ephemeral snapshots. */
  load?: () => Promise<Sampler>;
  lastUsed: number;
  sampleSeen: Map<number, { hash: string; requestId: string }>;
}

/** Loaded samplers kept in memory; the least recently used beyond this are dropped (file-backed ones reload). */
export const MAX_LIVE_SAMPLERS = 16;

/** The service's shared state and the helpers the routes use. */
export class ServiceState {
  readonly storage: Storage;
  readonly futures: FutureTable;
  readonly executor = new Executor();
  readonly options: Required<Omit<ServiceOptions, 'apiKey'>> & { apiKey: string | undefined };
  readonly sessions = new Map<string, SessionState>();
  readonly models = new Map<string, ModelState>();
  readonly samplers = new Map<string, SamplerState>();
  /** Models being created: their create request, for replays. */
  readonly creating = new Map<string, { requestId: string; hash: string }>();
  private readonly bases = new Map<string, Promise<BaseModel>>();
  /** Keys the HMACs of signed download URLs and of the constant-time API-key check; new per process. */
  readonly secret = randomBytes(32);
  closing = false;

  constructor(options: ServiceOptions) {
    this.options = {
      root: options.root,
      apiKey: options.apiKey,
      longPollMs: options.longPollMs ?? 20_000,
      futureTtlMs: options.futureTtlMs ?? 30 * 60_000,
      log: options.log ?? (() => undefined),
    };
    this.storage = new Storage(options.root);
    this.futures = new FutureTable(this.options.futureTtlMs);
  }

  /** The base model `name`, loaded once and shared. */
  baseModel(name: string): Promise<BaseModel> {
    let p = this.bases.get(name);
    if (!p) {
      p = loadBaseModel(name);
      this.bases.set(name, p);
      p.catch(() => this.bases.delete(name));
    }
    return p;
  }

  /** Reject an unknown base model at submission, with the list of what is available. */
  checkBaseModelName(name: string): void {
    const builtins = listBuiltinModels().map((m) => m.name);
    if (builtins.includes(name)) return;
    if (existsSync(join(name, 'config.json'))) return;
    // A Hub name (`org/model`) that is not a local folder is most likely meant for the hosted service.
    const hosted =
      /^[\w.-]+\/[\w.-]+$/.test(name) && !name.startsWith('local/')
        ? `; "${name}" looks like a hosted model: set TINKER_API_KEY to train it on the hosted Tinker service (or TINKER_BASE_URL for another server)`
        : '';
    throw new HttpError(
      400,
      `unknown base_model "${name}": this embedded service has ${builtins.join(', ')}, or give a folder holding an HF checkpoint (config.json + *.safetensors)${hosted}`,
    );
  }

  session(id: string): SessionState {
    const s = this.sessions.get(id);
    if (!s) throw new HttpError(404, `unknown session_id "${id}"; create a session first`);
    return s;
  }

  modelState(id: string): ModelState {
    const m = this.models.get(id);
    if (!m) throw new HttpError(404, `unknown model_id "${id}"`);
    return m;
  }

  touch(m: ModelState): void {
    m.run.last_request_time = new Date().toISOString();
  }

  /** Turn engine errors into user failures, keep the rest as server failures. */
  wrap<T>(fn: () => Promise<T> | T): () => Promise<T> {
    return async () => {
      try {
        return await fn();
      } catch (err) {
        if (err instanceof FutureFailure) throw err;
        if (err instanceof EngineInputError || err instanceof EngineCheckpointError || err instanceof ModelLoadError) {
          throw userError(err.message);
        }
        throw new FutureFailure(err instanceof Error ? err.message : String(err), 'server');
      }
    };
  }

  /** Queue a model operation at its seq_id, deduplicating replays; returns the future reply. */
  queueModelOp<T>(m: ModelState, seqId: number | undefined, body: unknown, op: () => Promise<T> | T): ServiceReply {
    const hash = bodyHash(body);
    try {
      const replay = m.queue.replayOf(seqId, hash);
      if (replay !== undefined) return futureReply(replay, m.run.training_run_id);
      const id = m.queue.assign(seqId);
      const requestId = m.queue.enqueue(id, hash, (p) => this.futures.create(p), this.wrap(op));
      return futureReply(requestId, m.run.training_run_id);
    } catch (err) {
      if (err instanceof SeqConflictError) throw new HttpError(409, err.message);
      if (err instanceof SeqRangeError) throw new HttpError(400, err.message);
      throw err;
    }
  }

  /** Creates a LoRA model on `base`, records its run on disk and registers it (in `session`, when given). */
  async registerModel(
    modelId: string,
    base: BaseModel,
    lora: WireLoraConfig,
    userMetadata: Record<string, unknown> | undefined,
    session: SessionState | undefined,
    hash: string,
  ): Promise<ModelState> {
    const model = createLoraModel(base, {
      rank: lora.rank,
      ...(lora.seed !== undefined ? { seed: lora.seed } : {}),
      trainAttn: lora.train_attn,
      trainMlp: lora.train_mlp,
      trainUnembed: lora.train_unembed,
    });
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
    await this.storage.writeRun(run);
    const state: ModelState = {
      run,
      base,
      model,
      queue: new ModelQueue((fn) => this.executor.run(fn)),
      createRequestId: '',
      createHash: hash,
    };
    this.models.set(modelId, state);
    session?.runIds.add(modelId);
    return state;
  }

  // ------------------------------------------------------------------ the sampler pool

  /** Loads (and, after eviction, reloads) a sampler over `baseName` with the adapter in `adapterDir`, if any. */
  private samplerLoader(baseName: string, adapterDir: string | null): () => Promise<Sampler> {
    return () => {
      const p = this.executor.run(async () => loadSampler(await this.baseModel(baseName), adapterDir));
      p.catch(() => undefined);
      return p;
    };
  }

  /** A file-backed sampler state over a saved checkpoint (`modelPath`) or a base model. */
  async samplerFor(baseModel: string | undefined, modelPath: string | undefined, id: string): Promise<SamplerState> {
    if (modelPath !== undefined) {
      const ckpt = parseCheckpointPath(modelPath);
      const record = await this.storage.readCheckpoint(ckpt.runId, ckpt.kind, ckpt.name);
      const run = await this.storage.readRun(ckpt.runId);
      if (!record || !run) throw new HttpError(404, `checkpoint ${modelPath} does not exist`);
      const adapterDir = join(this.storage.checkpointDir(ckpt.runId, ckpt.kind, ckpt.name), 'adapter');
      const load = this.samplerLoader(run.base_model, adapterDir);
      return {
        id,
        baseModel: run.base_model,
        modelPath,
        sampler: load(),
        load,
        lastUsed: Date.now(),
        sampleSeen: new Map(),
      };
    }
    if (baseModel === undefined) throw new HttpError(400, 'give either base_model or model_path');
    this.checkBaseModelName(baseModel);
    const load = this.samplerLoader(baseModel, null);
    return { id, baseModel, sampler: load(), load, lastUsed: Date.now(), sampleSeen: new Map() };
  }

  /** Registers a sampler (in `sessionId`'s list, when given) and keeps the pool within its size. */
  addSampler(state: SamplerState, sessionId?: string): void {
    this.samplers.set(state.id, state);
    this.evictSamplers();
    if (sessionId !== undefined) this.sessions.get(sessionId)?.samplerIds.add(state.id);
  }

  /**
   * Keep at most MAX_LIVE_SAMPLERS loaded: the least recently used beyond that are unloaded (file-backed ones
   * reload on their next request) or, for ephemeral snapshots, dropped.
   */
  private evictSamplers(): void {
    const live = [...this.samplers.values()]
      .filter((s) => s.sampler !== undefined)
      .sort((a, b) => a.lastUsed - b.lastUsed);
    for (const s of live.slice(0, Math.max(0, live.length - MAX_LIVE_SAMPLERS))) {
      if (s.load) s.sampler = undefined;
      else {
        this.samplers.delete(s.id);
        for (const session of this.sessions.values()) session.samplerIds.delete(s.id);
      }
    }
  }
}
