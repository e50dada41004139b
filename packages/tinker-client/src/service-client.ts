/**
 * ServiceClient (upstream SDK `lib/public_interfaces/service_client.py` and `internal_client_holder.py`): the
 * entry point. It handshakes (`client/config`), opens a session kept alive by heartbeats, and creates training,
 * sampling and REST clients. It is a pure client: it talks to the server it is given (`baseURL`, `server`,
 * `TINKER_BASE_URL`, or the hosted service with `TINKER_API_KEY`) and never starts one. Choosing a service (and
 * starting the embedded one when nothing is configured) is `serviceClientFor` in `@cookbook/training`.
 */
import { ConfigError } from '@cookbook/core';
import {
  type ClientConfigResponse,
  ClientConfigResponseSchema,
  CreateModelResponseSchema,
  CreateSamplingSessionResponseSchema,
  CreateSessionResponseSchema,
  DynamicConfigResponseSchema,
  HealthzResponseSchema,
  LoadWeightsResponseSchema,
  ServerCapabilitiesSchema,
  WeightsInfoResponseSchema,
} from '@cookbook/tinker-wire';
import type { z } from 'zod';
import { APIConnectionError, APIError } from './errors.js';
import { HttpClient, SDK_VERSION } from './http.js';
import { ClientHolder } from './internal/holder.js';
import { JwtAuth } from './internal/jwt-auth.js';
import { type ProtocolMode, sdkVersionFor } from './internal/protocol.js';
import { RestClient } from './rest-client.js';
import { SamplingClient } from './sampling-client.js';
import { TrainingClient } from './training-client.js';
import { type ForwardBackwardEncoder, type LoraConfig, loraConfigToWire } from './types.js';

/** The hosted service's root, used when only an API key is set. */
export const DEFAULT_BASE_URL = 'https://tinker.thinkingmachines.dev/services/tinker-prod';

/** Options of {@link ServiceClient}; each falls back to an environment variable or a default. */
export interface ServiceClientOptions {
  /** Credential; default `TINKER_API_KEY`. */
  apiKey?: string;
  /** Server root; default `TINKER_BASE_URL`, else the hosted service when a key is set. */
  baseURL?: string;
  /**
   * A server found (or started) on demand at first contact, instead of `baseURL`: the caller's, never the client's
   * choice (`serviceClientFor` in `@cookbook/training` passes the embedded service here). `release` runs once when
   * the client closes.
   */
  server?: ServerProvider;
  /** Per-request timeout in ms. Default 60 000. */
  timeout?: number;
  /** HTTP-layer retries. Default 10. */
  maxRetries?: number;
  /** Per-attempt timeout of the first contact with the server, ms. Default 5 000. */
  connectTimeoutMs?: number;
  /** Retries of the first contact (each announced); the total wait is bounded by them. Default 4. */
  connectRetries?: number;
  /** Custom fetch. */
  fetch?: typeof globalThis.fetch;
  /** Session heartbeat period in ms. Default 10 000. */
  heartbeatIntervalMs?: number;
  /** Long-poll timeout of `retrieve_future`, ms. Default 45 000. */
  pollTimeoutMs?: number;
  /** Scales every retry/backoff delay (tests use small values). Default 1. */
  backoffScale?: number;
  /** Session tags; default `TINKER_TAGS` (comma-separated). */
  tags?: string[];
  /** Default `TINKER_PROJECT_ID`. */
  projectId?: string;
  userMetadata?: Record<string, unknown>;
  /** Where warnings and notices go. Default: console.warn. */
  warn?: (message: string) => void;
  /**
   * Replace how forward_backward bodies are encoded (a test seam). Default: the protocol the server speaks
   * (protobuf when it answers `client/config`, else JSON).
   */
  forwardBackwardEncoder?: ForwardBackwardEncoder;
  /** Scales the `client/dynamic_config` refresh interval (tests use small values). Default 1. */
  dynamicConfigScale?: number;
}

/** Where a server is, resolved at first contact ({@link ServiceClientOptions.server}). */
export type ServerProvider = () => Promise<{
  baseURL: string;
  apiKey?: string;
  /** Called once when the client closes (e.g. to stop a service started for it). */
  release?: () => Promise<void>;
}>;

/** Arguments of {@link ServiceClient.createLoraTrainingClient}. */
export interface CreateLoraTrainingClientArgs extends LoraConfig {
  baseModel: string;
  userMetadata?: Record<string, unknown>;
}

