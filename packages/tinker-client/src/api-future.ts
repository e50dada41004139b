/**
 * Futures (upstream SDK `lib/api_future_impl.py`): a mutating call returns `{request_id}` at once and the
 * client long-polls `retrieve_future`, reacting to each reply as tinker-api.md §2.5 says.
 */

import {
  CompleteMetadataResponseSchema,
  type FutureRequestType,
  PROTO_CONTENT_TYPE,
  RequestFailedResponseSchema,
  TryAgainResponseSchema,
} from '@cookbook/tinker-wire';
import type { z } from 'zod';
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  FutureExpiredError,
  FutureTimeoutError,
  RequestFailedError,
} from './errors.js';
import { type HttpClient, sleep } from './http.js';

/** Options of {@link APIFuture.result}. */
export interface ResultOptions {
  /** Give up after this many milliseconds (the operation itself keeps running on the server). */
  timeout?: number;
  /** Stop waiting when aborted. */
  signal?: AbortSignal;
}

/**
 * The eventual result of a server operation. Awaiting it (it is `PromiseLike`) or calling {@link result}
 * returns the value; the polling runs in the background from the moment the request was submitted.
 */
export class APIFuture<T> implements PromiseLike<T> {
  private readonly promise: Promise<T>;

  constructor(promise: Promise<T>) {
    this.promise = promise;
    // A future nobody awaits must not crash the process with an unhandled rejection.
    promise.catch(() => undefined);
  }

  /** A future that is already resolved. */
  static resolved<T>(value: T): APIFuture<T> {
    return new APIFuture(Promise.resolve(value));
  }

  // biome-ignore lint/suspicious/noThenProperty: futures are PromiseLike by design.
  then<R1 = T, R2 = never>(
    onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.promise.then(onfulfilled, onrejected);
  }

  /** Wait for the value, at most `timeout` ms, or until `signal` aborts. */
  result(options: ResultOptions = {}): Promise<T> {
    const { timeout, signal } = options;
    if (timeout === undefined && signal === undefined) return this.promise;
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const cleanup = () => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        cleanup();
        reject(signal?.reason ?? new FutureTimeoutError('aborted while waiting for a future'));
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeout !== undefined) {
        timer = setTimeout(() => {
          cleanup();
          reject(new FutureTimeoutError(`the future did not complete within ${timeout} ms`));
        }, timeout);
      }
      this.promise.then(
        (v) => {
          cleanup();
          resolve(v);
        },
        (e: unknown) => {
          cleanup();
          reject(e);
        },
      );
    });
  }
}

/** Settings of the polling loop. */
export interface PollOptions {
  http: HttpClient;
  requestType: FutureRequestType;
  /** Client-side timeout of one long-poll, ms. Default 45 000. */
  pollTimeoutMs?: number;
  /** Longest total billing pause (HTTP 402), ms. Default one hour. */
  billingMaxPauseMs?: number;
  /** Seconds it took to submit the request (sent on the first poll). */
  submitSeconds?: number;
  signal?: AbortSignal;
  /**
   * Ask for a protobuf result (`Accept: application/x-protobuf`, SDK 0.25.0 `lib/api_future_impl.py`) and decode
   * it to the JSON shape the schema reads. Set for SampleResponse and ForwardBackwardOutput on servers that speak
   * the current protocol; a JSON answer is still read (the service decides).
   */
  decodeProto?: (bytes: Uint8Array) => unknown;
  /**
   * A streamed sample's poller (submitted with `stream`, to a service that says `sample_partial_results`): polls
   * carry `partial_from` (the tokens per sequence already handed over) and each pending answer's new tokens come
   * here, per sequence, before the result.
   */
  onPartial?: (sequences: { tokens: number[]; logprobs: number[] }[]) => void;
}

const QUEUE_LOG_INTERVAL_MS = 60_000;
const MAX_CONNECTION_FAILURES = 8;

/**
 * Poll `retrieve_future` for `requestId` until it yields a result, then validate it with `schema`. The first poll
 * allows a metadata-only answer (`allow_metadata_only: true`); after one, polls ask for the payload (SDK 0.25.0).
 * try_again / 408 / 5xx / a timed-out poll: poll again at once. 429 and connection errors: back off
 * min(2^k, 30) s. 400: up to 3 retries. 402: billing pause of 5 s, up to `billingMaxPauseMs`.
 * 410: FutureExpiredError. `{error, category}`: RequestFailedError. Any other status: its typed error.
 */
