/**
 * State shared by every client created from one ServiceClient: the HTTP layer, the session, the server's
 * feature flags, the per-session counters, and the sampling backpressure pause.
 */

import { type ClientConfigResponse, type FutureRequestType, UntypedAPIFutureSchema } from '@cookbook/tinker-wire';
import type { z } from 'zod';
import { pollFuture } from '../api-future.js';
import { type HttpClient, sleep } from '../http.js';
import type { ForwardBackwardEncoder } from '../types.js';

/** A submitted request: its id and how long the submission took. */
export interface Submitted {
  requestId: string;
  submitSeconds: number;
}

export class ClientHolder {
  readonly http: HttpClient;
  readonly sessionId: string;
  readonly flags: ClientConfigResponse;
  readonly pollTimeoutMs: number;
  /** Sends forward_backward bodies in a binary encoding (protobuf) instead of JSON, when set. */
  forwardBackwardEncoder: ForwardBackwardEncoder | undefined;
  private samplingSessionSeqId = 0;
  private modelSeqId = 0;
  private samplePauseUntil = 0;

  constructor(http: HttpClient, sessionId: string, flags: ClientConfigResponse, pollTimeoutMs: number) {
    this.http = http;
    this.sessionId = sessionId;
    this.flags = flags;
    this.pollTimeoutMs = pollTimeoutMs;
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

  async waitForSamplingPause(): Promise<void> {
    for (;;) {
      const wait = this.samplePauseUntil - Date.now();
      if (wait <= 0) return;
      await sleep(wait);
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

  /** Long-poll the result of a submitted request. */
  poll<T>(submitted: Submitted, requestType: FutureRequestType, schema: z.ZodType<T>): Promise<T> {
    return pollFuture(submitted.requestId, schema, {
      http: this.http,
      requestType,
      pollTimeoutMs: this.pollTimeoutMs,
      submitSeconds: submitted.submitSeconds,
    });
  }
}