/** A model the server can train or sample. */
export interface SupportedModel {
  modelName?: string;
  maxContextLength?: number;
}

/** Connects to a Tinker-compatible service and creates clients. Call {@link close} when done. */
export class ServiceClient {
  private readonly options: ServiceClientOptions;
  private holderPromise: Promise<ClientHolder> | undefined;
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private lastHeartbeatOk = Date.now();
  private heartbeatWarned = false;
  private closed = false;
  private httpPromise: Promise<HttpClient> | undefined;
  private releaseServer: (() => Promise<void>) | undefined;
  private dynamicTimer: ReturnType<typeof setTimeout> | undefined;
  private jwt: JwtAuth | undefined;
  readonly warn: (message: string) => void;

  constructor(options: ServiceClientOptions = {}) {
    this.options = options;
    this.warn = options.warn ?? ((m) => console.warn(m));
  }

  /** The HTTP layer, once the server is resolved (asking `server` for it if one was given). */
  http(): Promise<HttpClient> {
    this.httpPromise ??= (async () => {
      const env = process.env;
      let apiKey = this.options.apiKey ?? (env.TINKER_API_KEY || undefined);
      let baseURL: string | undefined;
      if (this.options.server !== undefined) {
        if (this.options.baseURL !== undefined) {
          throw new ConfigError('ServiceClient: pass either baseURL or server, not both', { key: 'baseURL' });
        }
        const found = await this.options.server();
        if (this.closed) {
          await found.release?.();
          throw new ConfigError('this ServiceClient is closed');
        }
        baseURL = found.baseURL;
        apiKey = this.options.apiKey ?? found.apiKey;
        this.releaseServer = found.release;
      } else {
        baseURL = this.options.baseURL ?? (env.TINKER_BASE_URL || undefined);
        if (baseURL === undefined && apiKey === undefined) {
          throw new ConfigError(
            'no Tinker server configured: set TINKER_BASE_URL (and TINKER_API_KEY for the hosted service) or pass ' +
              "baseURL; for the embedded local service, build the client with @cookbook/training's serviceClientFor() " +
              '(it starts @cookbook/local-tinker in-process)',
            { key: 'TINKER_BASE_URL' },
          );
        }
      }
      baseURL ??= DEFAULT_BASE_URL;
      return new HttpClient({
        baseURL,
        apiKey,
        ...(this.options.timeout !== undefined ? { timeoutMs: this.options.timeout } : {}),
        ...(this.options.maxRetries !== undefined ? { maxRetries: this.options.maxRetries } : {}),
        ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
        ...(this.options.backoffScale !== undefined ? { backoffScale: this.options.backoffScale } : {}),
        warn: this.warn,
      });
    })();
    return this.httpPromise;
  }

  /** The server root in use. */
  async baseURL(): Promise<string> {
    return (await this.http()).baseURL;
  }

  private holder(): Promise<ClientHolder> {
    if (this.closed) return Promise.reject(new ConfigError('this ServiceClient is closed'));
    this.holderPromise ??= this.connect();
    return this.holderPromise;
  }

  /**
   * The handshake of SDK 0.25.0 `lib/internal_client_holder.py`: `client/config` (its answer picks the protocol and
   * the flags), the JWT exchange when `pjwt_auth_enabled`, `client/dynamic_config` (a 404 keeps its defaults), then
   * `create_session` with `user_metadata` always present (`{}` when none: the SDK's model requires the field).
   */
  private async connect(): Promise<ClientHolder> {
    const http = await this.http();
    const { flags, mode } = await this.firstContact(http);
    if (flags.pjwt_auth_enabled) {
      this.jwt = new JwtAuth(http);
      await this.jwt.init();
    }
    let dynamicConfig: z.infer<typeof DynamicConfigResponseSchema> | undefined;
    if (mode === 'proto') dynamicConfig = await this.fetchDynamicConfig(http, true);
    const tags =
      this.options.tags ?? (process.env.TINKER_TAGS ? process.env.TINKER_TAGS.split(',').map((t) => t.trim()) : []);
    const projectId = this.options.projectId ?? (process.env.TINKER_PROJECT_ID || undefined);
    const { data: session } = await http.request({
      method: 'POST',
      path: '/api/v1/create_session',
      body: {
        tags,
        user_metadata: this.options.userMetadata ?? {},
        sdk_version: sdkVersionFor(mode),
        ...(projectId ? { project_id: projectId } : {}),
        type: 'create_session',
      },
      schema: CreateSessionResponseSchema,
    });
    if (session.info_message) this.warn(session.info_message);
    if (session.warning_message) this.warn(session.warning_message);
    if (session.error_message) this.warn(session.error_message);
    const holder = new ClientHolder(http, session.session_id, flags, this.options.pollTimeoutMs ?? 45_000, mode);
    holder.forwardBackwardEncoder = this.options.forwardBackwardEncoder;
    if (dynamicConfig !== undefined) {
      holder.dynamicConfig = dynamicConfig;
      this.scheduleDynamicConfig(holder);
    }
    this.startHeartbeat(holder);
    return holder;
  }

