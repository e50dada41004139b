/**
 * Sampling routes: create_sampling_session, asample (sampled in the sampler's worker thread, results in a future;
 * num_samples, max_tokens, topk_prompt_logprobs and the sampler's working memory bounded first) and retrieve_future
 * (long-poll of any future).
 */

import type { SampleOptions } from '@cookbook/engine';
import {
  CreateSamplingSessionRequestSchema,
  FutureRetrieveRequestSchema,
  SampleRequestSchema,
  type WireSampleRequest,
} from '@cookbook/tinker-wire';
import type { BaseInfo } from '../engine-protocol.js';
import {
  futureReply,
  HttpError,
  nonTextChunkError,
  ok,
  parseBody,
  type ServiceReply,
  type ServiceRequest,
  userError,
} from '../http-errors.js';
import { checkLimit, checkStops, countChunks, field, overLimit, sampleBytes } from '../limits.js';
import { bodyHash } from '../model-queue.js';
import type { SamplerState } from '../sampler-pool.js';
import type { ServiceState } from '../service-state.js';

export async function createSamplingSession(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  const b = parseBody(CreateSamplingSessionRequestSchema, req.body, 'create_sampling_session');
  state.session(b.session_id);
  if ((b.base_model === undefined) === (b.model_path === undefined)) {
    throw new HttpError(400, 'create_sampling_session needs exactly one of base_model or model_path');
  }
  const id = `${b.session_id}:sample:${b.sampling_session_seq_id}`;
  const existing = state.samplers.get(id);
  if (existing) {
    // A replay (same arguments) gets the same sampler; other arguments are a conflict, as for model_seq_id.
    if (existing.source !== undefined && existing.createdFor === samplerArgs(b)) {
      return ok({ type: 'create_sampling_session', sampling_session_id: id });
    }
    throw new HttpError(
      409,
      `sampling_session_seq_id ${b.sampling_session_seq_id} was already used in session ${b.session_id} for ${existing.createdFor ?? `a snapshot of a training model's weights`}; use a new sampling_session_seq_id`,
    );
  }
  const sampler = await state.samplers.fromFiles(id, b.base_model, b.model_path, b.session_id);
  sampler.createdFor = samplerArgs(b);
  return ok({ type: 'create_sampling_session', sampling_session_id: id });
}

/** What a create_sampling_session asked for, to tell a replay from a reuse of its seq id. */
function samplerArgs(b: { base_model?: string | undefined; model_path?: string | undefined }): string {
  return b.model_path !== undefined ? `model_path "${b.model_path}"` : `base_model "${b.base_model}"`;
}

/** The sampler's working memory for this call, refused past the limit (a 400 when known at submission). */
function checkMemory(state: ServiceState, s: SamplerState, info: BaseInfo, slots: number, len: number): void {
  const bytes = sampleBytes(info, Math.max(slots, s.cacheSlots), Math.max(len, s.cacheLen));
  if (bytes > state.limits.maxSampleBytes) {
    throw overLimit(
      `num_samples × (prompt + max_tokens) = ${slots} × ${len}: the sampler's working memory`,
      `${bytes} bytes`,
      `${state.limits.maxSampleBytes} bytes`,
      'maxSampleBytes',
    );
  }
}

