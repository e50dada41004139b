/**
 * SamplingClient (upstream SDK `lib/public_interfaces/sampling_client.py` with its RetryHandler):
 * `asample` futures, sampling seq ids without turn-taking, the 429 backpressure pause, and resubmission
 * of a sample whose future expired.
 */
import { ModelInput } from '@cookbook/core';
import { SampleResponseSchema, SamplerInfoSchema, UntypedAPIFutureSchema } from '@cookbook/tinker-wire';
import { APIFuture, type PollOptions } from './api-future.js';
import { APIConnectionError, FutureExpiredError, TinkerError } from './errors.js';
import { sleep } from './http.js';
import type { ClientHolder } from './internal/holder.js';
import { type SampleResponse, type SamplingParams, sampleResponseFromWire, samplingParamsToWire } from './types.js';

/** Arguments of {@link SamplingClient.sample}. */
export interface SampleArgs {
  prompt: ModelInput;
  /** Default 1. */
  numSamples?: number;
  samplingParams?: SamplingParams;
  /** Also return the logprob of every prompt token (the first is null). */
  includePromptLogprobs?: boolean;
  /** Also return the top-k logprobs at every prompt position. Default 0. */
  topkPromptLogprobs?: number;
  /**
   * Abandon the sample: once it aborts, the call rejects with the signal's reason (an `AbortError` by default),
   * polling stops, and a sample already submitted is cancelled on the service with `cancel_future` (sent once,
   * not awaited; a service without that route ignores it).
   */
  signal?: AbortSignal;
  /**
   * Gets the tokens as they are sampled, before the result: per sequence (in order), the tokens and logprobs picked
   * since the previous call. Only a service that says `sample_partial_results` in `client/config` (the embedded
   * one) reports them; elsewhere (the hosted API has no streaming) it is never called and the result holds every
   * token. A sample that streamed something is not submitted again after its future expired (410).
   */
  onTokens?: (sequences: { tokens: number[]; logprobs: number[] }[]) => void;
}

/** Whole-sample retries after the attempt's future expired (410). */
const MAX_SAMPLE_RETRIES = 10;

/** How long an attempt resubmits after retryable failures (`execute_with_retries`: 5 minutes). */
const RESUBMIT_WINDOW_MS = 300_000;

/** Samples from a base model or a saved checkpoint through one sampling session. */
export class SamplingClient {
  readonly samplingSessionId: string;
  private readonly holder: ClientHolder;
  private seqId = 0;

  constructor(holder: ClientHolder, samplingSessionId: string) {
    this.holder = holder;
    this.samplingSessionId = samplingSessionId;
  }

  /** Sample `numSamples` continuations of `prompt`. Returns at once; the future resolves with the samples. */
  sample(args: SampleArgs): APIFuture<SampleResponse> {
    return new APIFuture(this.runSample(args));
  }

  /** Logprob of each prompt token under the model (the first entry is null). */
  async computeLogprobs(prompt: ModelInput): Promise<(number | null)[]> {
    const res = await this.sample({
      prompt,
      numSamples: 1,
      samplingParams: { maxTokens: 1 },
      includePromptLogprobs: true,
    });
    if (res.promptLogprobs === undefined) throw new TinkerError('the server returned no prompt_logprobs');
    return res.promptLogprobs;
  }

  /** The base model and checkpoint behind this sampler (`GET /samplers/{id}`). */
  async getInfo(): Promise<{ samplerId: string; baseModel: string; modelPath?: string }> {
    const { data } = await this.holder.http.request({
      method: 'GET',
      path: `/api/v1/samplers/${encodeURIComponent(this.samplingSessionId)}`,
      schema: SamplerInfoSchema,
    });
    return data.model_path === undefined
      ? { samplerId: data.sampler_id, baseModel: data.base_model }
      : { samplerId: data.sampler_id, baseModel: data.base_model, modelPath: data.model_path };
  }

  /**
   * One sample as SDK 0.25.0 `sampling_client.py` and `lib/retry_handler.py` run it. An attempt takes one seq id and
   * keeps it for every resubmission of that attempt: after a 429 / 402 (backpressure: every sample dispatch of the
   * session pauses 1 s, or 5 s for a prompt over 128 KiB) and after a 408 / 409 / 5xx / connection failure (backoff
   * min(2^k, 30) s, as `execute_with_retries`). Each resubmission is a new request: a fresh `X-Idempotency-Key` and
   * `X-Stainless-Retry-Count: 0`. A whole new attempt, with a new seq id, follows only a failure of the attempt
   * itself (the future expired, 410), and not at all when the server sets `sample_no_retries`. In-flight samples of
   * one client are capped at the server's `sample_max_concurrent_requests`.
   */
  private async runSample(args: SampleArgs): Promise<SampleResponse> {
    const signal = args.signal;
    signal?.throwIfAborted();
    await this.acquireSlot(signal);
    try {
      const prompt = args.prompt instanceof ModelInput ? args.prompt : ModelInput.fromJSON(args.prompt);
      const retries = this.holder.flags.sample_no_retries ? 0 : MAX_SAMPLE_RETRIES;
      let streamed = false;
      const onTokens = args.onTokens;
      const stream =
        onTokens !== undefined && this.holder.flags.sample_partial_results
          ? (sequences: { tokens: number[]; logprobs: number[] }[]) => {
              streamed = true;
              onTokens(sequences);
            }
          : undefined;
      for (let attempt = 0; ; attempt++) {
        try {
          return await this.sampleAttempt(args, prompt, this.seqId++, stream);
        } catch (err) {
          if (err instanceof FutureExpiredError && attempt < retries && signal?.aborted !== true && !streamed) continue;
          throw err;
        }
      }
    } finally {
      this.releaseSlot();
    }
  }

