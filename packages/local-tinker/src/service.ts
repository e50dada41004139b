/**
 * The embedded Tinker-compatible service: sessions, training runs, samplers, futures and checkpoints over
 * `@cookbook/engine`, speaking the JSON protocol of tinker-api.md §2 (and protobuf forward_backward, §3.9).
 * Transport-free: `handle(request)` → reply; `http-server.ts` puts it on node:http. This file is the core: the route
 * table, authentication and idempotency; the routes live in `routes/*`, the shared state in `service-state.ts`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { BoundedMap } from '@cookbook/core';
import { listBuiltinModels } from '@cookbook/engine';
import { FutureFailure } from './futures.js';
import { HttpError, ok, type ServiceReply, type ServiceRequest } from './http-errors.js';
import { bodyHash, SeqConflictError, SeqRangeError } from './model-queue.js';
import { JwtIssuer, type ProtocolOptions, RAW_KEY_ROUTES, resolveClientFlags } from './protocol-config.js';
import { loadWeights, saveWeights, saveWeightsForSampler, weightsInfo } from './routes/checkpoints.js';
import { download, listSessions, listTrainingRuns, listUserCheckpoints, restRoute } from './routes/rest.js';
import { asample, cancelFuture, createSamplingSession, retrieveFuture } from './routes/sampling.js';
import {
  createModel,
  createSession,
  forwardBackwardRoute,
  forwardRoute,
  getInfo,
  optimStep,
  sessionHeartbeat,
  unloadModel,
} from './routes/training.js';
import { type ServiceOptions, ServiceState } from './service-state.js';
import { UnsafeNameError } from './storage.js';

export { HttpError, parseCheckpointPath, type ServiceReply, type ServiceRequest } from './http-errors.js';
export type { ProtocolOptions } from './protocol-config.js';
export type { ServiceOptions } from './service-state.js';

/** A route: the shared state and the request in, a reply out. */
type Route = (state: ServiceState, req: ServiceRequest) => ServiceReply | Promise<ServiceReply>;

/** Every fixed route, by `METHOD path` (REST routes with path parameters are matched in `routes/rest.ts`). */
const ROUTES: Record<string, Route> = {
  'POST /api/v1/telemetry': () => ok({ status: 'accepted' }),
  'POST /api/v1/create_session': createSession,
  'POST /api/v1/session_heartbeat': sessionHeartbeat,
  'POST /api/v1/create_model': createModel,
  'POST /api/v1/get_info': getInfo,
  'POST /api/v1/unload_model': unloadModel,
  'POST /api/v1/forward_backward': forwardBackwardRoute,
  'POST /api/v1/forward': forwardRoute,
  'POST /api/v1/optim_step': optimStep,
  'POST /api/v1/save_weights': saveWeights,
  'POST /api/v1/save_weights_for_sampler': saveWeightsForSampler,
  'POST /api/v1/load_weights': loadWeights,
  'POST /api/v1/weights_info': weightsInfo,
  'POST /api/v1/create_sampling_session': createSamplingSession,
  'POST /api/v1/asample': asample,
  'POST /api/v1/retrieve_future': retrieveFuture,
  'POST /api/v1/cancel_future': cancelFuture,
  'GET /api/v1/get_server_capabilities': () =>
    ok({
      supported_models: listBuiltinModels().map((m) => ({
        model_name: m.name,
        max_context_length: m.maxContextLength,
      })),
    }),
  'GET /api/v1/training_runs': listTrainingRuns,
  'GET /api/v1/checkpoints': listUserCheckpoints,
  'GET /api/v1/sessions': listSessions,
};

/** Routes anyone may call: no API key. */
const PUBLIC: Record<string, Route> = {
  'GET /api/v1/healthz': () => ok({ status: 'ok' }),
};

export class LocalTinkerService {
  private readonly state: ServiceState;
  private readonly idempotent = new BoundedMap<string, { hash: string; reply: ServiceReply }>(10_000);
  private readonly clientFlags: Record<string, unknown>;
  private readonly jwt: JwtIssuer | undefined;
  private readonly dynamicRefreshIntervalS: number;

