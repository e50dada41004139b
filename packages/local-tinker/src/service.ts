/**
 * The embedded Tinker-compatible service: sessions, training runs, samplers, futures and checkpoints over
 * `@cookbook/engine`, speaking the JSON protocol of tinker-api.md §2 (and protobuf forward_backward, §3.9).
 * Transport-free: `handle(request)` → reply; `http-server.ts` puts it on node:http.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CookbookError, tensorToNumbers } from '@cookbook/core';
import {
  type BaseModel,
  createLoraModel,
  CheckpointError as EngineCheckpointError,
  type EngineDatum,
  EngineInputError,
  type LoraModel,
  listBuiltinModels,
  loadBaseModel,
  loadSampler,
  ModelLoadError,
  requiredLossInputs,
  resolveAdamParams,
  resolveLossConfig,
  type Sampler,
} from '@cookbook/engine';
import {
  AdamParamsSchema,
  CheckpointTtlRequestSchema,
  CreateModelRequestSchema,
  CreateSamplingSessionRequestSchema,
  CreateSessionRequestSchema,
  ForwardBackwardRequestSchema,
  ForwardRequestSchema,
  FutureRetrieveRequestSchema,
  GetInfoRequestSchema,
  LoadWeightsRequestSchema,
  OptimStepRequestSchema,
  SampleRequestSchema,
  SaveWeightsForSamplerRequestSchema,
  SaveWeightsRequestSchema,
  SessionHeartbeatRequestSchema,
  splitCheckpointPath,
  UnloadModelRequestSchema,
  WeightsInfoRequestSchema,
  type WireDatum,
  type WireForwardBackwardInput,
  type WireLoraConfig,
  type WireSampleRequest,
} from '@cookbook/tinker-wire';
import type { z } from 'zod';
import { FutureFailure, FutureTable } from './futures.js';
import { bodyHash, ModelQueue, SeqConflictError, SeqRangeError } from './model-queue.js';
import { type CheckpointKind, type CheckpointRecord, type RunRecord, Storage } from './storage.js';
import { tarDirectory } from './tar.js';

/** A request as the service sees it. */
export interface ServiceRequest {
  method: string;
  /** Path including `/api/v1`. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (undefined when empty). */
  body: unknown;
  /** Raw bytes when the body is not JSON (protobuf). */
  rawBody?: Uint8Array;
  signal?: AbortSignal;
}

/** A reply. */
export interface ServiceReply {
  status: number;
  json?: unknown;
  bytes?: Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
}

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

/** An error that becomes an HTTP status with `{detail}`. */
export class HttpError extends CookbookError {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const userError = (message: string) => new FutureFailure(message, 'user');

interface SessionState {
  id: string;
  createdAt: string;
  lastHeartbeat: number;
  runIds: Set<string>;
  samplerIds: Set<string>;
  tags: string[];
}

interface ModelState {
  run: RunRecord;
  base: BaseModel;
  model: LoraModel;
  queue: ModelQueue;
  createRequestId: string;
  createHash: string;
}

interface SamplerState {
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
const MAX_LIVE_SAMPLERS = 16;

/** Serialises engine work so training and sampling interleave one operation at a time. */
class Executor {
  private chain: Promise<unknown> = Promise.resolve();
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  run<T>(fn: () => Promise<T> | T): Promise<T> {
    this.inFlight++;
    const p = this.chain.then(async () => {
      // Let the HTTP layer answer polls and heartbeats between engine operations.
      await new Promise((r) => setImmediate(r));
      return fn();
    });
    this.chain = p.then(
      () => this.done(),
      () => this.done(),
    );
    return p;
  }

  private done(): void {
    this.inFlight--;
    if (this.inFlight === 0) for (const w of this.idleWaiters.splice(0)) w();
  }

  idle(): Promise<void> {
    return this.inFlight === 0 ? Promise.resolve() : new Promise((r) => this.idleWaiters.push(r));
  }
}

function parseBody<S extends z.ZodType>(schema: S, body: unknown, route: string): z.infer<S> {
  if (body === undefined) throw new HttpError(400, `${route}: the request body must be a JSON object`);
  const r = schema.safeParse(body);
  if (r.success) return r.data as z.infer<S>;
  const issue = r.error.issues[0]!;
  const field = issue.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
  throw new HttpError(400, `${route}: field "${field || '(body)'}": ${issue.message}`);
}

/** `tinker://<run>/<kind>/<name>` → parts, or an HttpError naming the path. */
export function parseCheckpointPath(path: string): { runId: string; kind: CheckpointKind; name: string } {
  const parts = splitCheckpointPath(path);
  if (!parts) {
    throw new HttpError(
      400,
      `"${path}" is not a checkpoint path (tinker://<run>/weights/<name> or tinker://<run>/sampler_weights/<name>)`,
    );
  }
  return parts;
}

const CHECKPOINT_NAME = /^[A-Za-z0-9_.-]{1,255}$/;

export class LocalTinkerService {
  readonly storage: Storage;
  readonly futures: FutureTable;
  private readonly options: Required<Omit<ServiceOptions, 'apiKey'>> & { apiKey: string | undefined };
  private readonly executor = new Executor();
  private readonly sessions = new Map<string, SessionState>();
  private readonly models = new Map<string, ModelState>();
  private readonly samplers = new Map<string, SamplerState>();
  private readonly bases = new Map<string, Promise<BaseModel>>();
  private readonly creating = new Map<string, { requestId: string; hash: string }>();
  private readonly idempotent = new Map<string, { hash: string; reply: ServiceReply }>();
  private readonly downloadSecret = randomBytes(32);
  private closing = false;

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