export async function asample(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  countChunks(state.limits, field(field(req.body, 'prompt'), 'chunks'), 'prompt');
  const b: WireSampleRequest = parseBody(SampleRequestSchema, req.body, 'asample');
  const limits = state.limits;
  checkLimit(limits, 'maxNumSamples', 'num_samples', b.num_samples);
  checkLimit(limits, 'maxTopkPromptLogprobs', 'topk_prompt_logprobs', b.topk_prompt_logprobs);
  const p = b.sampling_params;
  if (p.max_tokens !== undefined) checkLimit(limits, 'maxTokens', 'sampling_params.max_tokens', p.max_tokens);
  checkStops(limits, p.stop);
  const prompt: number[] = [];
  for (const [c, chunk] of b.prompt.chunks.entries()) {
    if (chunk.type !== 'encoded_text') {
      const model =
        b.sampling_session_id !== undefined
          ? state.samplers.require(b.sampling_session_id).baseModel
          : (b.base_model ?? b.model_path ?? 'the requested model');
      throw nonTextChunkError(`prompt.chunks[${c}]`, chunk.type, model);
    }
    for (const t of chunk.tokens) prompt.push(t);
  }
  if (prompt.length === 0) throw new HttpError(400, 'prompt is empty');
  const sampler =
    b.sampling_session_id !== undefined
      ? state.samplers.require(b.sampling_session_id)
      : await state.samplers.direct(b.base_model, b.model_path);
  const hash = bodyHash(b);
  if (b.seq_id !== undefined) {
    const seen = sampler.sampleSeen.get(b.seq_id);
    if (seen) {
      if (seen.hash !== hash)
        throw new HttpError(409, `seq_id ${b.seq_id} was already used by a different sample request`);
      return futureReply(seen.requestId);
    }
  }
  const maxTokensFor = (info: BaseInfo) =>
    Math.max(0, Math.min(p.max_tokens ?? limits.defaultMaxTokens, info.maxContextLength - prompt.length));
  if (sampler.info)
    checkMemory(state, sampler, sampler.info, b.num_samples, prompt.length + maxTokensFor(sampler.info) + 1);
  state.sampleRequests.checkRoom(sampler.sessionId);
  // The future's id, known before the work's first await returns.
  let requestId = '';
  const notCancelled = () => {
    const why = state.sampleRequests.cancelledWhy(requestId);
    if (why !== undefined) throw userError(why);
  };
  const work = (async () => {
    sampler.lastUsed = Date.now();
    const loaded = () =>
      state.samplers.worker(sampler).catch((err: unknown) => {
        throw err instanceof HttpError ? userError(err.message) : err;
      });
    await loaded();
    const info = sampler.info!;
    const maxTokens = maxTokensFor(info);
    const len = prompt.length + maxTokens + 1;
    try {
      checkMemory(state, sampler, info, b.num_samples, len);
    } catch (err) {
      throw userError(err instanceof Error ? err.message : String(err));
    }
    const options: Omit<SampleOptions, 'signal'> = {
      numSamples: b.num_samples,
      maxTokens,
      temperature: p.temperature,
      topK: p.top_k,
      topP: p.top_p,
      ...(p.seed !== undefined ? { seed: p.seed } : {}),
      ...(p.stop !== undefined ? { stop: p.stop } : {}),
      ...(b.prompt_logprobs ? { includePromptLogprobs: true } : {}),
      ...(b.topk_prompt_logprobs > 0 ? { topkPromptLogprobs: b.topk_prompt_logprobs } : {}),
    };
    // Unloaded again since (pool eviction)? `loaded` brings it back.
    const worker = await loaded();
    notCancelled();
    sampler.cacheSlots = Math.max(sampler.cacheSlots, b.num_samples);
    sampler.cacheLen = Math.max(sampler.cacheLen, len);
    const r = await state.call(
      worker,
      {
        kind: 'sample',
        samplerId: sampler.id,
        prompt,
        options,
        maxBatchBytes: limits.maxSampleBytes,
        ...(b.stream === true ? { progress: true } : {}),
      },
      sampler.sessionId,
      undefined,
      requestId,
      b.stream === true ? (progress) => state.futures.progress(requestId, progress) : undefined,
    );
    const out: Record<string, unknown> = {
      type: 'sample',
      sequences: r.sequences.map((s) => ({ stop_reason: s.stopReason, tokens: s.tokens, logprobs: s.logprobs })),
      prompt_cache_hit_tokens: 0,
    };
    if (r.promptLogprobs) out.prompt_logprobs = r.promptLogprobs;
    if (r.topkPromptLogprobs) out.topk_prompt_logprobs = r.topkPromptLogprobs;
    return out;
  })();
  // Sampling runs outside the training clock (hosted: sampler workers): it starts as soon as a worker is free and
  // its result is visible as soon as it is done.
  requestId = state.futures.create(work, false);
  state.sampleRequests.track(requestId, sampler.sessionId, work);
  if (b.seq_id !== undefined) {
    sampler.sampleSeen.set(b.seq_id, { hash, requestId });
  }
  return futureReply(requestId);
}

/**
 * `cancel_future` (this service's addition to the Tinker routes; clients that abandon a sample send it): stops the
 * sample request `request_id` if it is still queued or running (its future fails with "cancelled: …"). Other futures
 * and unknown ids are left alone (`cancelled: false`).
 */
export async function cancelFuture(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  const b = parseBody(FutureRetrieveRequestSchema, req.body, 'cancel_future');
  const cancelled = state.sampleRequests.cancel(
    b.request_id,
    'cancelled: the client abandoned this sample request (cancel_future)',
  );
  return ok({ type: 'cancel_future', request_id: b.request_id, cancelled });
}

export async function retrieveFuture(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  const b = parseBody(FutureRetrieveRequestSchema, req.body, 'retrieve_future');
  const found = await state.futures.wait(
    b.request_id,
    state.closing ? 0 : state.options.longPollMs,
    req.signal,
    b.partial_from,
  );
  switch (found.kind) {
    case 'pending':
      return ok({
        type: 'try_again',
        request_id: b.request_id,
        queue_state: 'active',
        ...(found.partial ? { partial: found.partial } : {}),
      });
    case 'done':
      return ok(found.value);
    case 'failed':
      return ok({ error: found.failure.error, category: found.failure.category });
    case 'expired':
      return { status: 410, json: { detail: `request ${b.request_id} expired; submit it again` } };
    case 'unknown':
      return {
        status: 404,
        json: {
          detail: `unknown request_id "${b.request_id}": this service has no record of it (if it restarted, what was in memory is gone; saved checkpoints remain)`,
        },
      };
  }
}