  /**
   * `POST client/dynamic_config` (`{sdk_version}`), no HTTP-layer retries and a 10 s timeout as the SDK sends it.
   * The first fetch retries transient failures and reads a 404 as "no such route": the defaults.
   */
  private async fetchDynamicConfig(
    http: HttpClient,
    first: boolean,
  ): Promise<z.infer<typeof DynamicConfigResponseSchema>> {
    try {
      const { data } = await http.request({
        method: 'POST',
        path: '/api/v1/client/dynamic_config',
        body: { sdk_version: SDK_VERSION },
        schema: DynamicConfigResponseSchema,
        timeoutMs: 10_000,
        maxRetries: first ? (this.options.connectRetries ?? 4) : 0,
      });
      return data;
    } catch (err) {
      if (first && err instanceof APIError && err.status === 404) return { refresh_interval_sec: 300 };
      throw err;
    }
  }

  /** Re-fetch `client/dynamic_config` every max(`refresh_interval_sec`, 10) s; a failure keeps the last answer. */
  private scheduleDynamicConfig(holder: ClientHolder): void {
    if (this.closed) return;
    const seconds = Math.max(holder.dynamicConfig.refresh_interval_sec, 10);
    this.dynamicTimer = setTimeout(
      () => {
        this.fetchDynamicConfig(holder.http, false).then(
          (cfg) => {
            holder.dynamicConfig = cfg;
            this.scheduleDynamicConfig(holder);
          },
          () => this.scheduleDynamicConfig(holder),
        );
      },
      seconds * 1000 * (this.options.dynamicConfigScale ?? 1),
    );
    this.dynamicTimer.unref();
  }

  /**
   * The first request to the server, with honest waits: a short per-attempt timeout, a line within 2 s saying where it
   * connects, one line per retry with the attempt and the wait, and a bounded total after which the error names the
   * URL and what to check.
   */
  private async firstContact(http: HttpClient): Promise<{ flags: ClientConfigResponse; mode: ProtocolMode }> {
    const attemptTimeoutMs = this.options.connectTimeoutMs ?? 5_000;
    const maxRetries = this.options.connectRetries ?? 4;
    const started = Date.now();
    const slow = setTimeout(() => this.warn(`cookbook: connecting to ${http.baseURL} …`), 2_000);
    slow.unref();
    try {
      const { data } = await http.request({
        method: 'POST',
        path: '/api/v1/client/config',
        body: { sdk_version: SDK_VERSION },
        schema: ClientConfigResponseSchema,
        timeoutMs: attemptTimeoutMs,
        maxRetries,
        onRetry: ({ attempt, attempts, waitMs, error }) =>
          this.warn(
            `cookbook: connecting to ${http.baseURL} (attempt ${attempt}/${attempts}, retrying in ${Math.max(1, Math.round(waitMs / 1000))} s): ${error.message}`,
          ),
      });
      return { flags: data, mode: 'proto' };
    } catch (err) {
      // No client/config route: a server that predates it (or another engine) gets the JSON protocol.
      if (err instanceof APIError && err.status === 404) {
        return { flags: ClientConfigResponseSchema.parse({}), mode: 'json' };
      }
      if (!(err instanceof APIConnectionError) && !(err instanceof APIError && (err.status ?? 0) >= 500)) throw err;
      const seconds = Math.round((Date.now() - started) / 1000);
      const hint = http.baseURL.startsWith(DEFAULT_BASE_URL)
        ? 'check your network and TINKER_API_KEY'
        : 'check the URL (TINKER_BASE_URL or base_url) and that the server is running; for the hosted service set TINKER_API_KEY and unset TINKER_BASE_URL';
      throw new APIConnectionError(
        `could not reach the Tinker service at ${http.baseURL} after ${maxRetries + 1} attempts over ${seconds} s (${err.message}); ${hint}`,
        { cause: err },
      );
    } finally {
      clearTimeout(slow);
    }
  }