  async init(): Promise<void> {
    await this.storage.init();
  }

  /** Stop accepting work, finish what is queued, release pollers. */
  async close(): Promise<void> {
    this.closing = true;
    await this.executor.idle();
    this.futures.close();
  }

  // ------------------------------------------------------------------ helpers

  private baseModel(name: string): Promise<BaseModel> {
    let p = this.bases.get(name);
    if (!p) {
      p = loadBaseModel(name);
      this.bases.set(name, p);
      p.catch(() => this.bases.delete(name));
    }
    return p;
  }

  /** Reject an unknown base model at submission, with the list of what is available. */
  private checkBaseModelName(name: string): void {
    const builtins = listBuiltinModels().map((m) => m.name);
    if (builtins.includes(name)) return;
    if (existsSync(join(name, 'config.json'))) return;
    throw new HttpError(
      400,
      `unknown base_model "${name}": use one of ${builtins.join(', ')}, or a folder holding an HF checkpoint (config.json + *.safetensors)`,
    );
  }

  private session(id: string): SessionState {
    const s = this.sessions.get(id);
    if (!s) throw new HttpError(404, `unknown session_id "${id}"; create a session first`);
    return s;
  }

  private modelState(id: string): ModelState {
    const m = this.models.get(id);
    if (!m) throw new HttpError(404, `unknown model_id "${id}"`);
    return m;
  }

  private futureReply(requestId: string, modelId?: string): ServiceReply {
    return {
      status: 200,
      json: modelId === undefined ? { request_id: requestId } : { request_id: requestId, model_id: modelId },
    };
  }

  private touch(m: ModelState): void {
    m.run.last_request_time = new Date().toISOString();
  }

