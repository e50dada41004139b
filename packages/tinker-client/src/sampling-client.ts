/**
 * SamplingClient (upstream SDK `lib/public_interfaces/sampling_client.py` with its RetryHandler):
 * `asample` futures, sampling seq ids without turn-taking, the 429 backpressure pause, and resubmission
 * of a sample whose future expired.
 */
import { ModelInput } from '@cookbook/core';
import { SampleResponseSchema, SamplerInfoSchema, UntypedAPIFutureSchema } from '@cookbook/tinker-wire';
import { APIFuture } from './api-future.js';
import { APIConnectionError, FutureExpiredError, TinkerError } from './errors.js';
import { retryDelayMs, sleep } from './http.js';
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
}

const MAX_SAMPLE_RETRIES = 10;

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

  private async runSample(args: SampleArgs): Promise<SampleResponse> {
    const http = this.holder.http;
    const prompt = args.prompt instanceof ModelInput ? args.prompt : ModelInput.fromJSON(args.prompt);
    const promptBytes = prompt.length * 10;
    const req = { method: 'POST' as const, path: '/api/v1/asample' };
    let failures = 0;
    for (;;) {
      await this.holder.waitForSamplingPause();
      const body = {
        num_samples: args.numSamples ?? 1,
        prompt: prompt.toJSON(),
        sampling_params: samplingParamsToWire(args.samplingParams ?? {}),
        ...(args.includePromptLogprobs ? { prompt_logprobs: true } : {}),
        topk_prompt_logprobs: args.topkPromptLogprobs ?? 0,
        sampling_session_id: this.samplingSessionId,
        seq_id: this.seqId++,
        type: 'sample',
      };
      const start = performance.now();
      let res: Awaited<ReturnType<typeof http.send>>;
      try {
        res = await http.send({ ...req, body, headers: { 'X-Tinker-Sampling-Backpressure': '1' } }, failures);
      } catch (err) {
        if (!(err instanceof APIConnectionError) || failures >= MAX_SAMPLE_RETRIES) throw err;
        await sleep(retryDelayMs(failures++) * http.backoffScale);
        continue;
      }
      if (res.status === 429 || res.status === 402) {
        // Backpressure: hold every sample dispatch of the session, then resubmit.
        this.holder.pauseSampling(promptBytes <= 128 * 1024 ? 1000 : 5000);
        continue;
      }
      if (res.status === 408 || res.status === 409 || res.status >= 500) {
        if (failures >= MAX_SAMPLE_RETRIES) throw http.errorFor(req, res);
        await sleep(retryDelayMs(failures++) * http.backoffScale);
        continue;
      }
      if (res.status < 200 || res.status >= 300) throw http.errorFor(req, res);
      const future = http.parse({ ...req, schema: UntypedAPIFutureSchema }, res);
      try {
        const wire = await this.holder.poll(
          { requestId: future.request_id, submitSeconds: (performance.now() - start) / 1000 },
          'Sample',
          SampleResponseSchema,
        );
        return sampleResponseFromWire(wire);
      } catch (err) {
        // An expired sample is resubmitted whole, with a new seq id.
        if (err instanceof FutureExpiredError && failures < MAX_SAMPLE_RETRIES) {
          failures++;
          continue;
        }
        throw err;
      }
    }
  }
}