  private startHeartbeat(holder: ClientHolder): void {
    const interval = this.options.heartbeatIntervalMs ?? 10_000;
    this.lastHeartbeatOk = Date.now();
    this.heartbeat = setInterval(() => {
      holder.http
        .request({
          method: 'POST',
          path: '/api/v1/session_heartbeat',
          body: { session_id: holder.sessionId, type: 'session_heartbeat' },
          timeoutMs: Math.min(10_000, interval),
          maxRetries: 0,
        })
        .then(
          () => {
            this.lastHeartbeatOk = Date.now();
            this.heartbeatWarned = false;
          },
          (err: unknown) => {
            // The server no longer knows the session (it restarted or expired it): say so at once, with what to do.
            const gone = err instanceof APIError && (err.status === 404 || err.status === 410);
            if (gone && !this.heartbeatWarned) {
              this.heartbeatWarned = true;
              this.warn(`session ${holder.sessionId}: ${err.message}`);
            }
            if (!this.heartbeatWarned && Date.now() - this.lastHeartbeatOk > 12 * interval) {
              this.heartbeatWarned = true;
              const seconds = Math.round((Date.now() - this.lastHeartbeatOk) / 1000);
              const why = err instanceof Error ? err.message : String(err);
              // Say only what is known: an unreachable server may be gone (with the session); one that answers
              // with errors is alive and may end the session when its heartbeat timeout passes.
              this.warn(
                err instanceof APIConnectionError
                  ? `session ${holder.sessionId}: the Tinker service at ${holder.http.baseURL} has not been reachable for ${seconds} s (${why}); if it stopped, the session's loaded models and samplers went with it (saved checkpoints remain), and if it is only slow, it may end the session when its heartbeat timeout passes`
                  : `session ${holder.sessionId}: heartbeats have failed for ${seconds} s (${why}); the server may end the session if they keep failing`,
              );
            }
          },
        );
    }, interval);
    this.heartbeat.unref();
  }

  /** The session id (opens the session if needed). */
  async sessionId(): Promise<string> {
    return (await this.holder()).sessionId;
  }

  /** `GET /healthz`. */
  async health(): Promise<string> {
    const http = await this.http();
    return (await http.request({ method: 'GET', path: '/api/v1/healthz', schema: HealthzResponseSchema })).data.status;
  }

  /** The models the server supports (after the handshake: in JWT mode the service takes no other call before it). */
  async getServerCapabilities(): Promise<{ supportedModels: SupportedModel[] }> {
    const { http } = await this.holder();
    const { data } = await http.request({
      method: 'GET',
      path: '/api/v1/get_server_capabilities',
      schema: ServerCapabilitiesSchema,
    });
    return {
      supportedModels: data.supported_models.map((m) => {
        const out: SupportedModel = {};
        if (m.model_name !== undefined) out.modelName = m.model_name;
        if (m.max_context_length !== undefined) out.maxContextLength = m.max_context_length;
        return out;
      }),
    };
  }

  /** Create a LoRA training run on `baseModel`. */
  async createLoraTrainingClient(args: CreateLoraTrainingClientArgs): Promise<TrainingClient> {
    const holder = await this.holder();
    const submitted = await holder.submit('/api/v1/create_model', {
      session_id: holder.sessionId,
      model_seq_id: holder.nextModelSeqId(),
      base_model: args.baseModel,
      ...(args.userMetadata ? { user_metadata: args.userMetadata } : {}),
      lora_config: loraConfigToWire(args),
      type: 'create_model',
    });
    const result = await holder.poll(submitted, 'CreateModel', CreateModelResponseSchema);
    return new TrainingClient(holder, result.model_id);
  }