  constructor(options: ServiceOptions & { protocol?: ProtocolOptions }) {
    this.state = new ServiceState(options);
    this.clientFlags = resolveClientFlags(options.protocol);
    this.jwt =
      this.clientFlags.pjwt_auth_enabled === true
        ? new JwtIssuer(this.state.secret, options.protocol?.jwtTtlS ?? 3600)
        : undefined;
    this.dynamicRefreshIntervalS = options.protocol?.dynamicRefreshIntervalS ?? 300;
  }

  /** The flags `client/config` answers. */
  get flags(): Readonly<Record<string, unknown>> {
    return this.clientFlags;
  }

  get storage() {
    return this.state.storage;
  }

  get futures() {
    return this.state.futures;
  }

  /** The clock-cycle model (per-cycle records), when the service runs with one. */
  get clock() {
    return this.state.clock;
  }

  /** Samples that joined a batch already decoding on their sampler (continuous batching), since the start. */
  get samplesJoined(): number {
    return this.state.engine.samplesJoined;
  }

  /** Decode steps the engine has run since the start (one per token position of a sampling batch). */
  get decodeSteps(): number {
    return this.state.engine.decodeSteps;
  }

  /** Engine operations queued or running. */
  get enginePending(): number {
    return this.state.engine.pending;
  }

  /**
   * What clients make the service hold now: the loaded training models, the memory they hold (as their workers last
   * reported, bytes) and the payload of the requests queued for them (bytes, as counted against
   * `maxQueuedBytesPerModel`).
   */
  get held(): { models: number; modelBytes: number; queuedBytes: number } {
    let queuedBytes = 0;
    for (const m of this.state.models.values()) queuedBytes += m.queue.queuedBytes;
    return { models: this.state.models.size, modelBytes: this.state.modelBytes(), queuedBytes };
  }

  /** The bounds this service enforces on one request. */
  get limits() {
    return this.state.limits;
  }

  async init(): Promise<void> {
    await this.state.storage.init();
    await this.state.start();
  }

  /** Delete expired checkpoints, apply the root's size cap and age limit (also at start, every `pruneIntervalMs`). */
  prune(): Promise<void> {
    return this.state.prune();
  }

  /** Unload what belongs to sessions silent for longer than the session timeout (also runs on a timer). */
  expireSessions(now = Date.now()): void {
    this.state.expireSessions(now);
  }

  /**
   * Stop accepting work, release pollers, stop the engine workers and give up the root. By default what is queued
   * finishes first; with `abort`, every future not yet done fails now with "the service is stopping" (running work
   * is cut short), so the service stops in bounded time whatever is queued.
   */
  async close(options: { abort?: boolean } = {}): Promise<void> {
    this.state.closing = true;
    if (options.abort === true) {
      const n = this.state.futures.failPending(
        new FutureFailure(
          'the service is stopping: this request was cancelled before it finished (saved checkpoints remain; submit it again once the service is back)',
          'server',
        ),
      );
      if (n > 0) this.state.options.log(`local-tinker: stopping; failed ${n} unfinished requests`);
    } else {
      await this.state.idle();
    }
    this.state.futures.close();
    await this.state.stop();
  }

  /** Answers one request; every failure becomes a status with `{detail}` (500 only for a bug, logged). */
  async handle(req: ServiceRequest): Promise<ServiceReply> {
    try {
      return await this.route(req);
    } catch (err) {
      const scrub = (e: { message: string }) => this.state.scrub(e.message);
      // A 409 is final: retrying the same request cannot succeed.
      const final = { 'x-should-retry': 'false' };
      if (err instanceof HttpError) {
        return { status: err.status, json: { detail: scrub(err) }, ...(err.status === 409 ? { headers: final } : {}) };
      }
      if (err instanceof SeqConflictError) return { status: 409, json: { detail: scrub(err) }, headers: final };
      if (err instanceof SeqRangeError || err instanceof UnsafeNameError) {
        return { status: 400, json: { detail: scrub(err) } };
      }
      this.state.options.log(
        `local-tinker: internal error on ${req.method} ${req.path}: ${err instanceof Error ? err.stack : String(err)}`,
      );
      return {
        status: 500,
        json: { detail: `internal error: ${err instanceof Error ? scrub(err) : this.state.scrub(String(err))}` },
      };
    }
  }