  private async sampleAttempt(
    args: SampleArgs,
    prompt: ModelInput,
    seqId: number,
    onPartial: PollOptions['onPartial'],
  ): Promise<SampleResponse> {
    const http = this.holder.http;
    const promptBytes = prompt.length * 10;
    const req = { method: 'POST' as const, path: '/api/v1/asample' };
    const body = {
      num_samples: args.numSamples ?? 1,
      prompt: prompt.toJSON(),
      sampling_params: samplingParamsToWire(args.samplingParams ?? {}),
      prompt_logprobs: args.includePromptLogprobs ?? false,
      topk_prompt_logprobs: args.topkPromptLogprobs ?? 0,
      sampling_session_id: this.samplingSessionId,
      seq_id: seqId,
      type: 'sample',
      ...(onPartial ? { stream: true } : {}),
    };
    const started = Date.now();
    let backoffK = 0;
    const backoff = async (what: () => Error) => {
      if (Date.now() - started > RESUBMIT_WINDOW_MS * http.backoffScale) throw what();
      await sleep(Math.min(2 ** backoffK++, 30) * 1000 * http.backoffScale);
    };
    const signal = args.signal;
    for (;;) {
      await this.holder.waitForSamplingPause(signal);
      const start = performance.now();
      let res: Awaited<ReturnType<typeof http.send>>;
      try {
        // The submission is not cut off by the signal (the service may already hold its future): an abort rejects at
        // once, and the future the submission returns is cancelled then.
        const sent = http.send({ ...req, body, headers: { 'X-Tinker-Sampling-Backpressure': '1' } });
        res = await this.unlessAborted(sent, signal, (r) => {
          const id = UntypedAPIFutureSchema.safeParse(r.json);
          if (r.status >= 200 && r.status < 300 && id.success) this.cancelOnService(id.data.request_id);
        });
      } catch (err) {
        if (signal?.aborted || !(err instanceof APIConnectionError)) throw err;
        await backoff(() => err);
        continue;
      }
      if (res.status === 429 || res.status === 402) {
        // Backpressure: hold every sample dispatch of the session, then resubmit with the same seq id.
        this.holder.pauseSampling(promptBytes <= 128 * 1024 ? 1000 : 5000);
        continue;
      }
      if (res.status === 408 || res.status === 409 || res.status >= 500) {
        await backoff(() => http.errorFor(req, res));
        continue;
      }
      if (res.status < 200 || res.status >= 300) throw http.errorFor(req, res);
      const future = http.parse({ ...req, schema: UntypedAPIFutureSchema }, res);
      const cancel = () => this.cancelOnService(future.request_id);
      if (signal?.aborted === true) {
        cancel();
        throw signal.reason;
      }
      signal?.addEventListener('abort', cancel, { once: true });
      try {
        const wire = await this.holder.poll(
          { requestId: future.request_id, submitSeconds: (performance.now() - start) / 1000 },
          'Sample',
          SampleResponseSchema,
          signal,
          onPartial,
        );
        return sampleResponseFromWire(wire);
      } finally {
        signal?.removeEventListener('abort', cancel);
      }
    }
  }

  /**
   * `work`, or a rejection with the signal's reason as soon as it aborts; `late` gets what `work` gives after an
   * abort.
   */
  private unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, late: (value: T) => void): Promise<T> {
    if (signal === undefined) return work;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        reject(signal.reason);
        work.then(late, () => undefined);
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      work.then(
        (v) => {
          signal.removeEventListener('abort', onAbort);
          resolve(v);
        },
        (err: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(err);
        },
      );
    });
  }

  /** Ask the service to stop an abandoned sample (`cancel_future`): once, not awaited, failures ignored. */
  private cancelOnService(requestId: string): void {
    this.holder.http
      .send({ method: 'POST', path: '/api/v1/cancel_future', body: { request_id: requestId } })
      .catch(() => undefined);
  }

  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  private async acquireSlot(signal: AbortSignal | undefined): Promise<void> {
    if (this.inFlight < this.holder.flags.sample_max_concurrent_requests) {
      this.inFlight++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const take = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(take);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(signal?.reason);
      };
      this.waiting.push(take);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaseSlot(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.inFlight--;
  }
}
