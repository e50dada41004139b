/**
 * State shared by every client created from one ServiceClient: the HTTP layer, the session, the protocol spoken
 * and the server's feature flags (`client/config`, and `client/dynamic_config` as last refreshed), the per-session
 * counters, and the sampling backpressure pause.
 */

import {
  type ClientConfigResponse,
  type DynamicConfigResponseSchema,
  type FutureRequestType,
  UntypedAPIFutureSchema,
} from '@cookbook/tinker-wire';
import type { z } from 'zod';
import { type PollOptions, pollFuture } from '../api-future.js';
import { type HttpClient, sleep } from '../http.js';
import type { ForwardBackwardEncoder } from '../types.js';
import { decodeForwardBackwardResult, decodeSampleResult, type ProtocolMode } from './protocol.js';

/** A submitted request: its id and how long the submission took. */
export interface Submitted {
  requestId: string;
  submitSeconds: number;
}

export class ClientHolder {
  readonly http: HttpClient;
  readonly sessionId: string;
  readonly flags: ClientConfigResponse;
  /** `proto` when the server answered `client/config` (SDK 0.25.0), else `json` (SDK 0.16.1). */
  readonly mode: ProtocolMode;
  /** The last `client/dynamic_config` answer (defaults when the server has none). */
  dynamicConfig: z.infer<typeof DynamicConfigResponseSchema> = { refresh_interval_sec: 300 };
  readonly pollTimeoutMs: number;
  /** Sends forward_backward bodies in a binary encoding (protobuf) instead of JSON, when set. */
  forwardBackwardEncoder: ForwardBackwardEncoder | undefined;
  private samplingSessionSeqId = 0;
  private modelSeqId = 0;
  private samplePauseUntil = 0;

  constructor(
    http: HttpClient,
    sessionId: string,
    flags: ClientConfigResponse,
    pollTimeoutMs: number,
    mode: ProtocolMode = 'proto',
  ) {
    this.http = http;
    this.sessionId = sessionId;
    this.flags = flags;
    this.pollTimeoutMs = pollTimeoutMs;
    this.mode = mode;
  }

  nextSamplingSessionSeqId(): number {
    return this.samplingSessionSeqId++;
  }

  nextModelSeqId(): number {
    return this.modelSeqId++;
  }

  /** Pause every sample dispatch of this session for `ms` (backpressure after a 429/402). */
  pauseSampling(ms: number): void {
    this.samplePauseUntil = Math.max(this.samplePauseUntil, Date.now() + ms * this.http.backoffScale);
  }

  async waitForSamplingPause(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const wait = this.samplePauseUntil - Date.now();
      if (wait <= 0) return;
      await sleep(wait, signal);
    }
  }

  /** POST a future-returning request (with the HTTP layer's retries) and return its request id. */
  async submit(
    path: string,
    body: unknown,
    options: {
      maxRetries?: number;
      headers?: Record<string, string>;
      rawBody?: { data: Uint8Array; contentType: string; contentEncoding?: string };
    } = {},
  ): Promise<Submitted> {
    const start = performance.now();
    const { data } = await this.http.request({
      method: 'POST',
      path,
      ...(options.rawBody ? { rawBody: options.rawBody } : { body }),
      schema: UntypedAPIFutureSchema,
      ...(options.maxRetries !== undefined ? { maxRetries: options.maxRetries } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
    });
    return { requestId: data.request_id, submitSeconds: (performance.now() - start) / 1000 };
  }

  /**
   * Long-poll the result of a submitted request. In `proto` mode Sample / Forward / ForwardBackward results are
   * asked for as protobuf (SDK 0.25.0 `lib/api_future_impl.py`); everything else is JSON.
   */
  poll<T>(
    submitted: Submitted,
    requestType: FutureRequestType,
    schema: z.ZodType<T>,
    signal?: AbortSignal,
    onPartial?: PollOptions['onPartial'],
  ): Promise<T> {
    const decodeProto =
      this.mode !== 'proto'
        ? undefined
        : requestType === 'Sample'
          ? decodeSampleResult
          : requestType === 'Forward' || requestType === 'ForwardBackward'
            ? decodeForwardBackwardResult
            : undefined;
    return pollFuture(submitted.requestId, schema, {
      http: this.http,
      requestType,
      pollTimeoutMs: this.pollTimeoutMs,
      submitSeconds: submitted.submitSeconds,
      billingMaxPauseMs: this.flags.billing_exception_max_pause_duration_sec * 1000,
      ...(decodeProto ? { decodeProto } : {}),
      ...(signal ? { signal } : {}),
      ...(onPartial ? { onPartial } : {}),
    });
  }
}