  /** Constant-time check of the API key. */
  checkApiKey(given: string | undefined): boolean {
    const want = this.state.options.apiKey;
    if (want === undefined) return true;
    if (given === undefined) return false;
    const a = createHmac('sha256', this.state.secret).update(given).digest();
    const b = createHmac('sha256', this.state.secret).update(want).digest();
    return timingSafeEqual(a, b);
  }

  /**
   * The credential check. Without JWT mode: the API key (when one is set). In JWT mode the handshake routes
   * (`client/config`, `auth/token`) take the API key and every other route a JWT minted by `auth/token`.
   */
  private authenticate(key: string, given: string | undefined): void {
    if (this.jwt !== undefined && !RAW_KEY_ROUTES.has(key)) {
      if (given === undefined || !this.jwt.verify(given)) {
        throw new HttpError(401, 'Invalid JWT: exchange the API key at POST /api/v1/auth/token and send the JWT');
      }
      return;
    }
    if (!this.checkApiKey(given)) throw new HttpError(401, 'missing or invalid X-API-Key');
  }

  /** `client/config`, `client/dynamic_config` and `auth/token`. */
  private protocolRoute(key: string): ServiceReply | undefined {
    if (key === 'POST /api/v1/client/config') return ok(this.clientFlags);
    if (key === 'POST /api/v1/client/dynamic_config') return ok({ refresh_interval_sec: this.dynamicRefreshIntervalS });
    if (key === 'POST /api/v1/auth/token') {
      if (this.jwt === undefined) {
        throw new HttpError(404, 'JWT auth is off on this service (client/config answers pjwt_auth_enabled false)');
      }
      return ok({ jwt: this.jwt.mint() });
    }
    return undefined;
  }

  private async route(req: ServiceRequest): Promise<ServiceReply> {
    const { method, path } = req;
    const key = `${method} ${path}`;
    const open = PUBLIC[key];
    if (open !== undefined) return open(this.state, req);
    if (method === 'GET' && path.startsWith('/api/v1/_download/')) return download(this.state, req);
    const apiKey = req.headers['x-api-key'];
    this.authenticate(key, Array.isArray(apiKey) ? apiKey[0] : apiKey);
    const handshake = this.protocolRoute(key);
    if (handshake !== undefined) return handshake;
    const polling = path === '/api/v1/retrieve_future' || path === '/api/v1/cancel_future';
    if (this.state.closing && method !== 'GET' && !polling) {
      throw new HttpError(503, 'the service is shutting down');
    }
    // Idempotency: a retried non-GET request (same key, same body) gets the original reply.
    const idem = req.headers['x-idempotency-key'];
    const idemKey = method !== 'GET' && typeof idem === 'string' && !polling ? idem : undefined;
    if (idemKey === undefined) return this.dispatch(req);
    const prev = this.idempotent.get(idemKey);
    const hash = bodyHash(req.body ?? null);
    if (prev) {
      if (prev.hash !== hash) throw new HttpError(409, `X-Idempotency-Key ${idemKey} was used for a different request`);
      return prev.reply;
    }
    const reply = await this.dispatch(req);
    if (reply.status < 500) {
      this.idempotent.set(idemKey, { hash, reply });
    }
    return reply;
  }

  private async dispatch(req: ServiceRequest): Promise<ServiceReply> {
    const route = ROUTES[`${req.method} ${req.path}`];
    if (route !== undefined) return route(this.state, req);
    const rest = await restRoute(this.state, req);
    if (rest) return rest;
    throw new HttpError(404, `no route ${req.method} ${req.path}`);
  }
}
