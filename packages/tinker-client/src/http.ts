/**
 * The HTTP layer (upstream SDK `_base_client.py`): ky for transport, our own retry loop so that a request keeps
 * one idempotency key across its retries, honours `retry-after(-ms)` and `x-should-retry`, and backs off with
 * jitter. The API key travels in `X-API-Key` and is redacted from every error message.
 */
import { randomUUID } from 'node:crypto';
import ky, { TimeoutError } from 'ky';
import type { z } from 'zod';
import {
  APIConnectionError,
  type APIError,
  APITimeoutError,
  errorForStatus,
  lostServerState,
  RESUME_HINT,
} from './errors.js';

/**
 * The official SDK version whose protocol this client speaks, announced as `sdk_version` (servers resolve feature
 * flags per version): protobuf forward_backward, protobuf results, `client/config` flags (SDK 0.25.0).
 */
export const SDK_VERSION = '0.25.0';

/**
 * The version announced to a server that has no `client/config` route (an older service, or another
 * Tinker-compatible engine): the client then speaks the JSON protocol of SDK 0.16.1, the last SDK that never asked
 * for `client/config` (JSON `forward` / `forward_backward` bodies, JSON results).
 */
export const LEGACY_SDK_VERSION = '0.16.1';

/** Options of {@link HttpClient}. */
export interface HttpClientOptions {
  /** Server root without `/api/v1`. */
  baseURL: string;
  /** Credential sent as `X-API-Key`. */
  apiKey?: string | undefined;
  /** Per-attempt timeout in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** Retries for retryable failures. Default 10 (the SDK's default). */
  maxRetries?: number;
  /** Custom fetch (tests, proxies). */
  fetch?: typeof globalThis.fetch;
  /** Multiplies every backoff delay; tests use a small value. Default 1. */
  backoffScale?: number;
  /** Extra headers on every request. */
  defaultHeaders?: Record<string, string>;
  /** Where warnings go. Default: console.warn. */
  warn?: (message: string) => void;
}

/** One HTTP request. */
export interface RequestOptions<T> {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path under the base URL, e.g. `/api/v1/create_session`. */
  path: string;
  /** JSON body. */
  body?: unknown;
  /** Raw body with its own content type (protobuf). */
  rawBody?: { data: Uint8Array | string; contentType: string; contentEncoding?: string };
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  timeoutMs?: number;
  maxRetries?: number;
  /** Validates the JSON response. */
  schema?: z.ZodType<T>;
  /** Send the API key itself even when a credential provider is set (the JWT exchange). */
  rawCredential?: boolean;
  /** `manual` returns 3xx responses instead of following them. */
  redirect?: 'follow' | 'manual';
  signal?: AbortSignal;
  /**
   * Called before each retry with the attempt number (1-based, of `maxRetries + 1`), the wait and the failure.
   * Default: one warning line per retry burst (the first retry of the request) for connection errors and 5xx.
   */
  onRetry?: (info: { attempt: number; attempts: number; waitMs: number; error: APIError }) => void;
}

/** A response as read by {@link HttpClient.send}. */
export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  json: unknown;
  /** The raw bytes, when the body is protobuf (`Content-Type: application/x-protobuf`). */
  bytes?: Uint8Array;
  requestId: string | undefined;
}

const RETRYABLE_STATUS = new Set([408, 409, 429]);

/** Delay before retry `attempt` (0-based): min(0.5·2^n, 10) s × (1 − 0.25·rand). */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  return Math.min(0.5 * 2 ** attempt, 10) * (1 - 0.25 * random()) * 1000;
}

/** The server's requested delay from `retry-after-ms` / `retry-after`, when 0 < delay ≤ 60 s. */
export function retryAfterMs(headers: Headers): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null) {
    const v = Number(ms);
    if (Number.isFinite(v) && v > 0 && v <= 60_000) return v;
  }
  const ra = headers.get('retry-after');
  if (ra !== null) {
    let v = Number(ra) * 1000;
    if (!Number.isFinite(v)) v = Date.parse(ra) - Date.now();
    if (Number.isFinite(v) && v > 0 && v <= 60_000) return v;
  }
  return undefined;
}

/** Sleep that an AbortSignal can cut short. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function errorMessageFromBody(json: unknown, text: string): string {
  if (json !== null && typeof json === 'object') {
    const o = json as Record<string, unknown>;
    const d = o.detail ?? o.error ?? o.message;
    if (typeof d === 'string') return d;
    if (d !== undefined) return JSON.stringify(d);
  }
  return text.slice(0, 500);
}

/** Sends requests to one Tinker-compatible server. */
export class HttpClient {
  readonly baseURL: string;
  private readonly apiKey: string | undefined;
  private credential: (() => Promise<string | undefined>) | undefined;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly backoffScale: number;
  private readonly fetchImpl: typeof globalThis.fetch | undefined;
  private readonly defaultHeaders: Record<string, string>;
  readonly warn: (message: string) => void;