export async function pollFuture<T>(requestId: string, schema: z.ZodType<T>, options: PollOptions): Promise<T> {
  const { http } = options;
  const scale = http.backoffScale;
  let backoffK = 0;
  let connectionFailures = 0;
  let badRequests = 0;
  let billingPausedMs = 0;
  let lastQueueLog = Number.NEGATIVE_INFINITY;
  let allowMetadataOnly = true;
  /** Tokens per sequence handed to `onPartial` so far. */
  let partialFrom = 0;
  const base = {
    method: 'POST' as const,
    path: '/api/v1/retrieve_future',
    timeoutMs: options.pollTimeoutMs ?? 45_000,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  for (let iteration = 0; ; iteration++) {
    const req = {
      ...base,
      body: {
        request_id: requestId,
        allow_metadata_only: allowMetadataOnly,
        ...(options.onPartial ? { partial_from: partialFrom } : {}),
      },
    };
    const headers: Record<string, string> = {
      'X-Tinker-Request-Iteration': String(iteration),
      'X-Tinker-Request-Type': options.requestType,
    };
    if (options.decodeProto) headers.Accept = PROTO_CONTENT_TYPE;
    if (iteration === 0 && options.submitSeconds !== undefined) {
      headers['X-Tinker-Create-Promise-Roundtrip-Time'] = String(options.submitSeconds);
    }
    let res: Awaited<ReturnType<HttpClient['send']>>;
    try {
      res = await http.send({ ...req, headers });
    } catch (err) {
      if (err instanceof APITimeoutError) continue;
      if (err instanceof APIConnectionError) {
        // A server that stays unreachable for ~2 minutes of backoff is gone: surface the error.
        if (++connectionFailures > MAX_CONNECTION_FAILURES) throw err;
        await sleep(Math.min(2 ** backoffK, 30) * 1000 * scale, options.signal);
        backoffK++;
        continue;
      }
      throw err;
    }
    connectionFailures = 0;
    if (res.status === 200 && res.bytes !== undefined) {
      if (!options.decodeProto) {
        throw new APIError(`${options.requestType} request ${requestId}: a protobuf result was not asked for`, {
          status: 200,
        });
      }
      const json = options.decodeProto(res.bytes);
      return http.parse({ ...req, schema }, { ...res, json });
    }
    if (res.status === 200) {
      const tryAgain = TryAgainResponseSchema.safeParse(res.json);
      if (tryAgain.success) {
        const partial = tryAgain.data.partial;
        if (options.onPartial && partial !== undefined && partial.from === partialFrom) {
          const fresh = partial.sequences.map((q) => ({ tokens: [...q.tokens], logprobs: [...q.logprobs] }));
          partialFrom += Math.max(0, ...fresh.map((q) => q.tokens.length));
          options.onPartial(fresh);
        }
        const state = tryAgain.data.queue_state;
        if (state !== undefined && state !== 'active' && Date.now() - lastQueueLog > QUEUE_LOG_INTERVAL_MS) {
          lastQueueLog = Date.now();
          http.warn(
            `request ${requestId} is waiting: queue ${state}${tryAgain.data.queue_state_reason ? ` (${tryAgain.data.queue_state_reason})` : ''}`,
          );
        }
        continue;
      }
      if (CompleteMetadataResponseSchema.safeParse(res.json).success) {
        allowMetadataOnly = false;
        continue;
      }
      const failed = RequestFailedResponseSchema.safeParse(res.json);
      if (failed.success && typeof (res.json as Record<string, unknown>).error === 'string') {
        throw new RequestFailedError(
          `${options.requestType} request ${requestId} failed (${failed.data.category} error): ${http.redact(failed.data.error)}`,
          failed.data.category,
          requestId,
        );
      }
      return http.parse({ ...req, schema }, res);
    }
    if (res.status === 408) continue;
    if (res.status >= 500) continue;
    if (res.status === 410) {
      throw new FutureExpiredError(
        `${options.requestType} request ${requestId} expired on the server (410); submit it again`,
        { status: 410, body: res.json },
      );
    }
    if (res.status === 429) {
      await sleep(Math.min(2 ** backoffK, 30) * 1000 * scale, options.signal);
      backoffK++;
      continue;
    }
    if (res.status === 400 && badRequests < 3) {
      badRequests++;
      continue;
    }
    if (res.status === 402) {
      const pause = 5000 * scale;
      if (billingPausedMs + pause <= (options.billingMaxPauseMs ?? 3_600_000) * scale) {
        if (billingPausedMs === 0)
          http.warn(`billing pause on request ${requestId}: waiting for the account to recover`);
        billingPausedMs += pause;
        await sleep(pause, options.signal);
        continue;
      }
    }
    throw http.errorFor(req, res);
  }
}