  /** Turn engine errors into user failures, keep the rest as server failures. */
  private wrap<T>(fn: () => Promise<T> | T): () => Promise<T> {
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
  private queueModelOp<T>(
    m: ModelState,
    seqId: number | undefined,
    body: unknown,
    op: () => Promise<T> | T,
  ): ServiceReply {
    const hash = bodyHash(body);
    try {
      const replay = m.queue.replayOf(seqId, hash);
      if (replay !== undefined) return this.futureReply(replay, m.run.training_run_id);
      const id = m.queue.assign(seqId);
      const requestId = m.queue.enqueue(id, hash, (p) => this.futures.create(p), this.wrap(op));
      return this.futureReply(requestId, m.run.training_run_id);
    } catch (err) {
      if (err instanceof SeqConflictError) throw new HttpError(409, err.message);
      if (err instanceof SeqRangeError) throw new HttpError(400, err.message);
      throw err;
    }
  }

  // ------------------------------------------------------------------ entry point

  async handle(req: ServiceRequest): Promise<ServiceReply> {
    try {
      return await this.route(req);
    } catch (err) {
      if (err instanceof HttpError) return { status: err.status, json: { detail: err.message } };
      if (err instanceof SeqConflictError) return { status: 409, json: { detail: err.message } };
      if (err instanceof SeqRangeError) return { status: 400, json: { detail: err.message } };
      this.options.log(
        `local-tinker: internal error on ${req.method} ${req.path}: ${err instanceof Error ? err.stack : String(err)}`,
      );
      return { status: 500, json: { detail: `internal error: ${err instanceof Error ? err.message : String(err)}` } };
    }
  }

  /** Constant-time check of the API key. */
  checkApiKey(given: string | undefined): boolean {
    const want = this.options.apiKey;
    if (want === undefined) return true;
    if (given === undefined) return false;
    const a = createHmac('sha256', this.downloadSecret).update(given).digest();
    const b = createHmac('sha256', this.downloadSecret).update(want).digest();
    return timingSafeEqual(a, b);
  }

  private async route(req: ServiceRequest): Promise<ServiceReply> {
    const { method, path } = req;
    if (method === 'GET' && path === '/api/v1/healthz') return { status: 200, json: { status: 'ok' } };
    if (method === 'GET' && path.startsWith('/api/v1/_download/')) return this.download(req);
    const key = req.headers['x-api-key'];
    if (!this.checkApiKey(Array.isArray(key) ? key[0] : key)) {
      throw new HttpError(401, 'missing or invalid X-API-Key');
    }
    if (this.closing && method !== 'GET' && path !== '/api/v1/retrieve_future') {
      throw new HttpError(503, 'the service is shutting down');
    }
    // Idempotency: a retried non-GET request (same key, same body) gets the original reply.
    const idem = req.headers['x-idempotency-key'];
    const idemKey =
      method !== 'GET' && typeof idem === 'string' && path !== '/api/v1/retrieve_future' ? idem : undefined;
    if (idemKey !== undefined) {
      const prev = this.idempotent.get(idemKey);
      const hash = bodyHash(req.body ?? null);
      if (prev) {
        if (prev.hash !== hash)
          throw new HttpError(409, `X-Idempotency-Key ${idemKey} was used for a different request`);
        return prev.reply;
      }
      const reply = await this.dispatch(req);
      if (reply.status < 500) {
        this.idempotent.set(idemKey, { hash, reply });
        if (this.idempotent.size > 10_000) this.idempotent.delete(this.idempotent.keys().next().value!);
      }
      return reply;
    }
    return this.dispatch(req);
  }

  private async dispatch(req: ServiceRequest): Promise<ServiceReply> {
    const { method, path } = req;
    const ok = (json: unknown): ServiceReply => ({ status: 200, json });
    if (method === 'POST') {
      switch (path) {
        case '/api/v1/client/config':
          return ok({ pjwt_auth_enabled: false });
        case '/api/v1/client/dynamic_config':
          return ok({ refresh_interval_sec: 300 });
        case '/api/v1/telemetry':
          return ok({ status: 'accepted' });
        case '/api/v1/create_session':
          return ok(this.createSession(req.body));
        case '/api/v1/session_heartbeat': {
          const b = parseBody(SessionHeartbeatRequestSchema, req.body, 'session_heartbeat');
          this.session(b.session_id).lastHeartbeat = Date.now();
          return ok({ type: 'session_heartbeat' });
        }
        case '/api/v1/create_model':
          return this.createModel(req.body);
        case '/api/v1/get_info':
          return ok(this.getInfo(req.body));
        case '/api/v1/unload_model':
          return this.unloadModel(req.body);
        case '/api/v1/forward_backward':
          return this.consumingSeq(req.body, () =>
            this.forwardBackward(parseBody(ForwardBackwardRequestSchema, req.body, 'forward_backward'), true),
          );
        case '/api/v1/forward':
          return this.consumingSeq(req.body, () => {
            const b = parseBody(ForwardRequestSchema, req.body, 'forward');
            return this.forwardBackward(
              { forward_backward_input: b.forward_input, model_id: b.model_id, seq_id: b.seq_id },
              false,
            );
          });
        case '/api/v1/optim_step':
          return this.consumingSeq(req.body, () => this.optimStep(req.body));
        case '/api/v1/save_weights':
          return this.consumingSeq(req.body, () => this.saveWeights(req.body));
        case '/api/v1/save_weights_for_sampler':
          return this.consumingSeq(req.body, () => this.saveWeightsForSampler(req.body));
        case '/api/v1/load_weights':
          return this.consumingSeq(req.body, () => this.loadWeights(req.body));
        case '/api/v1/weights_info':
          return ok(await this.weightsInfo(req.body));
        case '/api/v1/create_sampling_session':
          return ok(await this.createSamplingSession(req.body));
        case '/api/v1/asample':
          return this.asample(req.body);
        case '/api/v1/retrieve_future':
          return this.retrieveFuture(req);
      }
    }
    if (method === 'GET') {
      if (path === '/api/v1/get_server_capabilities') {
        return ok({
          supported_models: listBuiltinModels().map((m) => ({
            model_name: m.name,
            max_context_length: m.maxContextLength,
          })),
        });
      }
      if (path === '/api/v1/training_runs') return ok(await this.listTrainingRuns(req.query));
      if (path === '/api/v1/checkpoints') return ok(await this.listUserCheckpoints(req.query));
      if (path === '/api/v1/sessions') return ok(await this.listSessions(req.query));
    }
    const rest = await this.restRoute(req);
    if (rest) return rest;
    throw new HttpError(404, `no route ${method} ${path}`);
  }

  /**
   * Run a seq-ordered route; if it rejects the request (4xx), its seq_id still counts as used, so the model's
   * later requests do not wait for it forever.
   */
  private async consumingSeq(body: unknown, fn: () => ServiceReply | Promise<ServiceReply>): Promise<ServiceReply> {
    try {
      return await fn();
    } catch (err) {
      const status = err instanceof HttpError ? err.status : err instanceof SeqRangeError ? 400 : undefined;
      if (status !== undefined && status < 500 && body !== null && typeof body === 'object') {
        const { model_id, seq_id } = body as { model_id?: unknown; seq_id?: unknown };
        if (typeof model_id === 'string' && typeof seq_id === 'number' && Number.isInteger(seq_id) && seq_id >= 1) {
          this.models.get(model_id)?.queue.skip(seq_id);
        }
      }
      throw err;
    }
  }

  // ------------------------------------------------------------------ sessions and models

  private createSession(body: unknown) {
    const b = parseBody(CreateSessionRequestSchema, body, 'create_session');
    const id = `s${randomBytes(6).toString('hex')}`;
    this.sessions.set(id, {
      id,
      createdAt: new Date().toISOString(),
      lastHeartbeat: Date.now(),
      runIds: new Set(),
      samplerIds: new Set(),
      tags: b.tags,
    });
    return { type: 'create_session', session_id: id };
  }

  private createModel(body: unknown): ServiceReply {
    const b = parseBody(CreateModelRequestSchema, body, 'create_model');
    const session = this.session(b.session_id);
    const modelId = `${b.session_id}:train:${b.model_seq_id}`;
    const hash = bodyHash(b);
    const existing = this.models.get(modelId) ?? this.creating.get(modelId);
    if (existing) {
      const [prevHash, prevId] =
        'createHash' in existing
          ? [existing.createHash, existing.createRequestId]
          : [existing.hash, existing.requestId];
      if (prevHash === hash) return this.futureReply(prevId, modelId);
      throw new HttpError(409, `model_seq_id ${b.model_seq_id} was already used in session ${b.session_id}`);
    }
    this.checkBaseModelName(b.base_model);
    const lora: WireLoraConfig = b.lora_config ?? { rank: 32, train_attn: true, train_mlp: true, train_unembed: true };
    const work = this.executor.run(
      this.wrap(async () => {
        const base = await this.baseModel(b.base_model);
        return this.registerModel(modelId, base, lora, b.user_metadata, session, hash);
      }),
    );
    const requestId = this.futures.create(work.then(() => ({ model_id: modelId, type: 'create_model' })));
    // Remember the request id for replays, while creating and once the model exists.
    this.creating.set(modelId, { requestId, hash });
    work.then(
      (m) => {
        m.createRequestId = requestId;
        this.creating.delete(modelId);
      },
      () => this.creating.delete(modelId),
    );
    return this.futureReply(requestId, modelId);
  }

  private async registerModel(
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

  private getInfo(body: unknown) {
    const b = parseBody(GetInfoRequestSchema, body, 'get_info');
    const m = this.modelState(b.model_id);
    return {
      type: 'get_info',
      model_id: b.model_id,
      model_data: { arch: m.base.arch, model_name: m.base.name, tokenizer_id: m.base.name },
      is_lora: true,
      lora_rank: m.run.lora_rank,
      model_name: m.base.name,
    };
  }

  private unloadModel(body: unknown): ServiceReply {
    const b = parseBody(UnloadModelRequestSchema, body, 'unload_model');
    const m = this.modelState(b.model_id);
    const work = this.executor.run(() => {
      this.models.delete(b.model_id);
      return { model_id: b.model_id, type: 'unload_model' };
    });
    void m;
    return this.futureReply(this.futures.create(work), b.model_id);
  }

  // ------------------------------------------------------------------ training

  /** Convert and validate a batch against the model: lengths, vocabulary, chunk kinds, loss inputs. */
  private toEngineData(input: WireForwardBackwardInput, base: BaseModel): EngineDatum[] {
    const V = base.vocabSize;
    return input.data.map((d: WireDatum, i) => {
      const tokens: number[] = [];
      for (const [c, chunk] of d.model_input.chunks.entries()) {
        if (chunk.type !== 'encoded_text') {
          throw new HttpError(
            400,
            `data[${i}].model_input.chunks[${c}]: ${chunk.type} chunks are not supported by the local service`,
          );
        }
        for (const t of chunk.tokens) {
          if (t < 0 || t >= V) {
            throw new HttpError(400, `data[${i}].model_input: token id ${t} is outside the vocabulary [0, ${V})`);
          }
          tokens.push(t);
        }
      }
      const N = tokens.length;
      if (N === 0) throw new HttpError(400, `data[${i}].model_input is empty`);
      if (N > base.maxContextLength) {
        throw new HttpError(
          400,
          `data[${i}].model_input has ${N} tokens, more than the context length ${base.maxContextLength}`,
        );
      }
      const lossFnInputs: EngineDatum['lossFnInputs'] = {};
      for (const [key, t] of Object.entries(d.loss_fn_inputs)) {
        let values: number[];
        try {
          values = tensorToNumbers(t);
        } catch (err) {
          throw new HttpError(
            400,
            `data[${i}].loss_fn_inputs.${key}: ${err instanceof Error ? err.message : String(err)}`,
          );
        }
        const shape = t.shape ?? [values.length];
        if (shape.reduce((a, b) => a * b, 1) !== values.length) {
          throw new HttpError(
            400,
            `data[${i}].loss_fn_inputs.${key}: shape [${shape.join(', ')}] does not match ${values.length} values`,
          );
        }
        if (shape[0] !== N) {
          throw new HttpError(
            400,
            `data[${i}].loss_fn_inputs.${key} has leading length ${shape[0]} but model_input has ${N} tokens`,
          );
        }
        if (key === 'target_tokens') {
          for (const v of values) {
            if (!Number.isInteger(v) || v < 0 || v >= V) {
              throw new HttpError(
                400,
                `data[${i}].loss_fn_inputs.target_tokens: token id ${v} is outside the vocabulary [0, ${V})`,
              );
            }
          }
        } else if (values.some((v) => !Number.isFinite(v))) {
          throw new HttpError(400, `data[${i}].loss_fn_inputs.${key} holds a non-finite value`);
        }
        lossFnInputs[key] = { data: values, shape, dtype: t.dtype };
      }
      return { tokens, lossFnInputs };
    });
  }

  /** forward_backward (backward = true) or forward; shared by the JSON and protobuf routes. */
  forwardBackward(
    b: { forward_backward_input: WireForwardBackwardInput; model_id: string; seq_id?: number | undefined },
    backward: boolean,
  ): ServiceReply {
    const m = this.modelState(b.model_id);
    const input = b.forward_backward_input;
    if (input.data.length === 0) throw new HttpError(400, 'forward_backward_input.data is empty');
    const data = this.toEngineData(input, m.base);
    // Unknown config keys and missing inputs are caught now, as a 400, rather than as a failed future.
    try {
      resolveLossConfig(input.loss_fn, input.loss_fn_config);
    } catch (err) {
      if (err instanceof EngineInputError) throw new HttpError(400, err.message);
      throw err;
    }
    const required = requiredLossInputs(input.loss_fn);
    for (const [i, d] of data.entries()) {
      for (const key of required) {
        if (d.lossFnInputs[key] === undefined) {
          throw new HttpError(400, `data[${i}].loss_fn_inputs.${key} is required by the ${input.loss_fn} loss`);
        }
      }
    }
    this.touch(m);
    return this.queueModelOp(m, b.seq_id, b, () => {
      const r = m.model.forwardBackward(data, input.loss_fn, input.loss_fn_config, { backward });
      return {
        loss_fn_output_type: 'ArrayRecord',
        loss_fn_outputs: r.lossFnOutputs.map((o) =>
          Object.fromEntries(
            Object.entries(o).map(([k, t]) => [
              k,
              { data: Array.from(t.data as ArrayLike<number>), dtype: t.dtype, ...(t.shape ? { shape: t.shape } : {}) },
            ]),
          ),
        ),
        metrics: r.metrics,
      };
    });
  }

  private optimStep(body: unknown): ServiceReply {
    const b = parseBody(OptimStepRequestSchema, body, 'optim_step');
    const m = this.modelState(b.model_id);
    const a = AdamParamsSchema.parse(b.adam_params);
    const adam = {
      learningRate: a.learning_rate,
      beta1: a.beta1,
      beta2: a.beta2,
      eps: a.eps,
      weightDecay: a.weight_decay,
      gradClipNorm: a.grad_clip_norm,
    };
    try {
      resolveAdamParams(adam);
    } catch (err) {
      throw new HttpError(400, err instanceof Error ? err.message : String(err));
    }
    this.touch(m);
    return this.queueModelOp(m, b.seq_id, b, () => ({ metrics: m.model.optimStep(adam).metrics, type: 'optim_step' }));
  }

  private async checkNewCheckpoint(
    runId: string,
    kind: CheckpointKind,
    name: string,
    overwrite: boolean,
  ): Promise<void> {
    if (!CHECKPOINT_NAME.test(name)) {
      throw new HttpError(
        400,
        `checkpoint name "${name}" may contain only letters, digits, "_", "-" and "." (at most 255)`,
      );
    }
    if (!overwrite && (await this.storage.checkpointExists(runId, kind, name))) {
      throw new HttpError(409, `checkpoint tinker://${runId}/${kind}/${name} already exists; choose another name`);
    }
  }

  private async saveWeights(body: unknown): Promise<ServiceReply> {
    const b = parseBody(SaveWeightsRequestSchema, body, 'save_weights');
    const m = this.modelState(b.model_id);
    const name = b.path ?? `checkpoint-${Date.now()}`;
    const runId = m.run.training_run_id;
    const replay = m.queue.replayOf(b.seq_id, bodyHash(b));
    if (replay !== undefined) return this.futureReply(replay, runId);
    await this.checkNewCheckpoint(runId, 'weights', name, b.overwrite);
    this.touch(m);
    return this.queueModelOp(m, b.seq_id, b, async () => {
      const record = await this.writeCheckpoint(runId, 'weights', name, b.overwrite, b.ttl_seconds, async (staging) => {
        await m.model.saveState(join(staging, 'state'), { optimizer: true });
        await m.model.exportPeftAdapter(join(staging, 'adapter'));
      });
      return { path: record.tinker_path, type: 'save_weights' };
    });
  }

  private async writeCheckpoint(
    runId: string,
    kind: CheckpointKind,
    name: string,
    overwrite: boolean,
    ttlSeconds: number | undefined,
    fill: (staging: string) => Promise<void>,
  ): Promise<CheckpointRecord> {
    if (!overwrite && (await this.storage.checkpointExists(runId, kind, name))) {
      throw userError(`checkpoint tinker://${runId}/${kind}/${name} already exists`);
    }
    return this.storage.writeCheckpoint(runId, kind, name, fill, {
      overwrite,
      ...(ttlSeconds !== undefined ? { ttlSeconds } : {}),
    });
  }

  private async saveWeightsForSampler(body: unknown): Promise<ServiceReply> {
    const b = parseBody(SaveWeightsForSamplerRequestSchema, body, 'save_weights_for_sampler');
    const m = this.modelState(b.model_id);
    const runId = m.run.training_run_id;
    const sessionId = runId.split(':')[0]!;
    const replay = m.queue.replayOf(b.seq_id, bodyHash(b));
    if (replay !== undefined) return this.futureReply(replay, runId);
    this.touch(m);
    if (b.path !== undefined) {
      const name = b.path;
      await this.checkNewCheckpoint(runId, 'sampler_weights', name, false);
      return this.queueModelOp(m, b.seq_id, b, async () => {
        const record = await this.writeCheckpoint(
          runId,
          'sampler_weights',
          name,
          false,
          b.ttl_seconds,
          async (staging) => {
            await m.model.saveSamplerWeights(join(staging, 'adapter'));
          },
        );
        return { path: record.tinker_path, type: 'save_weights_for_sampler' };
      });
    }
    if (b.sampling_session_seq_id === undefined) {
      throw new HttpError(400, 'save_weights_for_sampler needs either "path" (a name) or "sampling_session_seq_id"');
    }
    const samplerId = `${sessionId}:sample:${b.sampling_session_seq_id}`;
    if (this.samplers.has(samplerId)) throw new HttpError(409, `sampling session ${samplerId} already exists`);
    return this.queueModelOp(m, b.seq_id, b, () => {
      const sampler = m.model.sampler();
      this.samplers.set(samplerId, {
        id: samplerId,
        baseModel: m.base.name,
        sampler: Promise.resolve(sampler),
        lastUsed: Date.now(),
        sampleSeen: new Map(),
      });
      this.evictSamplers();
      this.sessions.get(sessionId)?.samplerIds.add(samplerId);
      return { sampling_session_id: samplerId, type: 'save_weights_for_sampler' };
    });
  }

  private async loadWeights(body: unknown): Promise<ServiceReply> {
    const b = parseBody(LoadWeightsRequestSchema, body, 'load_weights');
    const ckpt = parseCheckpointPath(b.path);
    if (ckpt.kind !== 'weights') {
      throw new HttpError(400, `load_weights needs a training checkpoint (tinker://…/weights/…), got ${b.path}`);
    }
    const record = await this.storage.readCheckpoint(ckpt.runId, 'weights', ckpt.name);
    if (!record) throw new HttpError(404, `checkpoint ${b.path} does not exist`);
    const dir = this.storage.checkpointDir(ckpt.runId, 'weights', ckpt.name);
    const load = (m: ModelState) => async () => {
      await m.model.loadState(join(dir, 'state'), { optimizer: b.optimizer });
      return { path: b.path, model_id: m.run.training_run_id, type: 'load_weights' };
    };
    if (b.model_id !== undefined) {
      const m = this.modelState(b.model_id);
      const replay = m.queue.replayOf(b.seq_id, bodyHash(b));
      if (replay !== undefined) return this.futureReply(replay, b.model_id);
      const seq = b.seq_id ?? 1;
      if (seq !== 1 || m.queue.started) {
        throw new HttpError(400, `LoadWeights is not permitted with seq_id ${seq}: it must be a model's first request`);
      }
      return this.queueModelOp(m, seq, b, load(m));
    }
    // Create-via-load: the model is created from the checkpoint's run, then loaded.
    if (b.session_id === undefined || b.model_seq_id === undefined) {
      throw new HttpError(400, 'load_weights needs either model_id (+ seq_id 1) or session_id + model_seq_id');
    }
    const session = this.session(b.session_id);
    const run = await this.storage.readRun(ckpt.runId);
    if (!run) throw new HttpError(404, `training run ${ckpt.runId} does not exist`);
    const modelId = `${b.session_id}:train:${b.model_seq_id}`;
    if (this.models.has(modelId)) throw new HttpError(409, `model ${modelId} already exists`);
    const baseName = b.base_model ?? run.base_model;
    this.checkBaseModelName(baseName);
    const work = this.executor.run(
      this.wrap(async () => {
        const base = await this.baseModel(baseName);
        const m = await this.registerModel(
          modelId,
          base,
          { ...run.lora_config },
          b.user_metadata ?? run.user_metadata,
          session,
          bodyHash(b),
        );
        m.queue.assign(1);
        return load(m)();
      }),
    );
    return this.futureReply(this.futures.create(work), modelId);
  }

  private async weightsInfo(body: unknown) {
    const b = parseBody(WeightsInfoRequestSchema, body, 'weights_info');
    const ckpt = parseCheckpointPath(b.tinker_path);
    const record = await this.storage.readCheckpoint(ckpt.runId, ckpt.kind, ckpt.name);
    const run = await this.storage.readRun(ckpt.runId);
    if (!record || !run) throw new HttpError(404, `checkpoint ${b.tinker_path} does not exist`);
    return {
      base_model: run.base_model,
      is_lora: true,
      lora_rank: run.lora_config.rank,
      train_unembed: run.lora_config.train_unembed,
      train_mlp: run.lora_config.train_mlp,
      train_attn: run.lora_config.train_attn,
    };
  }

  // ------------------------------------------------------------------ sampling

  /** Loads (and, after eviction, reloads) a sampler over `baseName` with the adapter in `adapterDir`, if any. */
  private samplerLoader(baseName: string, adapterDir: string | null): () => Promise<Sampler> {
    return () => {
      const p = this.executor.run(async () => loadSampler(await this.baseModel(baseName), adapterDir));
      p.catch(() => undefined);
      return p;
    };
  }

  private async samplerFor(
    baseModel: string | undefined,
    modelPath: string | undefined,
    id: string,
  ): Promise<SamplerState> {
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

  private async createSamplingSession(body: unknown) {
    const b = parseBody(CreateSamplingSessionRequestSchema, body, 'create_sampling_session');
    const session = this.session(b.session_id);
    if ((b.base_model === undefined) === (b.model_path === undefined)) {
      throw new HttpError(400, 'create_sampling_session needs exactly one of base_model or model_path');
    }
    const id = `${b.session_id}:sample:${b.sampling_session_seq_id}`;
    const existing = this.samplers.get(id);
    if (existing) {
      if (existing.baseModel === b.base_model || existing.modelPath === b.model_path) {
        return { type: 'create_sampling_session', sampling_session_id: id };
      }
      throw new HttpError(409, `sampling_session_seq_id ${b.sampling_session_seq_id} was already used`);
    }
    const state = await this.samplerFor(b.base_model, b.model_path, id);
    this.samplers.set(id, state);
    this.evictSamplers();
    session.samplerIds.add(id);
    return { type: 'create_sampling_session', sampling_session_id: id };
  }

  private async asample(body: unknown): Promise<ServiceReply> {
    const b: WireSampleRequest = parseBody(SampleRequestSchema, body, 'asample');
    let state: SamplerState;
    if (b.sampling_session_id !== undefined) {
      const s = this.samplers.get(b.sampling_session_id);
      if (!s) {
        throw new HttpError(
          404,
          `unknown sampling_session_id "${b.sampling_session_id}" (ephemeral samplers are dropped after the ${MAX_LIVE_SAMPLERS} most recent; save sampler weights by name to keep one)`,
        );
      }
      state = s;
    } else {
      state = await this.samplerFor(b.base_model, b.model_path, 'direct');
    }
    const hash = bodyHash(b);
    if (b.seq_id !== undefined) {
      const seen = state.sampleSeen.get(b.seq_id);
      if (seen) {
        if (seen.hash !== hash)
          throw new HttpError(409, `seq_id ${b.seq_id} was already used by a different sample request`);
        return this.futureReply(seen.requestId);
      }
    }
    const prompt: number[] = [];
    for (const [c, chunk] of b.prompt.chunks.entries()) {
      if (chunk.type !== 'encoded_text') {
        throw new HttpError(400, `prompt.chunks[${c}]: ${chunk.type} chunks are not supported by the local service`);
      }
      prompt.push(...chunk.tokens);
    }
    if (prompt.length === 0) throw new HttpError(400, 'prompt is empty');
    const p = b.sampling_params;
    const work = this.executor.run(
      this.wrap(async () => {
        state.lastUsed = Date.now();
        state.sampler ??= state.load?.();
        if (state.sampler === undefined) throw userError(`sampler ${state.id} is no longer loaded`);
        const sampler = await state.sampler;
        const r = sampler.sample(prompt, {
          numSamples: b.num_samples,
          ...(p.max_tokens !== undefined ? { maxTokens: p.max_tokens } : {}),
          temperature: p.temperature,
          topK: p.top_k,
          topP: p.top_p,
          ...(p.seed !== undefined ? { seed: p.seed } : {}),
          ...(p.stop !== undefined ? { stop: p.stop } : {}),
          ...(b.prompt_logprobs ? { includePromptLogprobs: true } : {}),
          ...(b.topk_prompt_logprobs > 0 ? { topkPromptLogprobs: b.topk_prompt_logprobs } : {}),
        });
        const out: Record<string, unknown> = {
          type: 'sample',
          sequences: r.sequences.map((s) => ({ stop_reason: s.stopReason, tokens: s.tokens, logprobs: s.logprobs })),
          prompt_cache_hit_tokens: 0,
        };
        if (r.promptLogprobs) out.prompt_logprobs = r.promptLogprobs;
        if (r.topkPromptLogprobs) out.topk_prompt_logprobs = r.topkPromptLogprobs;
        return out;
      }),
    );
    const requestId = this.futures.create(work);
    if (b.seq_id !== undefined) {
      state.sampleSeen.set(b.seq_id, { hash, requestId });
      if (state.sampleSeen.size > 10_000) state.sampleSeen.delete(state.sampleSeen.keys().next().value!);
    }
    return this.futureReply(requestId);
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

  // ------------------------------------------------------------------ futures

  private async retrieveFuture(req: ServiceRequest): Promise<ServiceReply> {
    const b = parseBody(FutureRetrieveRequestSchema, req.body, 'retrieve_future');
    const found = await this.futures.wait(b.request_id, this.closing ? 0 : this.options.longPollMs, req.signal);
    switch (found.kind) {
      case 'pending':
        return { status: 200, json: { type: 'try_again', request_id: b.request_id, queue_state: 'active' } };
      case 'done':
        return { status: 200, json: found.value };
      case 'failed':
        return { status: 200, json: { error: found.failure.error, category: found.failure.category } };
      case 'expired':
        return { status: 410, json: { detail: `request ${b.request_id} expired; submit it again` } };
      case 'unknown':
        return { status: 404, json: { detail: `unknown request_id "${b.request_id}"` } };
    }
  }

  // ------------------------------------------------------------------ REST

  private async listTrainingRuns(q: URLSearchParams) {
    const limit = Number(q.get('limit') ?? 20);
    const offset = Number(q.get('offset') ?? 0);
    const runs = (await this.storage.listRuns()).sort((a, b) => b.created_at.localeCompare(a.created_at));
    const page = await Promise.all(runs.slice(offset, offset + limit).map((r) => this.trainingRunJson(r)));
    return { training_runs: page, cursor: { offset, limit, total_count: runs.length } };
  }

  private async trainingRunJson(run: RunRecord) {
    const live = this.models.get(run.training_run_id)?.run ?? run;
    const ckpts = await this.storage.listCheckpoints(run.training_run_id);
    const lastOf = (type: 'training' | 'sampler') => ckpts.filter((c) => c.checkpoint_type === type).at(-1);
    const out: Record<string, unknown> = {
      training_run_id: run.training_run_id,
      base_model: run.base_model,
      model_owner: run.model_owner,
      is_lora: true,
      corrupted: false,
      lora_rank: run.lora_rank,
      last_request_time: live.last_request_time,
    };
    const lt = lastOf('training');
    const ls = lastOf('sampler');
    if (lt) out.last_checkpoint = lt;
    if (ls) out.last_sampler_checkpoint = ls;
    if (run.user_metadata) out.user_metadata = run.user_metadata;
    return out;
  }

  private async listUserCheckpoints(q: URLSearchParams) {
    const limit = Number(q.get('limit') ?? 100);
    const offset = Number(q.get('offset') ?? 0);
    const all: CheckpointRecord[] = [];
    for (const run of await this.storage.listRuns())
      all.push(...(await this.storage.listCheckpoints(run.training_run_id)));
    all.sort((a, b) => b.time.localeCompare(a.time));
    return { checkpoints: all.slice(offset, offset + limit), cursor: { offset, limit, total_count: all.length } };
  }

  private async listSessions(q: URLSearchParams) {
    const limit = Number(q.get('limit') ?? 20);
    const offset = Number(q.get('offset') ?? 0);
    const ids = new Set(this.sessions.keys());
    for (const run of await this.storage.listRuns()) ids.add(run.training_run_id.split(':')[0]!);
    return { sessions: [...ids].slice(offset, offset + limit) };
  }

  private async restRoute(req: ServiceRequest): Promise<ServiceReply | undefined> {
    const parts = req.path.split('/').slice(3).map(decodeURIComponent); // after /api/v1/
    const { method } = req;
    const ok = (json: unknown): ServiceReply => ({ status: 200, json });
    if (parts[0] === 'samplers' && parts.length === 2 && method === 'GET') {
      const s = this.samplers.get(parts[1]!);
      if (!s) throw new HttpError(404, `unknown sampler "${parts[1]}"`);
      return ok({ sampler_id: s.id, base_model: s.baseModel, ...(s.modelPath ? { model_path: s.modelPath } : {}) });
    }
    if (parts[0] === 'sessions' && parts.length === 2 && method === 'GET') {
      const id = parts[1]!;
      const live = this.sessions.get(id);
      const runIds = new Set(live?.runIds ?? []);
      for (const run of await this.storage.listRuns())
        if (run.training_run_id.startsWith(`${id}:`)) runIds.add(run.training_run_id);
      if (!live && runIds.size === 0) throw new HttpError(404, `unknown session "${id}"`);
      return ok({ training_run_ids: [...runIds], sampler_ids: [...(live?.samplerIds ?? [])] });
    }
    if ((parts[0] === 'training_runs' || parts[0] === 'models') && parts.length >= 2) {
      const runId = parts[1]!;
      const run = await this.storage.readRun(runId);
      if (!run) throw new HttpError(404, `unknown training run "${runId}"`);
      if (parts.length === 2 && method === 'GET' && parts[0] === 'training_runs')
        return ok(await this.trainingRunJson(run));
      if (parts[2] !== 'checkpoints') return undefined;
      if (parts.length === 3 && method === 'GET') return ok({ checkpoints: await this.storage.listCheckpoints(runId) });
      const kind = parts[3];
      if (kind !== 'weights' && kind !== 'sampler_weights') {
        throw new HttpError(
          400,
          `checkpoint id must be weights/<name> or sampler_weights/<name>, got "${parts.slice(3).join('/')}"`,
        );
      }
      const name = parts[4];
      if (name === undefined) throw new HttpError(400, 'checkpoint name missing');
      const record = await this.storage.readCheckpoint(runId, kind, name);
      if (!record) throw new HttpError(404, `checkpoint tinker://${runId}/${kind}/${name} does not exist`);
      const action = parts[5];
      if (action === undefined && method === 'DELETE') {
        await this.storage.deleteCheckpoint(runId, kind, name);
        return { status: 204 };
      }
      if (action === 'publish' && method === 'POST') {
        if (record.public) throw new HttpError(409, `${record.tinker_path} is already public`);
        await this.storage.updateCheckpoint(runId, kind, name, { public: true });
        return { status: 204 };
      }
      if (action === 'publish' && method === 'DELETE') {
        if (!record.public) throw new HttpError(409, `${record.tinker_path} is already private`);
        await this.storage.updateCheckpoint(runId, kind, name, { public: false });
        return { status: 204 };
      }
      if (action === 'ttl' && method === 'PUT') {
        const b = parseBody(CheckpointTtlRequestSchema, req.body, 'ttl');
        const patch: Partial<CheckpointRecord> = {
          expires_at: b.ttl_seconds === null ? undefined : new Date(Date.now() + b.ttl_seconds * 1000).toISOString(),
        };
        await this.storage.updateCheckpoint(runId, kind, name, patch);
        return { status: 204 };
      }
      if (action === 'archive' && method === 'GET') {
        const expires = Date.now() + 15 * 60_000;
        const target = `${encodeURIComponent(runId)}/${kind}/${encodeURIComponent(name)}`;
        const sig = this.sign(`${target}:${expires}`);
        return {
          status: 302,
          headers: {
            Location: `/api/v1/_download/${target}?expires=${expires}&sig=${sig}`,
            Expires: new Date(expires).toUTCString(),
          },
        };
      }
    }
    return undefined;
  }

  private sign(text: string): string {
    return createHmac('sha256', this.downloadSecret).update(text).digest('hex');
  }

  /** Serves a signed archive URL: a tar of the checkpoint's PEFT adapter plus a `checkpoint_complete` marker. */
  private async download(req: ServiceRequest): Promise<ServiceReply> {
    const rest = req.path.slice('/api/v1/_download/'.length);
    const [runEnc, kind, nameEnc] = rest.split('/');
    const expires = Number(req.query.get('expires'));
    const sig = req.query.get('sig') ?? '';
    const target = `${runEnc}/${kind}/${nameEnc}`;
    const want = this.sign(`${target}:${expires}`);
    if (sig.length !== want.length || !timingSafeEqual(Buffer.from(sig), Buffer.from(want))) {
      throw new HttpError(403, 'invalid download signature');
    }
    if (!(expires > Date.now())) throw new HttpError(403, 'this download URL has expired; ask for a new one');
    if (kind !== 'weights' && kind !== 'sampler_weights') throw new HttpError(404, 'no such checkpoint');
    const runId = decodeURIComponent(runEnc ?? '');
    const name = decodeURIComponent(nameEnc ?? '');
    const record = await this.storage.readCheckpoint(runId, kind, name);
    if (!record) throw new HttpError(404, `checkpoint tinker://${runId}/${kind}/${name} does not exist`);
    const bytes = await tarDirectory(join(this.storage.checkpointDir(runId, kind, name), 'adapter'), [
      { name: 'checkpoint_complete', data: new Uint8Array(0) },
    ]);
    return {
      status: 200,
      bytes,
      contentType: 'application/x-tar',
      headers: { 'Content-Disposition': `attachment; filename="${name}.tar"` },
    };
  }
}