  constructor(options: HttpClientOptions) {
    this.baseURL = options.baseURL.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxRetries = options.maxRetries ?? 10;
    this.backoffScale = options.backoffScale ?? 1;
    this.fetchImpl = options.fetch;
    this.defaultHeaders = options.defaultHeaders ?? {};
    this.warn = options.warn ?? ((m) => console.warn(m));
  }

  /**
   * Replace what travels in `X-API-Key` (JWT mode: the short-lived token from `auth/token`, SDK 0.25.0
   * `lib/_jwt_auth.py`); `undefined` goes back to the API key.
   */
  setCredentialProvider(provider: (() => Promise<string | undefined>) | undefined): void {
    this.credential = provider;
  }

  /** The credential header, for requests made outside this client (archive downloads from the same server). */
  async authHeaders(): Promise<Record<string, string>> {
    const key = this.credential ? await this.credential() : this.apiKey;
    return key ? { 'X-API-Key': key } : {};
  }

  /** Replace the API key (and anything that looks like a Tinker key) in `text` with `***`. */
  redact(text: string): string {
    let out = text;
    if (this.apiKey) out = out.split(this.apiKey).join('***');
    return out.replace(/tml-[A-Za-z0-9_-]{4,}/g, 'tml-***');
  }

  /**
   * Headers as SDK 0.25.0 `_base_client.py` builds them: `Accept` and `Content-Type: application/json` by default
   * (on every non-GET request, body or not), the `X-Stainless-*` platform headers, `X-Stainless-Retry-Count` (the
   * HTTP layer's retries of this request: 0 on a new request), `X-Idempotency-Key` on every non-GET request.
   */
  private headersFor(
    options: RequestOptions<unknown>,
    attempt: number,
    idempotencyKey: string | undefined,
    key: string | undefined,
  ) {
    const h: Record<string, string> = {
      Accept: 'application/json',
      'User-Agent': `Cookbook/TypeScript ${SDK_VERSION}`,
      'X-Stainless-Package-Version': SDK_VERSION,
      'X-Stainless-OS': process.platform,
      'X-Stainless-Arch': process.arch,
      'X-Stainless-Runtime': 'node',
      'X-Stainless-Runtime-Version': process.version,
      'X-Stainless-Async': 'async:node',
      'X-Stainless-Retry-Count': String(attempt),
      ...this.defaultHeaders,
      ...options.headers,
    };
    if (key) h['X-API-Key'] = key;
    if (idempotencyKey) h['X-Idempotency-Key'] = idempotencyKey;
    if (options.method !== 'GET') h['Content-Type'] = 'application/json';
    if (options.rawBody) {
      h['Content-Type'] = options.rawBody.contentType;
      if (options.rawBody.contentEncoding) h['Content-Encoding'] = options.rawBody.contentEncoding;
    }
    return h;
  }

  /** A fresh idempotency key (one per request; the HTTP layer's own retries keep it). */
  static idempotencyKey(): string {
    return `stainless-node-retry-${randomUUID()}`;
  }