  /**
   * A new training run initialised from a saved state (`tinker://…/weights/…`), with the LoRA configuration
   * read from the checkpoint. With `optimizer: true` the Adam moments are restored too (exact resume).
   */
  async createTrainingClientFromState(
    path: string,
    options: {
      optimizer?: boolean;
      userMetadata?: Record<string, unknown>;
      /** Override of the checkpoint's base model (must be compatible with it). */
      baseModel?: string;
      weightsAccessToken?: string;
    } = {},
  ): Promise<TrainingClient> {
    const holder = await this.holder();
    if (holder.flags.create_model_via_load_weights) {
      // One session-addressed load_weights creates the model (SDK 0.25.0 `service_client.py`): the server derives
      // the LoRA config from the checkpoint and the model id from (session_id, model_seq_id).
      const modelSeqId = holder.nextModelSeqId();
      const submitted = await holder.submit('/api/v1/load_weights', {
        session_id: holder.sessionId,
        model_seq_id: modelSeqId,
        ...(options.baseModel !== undefined ? { base_model: options.baseModel } : {}),
        ...(options.userMetadata ? { user_metadata: options.userMetadata } : {}),
        path,
        optimizer: options.optimizer ?? false,
        ...(options.weightsAccessToken !== undefined ? { weights_access_token: options.weightsAccessToken } : {}),
        type: 'load_weights',
      });
      await holder.poll(submitted, 'LoadWeights', LoadWeightsResponseSchema);
      return new TrainingClient(holder, `${holder.sessionId}:train:${modelSeqId}`);
    }
    const { data: info } = await holder.http.request({
      method: 'POST',
      path: '/api/v1/weights_info',
      body: { tinker_path: path },
      schema: WeightsInfoResponseSchema,
    });
    const lora: CreateLoraTrainingClientArgs = { baseModel: options.baseModel ?? info.base_model };
    if (info.lora_rank !== undefined) lora.rank = info.lora_rank;
    if (info.train_attn !== undefined) lora.trainAttn = info.train_attn;
    if (info.train_mlp !== undefined) lora.trainMlp = info.train_mlp;
    if (info.train_unembed !== undefined) lora.trainUnembed = info.train_unembed;
    if (options.userMetadata) lora.userMetadata = options.userMetadata;
    const client = await this.createLoraTrainingClient(lora);
    await client.loadState(path, {
      optimizer: options.optimizer ?? false,
      ...(options.weightsAccessToken !== undefined ? { weightsAccessToken: options.weightsAccessToken } : {}),
    });
    return client;
  }

  /** {@link createTrainingClientFromState} with the optimizer state restored. */
  createTrainingClientFromStateWithOptimizer(
    path: string,
    options: { userMetadata?: Record<string, unknown> } = {},
  ): Promise<TrainingClient> {
    return this.createTrainingClientFromState(path, { ...options, optimizer: true });
  }

  /** A sampler over a base model or a saved sampler checkpoint (`tinker://…/sampler_weights/…`). */
  async createSamplingClient(args: { baseModel?: string; modelPath?: string }): Promise<SamplingClient> {
    if ((args.baseModel === undefined) === (args.modelPath === undefined)) {
      throw new ConfigError('createSamplingClient needs exactly one of baseModel or modelPath');
    }
    if (args.modelPath !== undefined && !args.modelPath.startsWith('tinker://')) {
      throw new ConfigError(`modelPath must be a tinker:// path, got "${args.modelPath}"`);
    }
    const holder = await this.holder();
    const { data } = await holder.http.request({
      method: 'POST',
      path: '/api/v1/create_sampling_session',
      body: {
        session_id: holder.sessionId,
        sampling_session_seq_id: holder.nextSamplingSessionSeqId(),
        ...(args.baseModel !== undefined ? { base_model: args.baseModel } : {}),
        ...(args.modelPath !== undefined ? { model_path: args.modelPath } : {}),
        type: 'create_sampling_session',
      },
      schema: CreateSamplingSessionResponseSchema,
    });
    return new SamplingClient(holder, data.sampling_session_id);
  }

  /** A client for the REST routes (runs, checkpoints, samplers, sessions), after the handshake (as every client). */
  async createRestClient(): Promise<RestClient> {
    return new RestClient((await this.holder()).http);
  }

  /**
   * Stop heartbeats and release the server given as `server` (the embedded service stops when its last client in
   * the process closes), so a script can end. Clients created from this one stop working. Idempotent.
   */
  async close(): Promise<void> {
    this.closed = true;
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    if (this.dynamicTimer !== undefined) clearTimeout(this.dynamicTimer);
    this.jwt?.stop();
    const release = this.releaseServer;
    this.releaseServer = undefined;
    await release?.();
  }

  /** `await using service = new ServiceClient()` closes it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