  /**
   * One attempt, no retries. Network failures become APIConnectionError / APITimeoutError. A non-GET request
   * without a given idempotency key gets a fresh one (a new request).
   */
  async send(options: RequestOptions<unknown>, attempt = 0, idempotencyKey?: string): Promise<RawResponse> {
    const url = new URL(this.baseURL + options.path);
    for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    let body: string | Uint8Array | undefined;
    if (options.rawBody) body = options.rawBody.data;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    try {
      const res = await ky(url, {
        method: options.method,
        headers: this.headersFor(
          options,
          attempt,
          idempotencyKey ?? (options.method === 'GET' ? undefined : HttpClient.idempotencyKey()),
          // Only JWT mode waits for its credential: a plain key goes out in the same tick.
          options.rawCredential || !this.credential ? this.apiKey : await this.credential(),
        ),
        body,
        timeout: options.timeoutMs ?? this.timeoutMs,
        retry: 0,
        throwHttpErrors: false,
        redirect: options.redirect ?? 'follow',
        ...(this.fetchImpl ? { fetch: this.fetchImpl } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const buf = new Uint8Array(await res.arrayBuffer());
      if ((res.headers.get('content-type') ?? '').includes('application/x-protobuf')) {
        return {
          status: res.status,
          headers: res.headers,
          text: '',
          json: undefined,
          bytes: buf,
          requestId: res.headers.get('x-request-id') ?? undefined,
        };
      }
      const text = new TextDecoder().decode(buf);
      let json: unknown;
      if (text.length > 0) {
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
      }
      return {
        status: res.status,
        headers: res.headers,
        text,
        json,
        requestId: res.headers.get('x-request-id') ?? undefined,
      };
    } catch (err) {
      if (options.signal?.aborted) throw options.signal.reason;
      const where = `${options.method} ${options.path}`;
      if (err instanceof TimeoutError) {
        throw new APITimeoutError(`${where} timed out after ${options.timeoutMs ?? this.timeoutMs} ms`, { cause: err });
      }
      const msg =
        err instanceof Error
          ? `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ''}`
          : String(err);
      throw new APIConnectionError(this.redact(`${where} failed to connect to ${this.baseURL}: ${msg}`), {
        cause: err,
      });
    }
  }

  /** The typed error for a non-2xx response (with what to do when the server lost the run's state). */
  errorFor(options: RequestOptions<unknown>, res: RawResponse): APIError {
    const detail = errorMessageFromBody(res.json, res.text);
    const hint = lostServerState(res.status, detail) ? `; ${RESUME_HINT}` : '';
    const message = this.redact(
      `${options.method} ${options.path} → ${res.status}${detail ? `: ${detail}` : ''}${hint}`,
    );
    const o: { requestId?: string; body?: unknown } = { body: res.json ?? res.text };
    if (res.requestId !== undefined) o.requestId = res.requestId;
    return errorForStatus(res.status, message, o);
  }

  /**
   * Send with retries on 408/409/429/5xx, connection errors, timeouts, and the empty-body 400 some proxies
   * inject. Non-GET requests carry one `X-Idempotency-Key` across all their attempts.
   */
  async request<T>(options: RequestOptions<T>): Promise<{ data: T; raw: RawResponse }> {
    const maxRetries = options.maxRetries ?? this.maxRetries;
    const idempotencyKey = options.method === 'GET' ? undefined : HttpClient.idempotencyKey();
    let warned = false;
    const beforeRetry = (attempt: number, waitMs: number, error: APIError, serious: boolean) => {
      const info = { attempt: attempt + 2, attempts: maxRetries + 1, waitMs: waitMs * this.backoffScale, error };
      if (options.onRetry) options.onRetry(info);
      else if (serious && !warned) {
        warned = true;
        this.warn(
          `cookbook: ${options.method} ${options.path} failed (${error.message}); retrying up to ${maxRetries} times`,
        );
      }
    };
    for (let attempt = 0; ; attempt++) {
      let res: RawResponse | undefined;
      let failure: APIError;
      try {
        res = await this.send(options as RequestOptions<unknown>, attempt, idempotencyKey);
      } catch (err) {
        if (!(err instanceof APIConnectionError)) throw err;
        failure = err;
        if (attempt >= maxRetries) throw failure;
        const wait = retryDelayMs(attempt);
        beforeRetry(attempt, wait, failure, true);
        await sleep(wait * this.backoffScale, options.signal);
        continue;
      }
      const ok = res.status >= 200 && res.status < 300;
      const redirect = options.redirect === 'manual' && res.status >= 300 && res.status < 400;
      if (ok || redirect) {
        const data = options.schema ? this.parse(options, res) : (res.json as T);
        return { data, raw: res };
      }
      failure = this.errorFor(options as RequestOptions<unknown>, res);
      const emptyBadRequest = res.status === 400 && res.text.trim().length === 0;
      const shouldRetryHeader = res.headers.get('x-should-retry');
      let retryable = RETRYABLE_STATUS.has(res.status) || res.status >= 500 || emptyBadRequest;
      if (shouldRetryHeader === 'true') retryable = true;
      if (shouldRetryHeader === 'false') retryable = false;
      if (!retryable || attempt >= Math.min(maxRetries, emptyBadRequest ? 3 : maxRetries)) throw failure;
      const wait = retryAfterMs(res.headers) ?? retryDelayMs(attempt);
      beforeRetry(attempt, wait, failure, res.status >= 500);
      await sleep(wait * this.backoffScale, options.signal);
    }
  }

  /** Validate a JSON body with the request's schema, with an error that names the route and field. */
  parse<T>(options: RequestOptions<T>, res: RawResponse): T {
    const schema = options.schema;
    if (!schema) return res.json as T;
    const r = schema.safeParse(res.json);
    if (r.success) return r.data;
    const issue = r.error.issues[0];
    const field = issue ? issue.path.join('.') : '';
    throw errorForStatus(
      res.status,
      `${options.method} ${options.path}: unexpected response${field ? ` at "${field}"` : ''}: ${issue?.message ?? ''}`,
      { body: res.json },
    );
  }
}
