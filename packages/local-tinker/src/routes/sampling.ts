/**
 * Sampling routes: create_sampling_session, asample (sampled on the executor, results in a future) and
 * retrieve_future (long-poll of any future).
 */
import {
  CreateSamplingSessionRequestSchema,
  FutureRetrieveRequestSchema,
  SampleRequestSchema,
  type WireSampleRequest,
} from '@cookbook/tinker-wire';
import {
  futureReply,
  HttpError,
  ok,
  parseBody,
  type ServiceReply,
  type ServiceRequest,
  userError,
} from '../http-errors.js';
import { bodyHash } from '../model-queue.js';
import { MAX_LIVE_SAMPLERS, type SamplerState, type ServiceState } from '../service-state.js';

export async function createSamplingSession(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  const b = parseBody(CreateSamplingSessionRequestSchema, req.body, 'create_sampling_session');
  state.session(b.session_id);
  if ((b.base_model === undefined) === (b.model_path === undefined)) {
    throw new HttpError(400, 'create_sampling_session needs exactly one of base_model or model_path');
  }
  const id = `${b.session_id}:sample:${b.sampling_session_seq_id}`;
  const existing = state.samplers.get(id);
  if (existing) {
    if (existing.baseModel === b.base_model || existing.modelPath === b.model_path) {
      return ok({ type: 'create_sampling_session', sampling_session_id: id });
    }
    throw new HttpError(409, `sampling_session_seq_id ${b.sampling_session_seq_id} was already used`);
  }
  state.addSampler(await state.samplerFor(b.base_model, b.model_path, id), b.session_id);
  return ok({ type: 'create_sampling_session', sampling_session_id: id });
}

export async function asample(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  const b: WireSampleRequest = parseBody(SampleRequestSchema, req.body, 'asample');
  let sampler: SamplerState;
  if (b.sampling_session_id !== undefined) {
    const s = state.samplers.get(b.sampling_session_id);
    if (!s) {
      throw new HttpError(
        404,
        `unknown sampling_session_id "${b.sampling_session_id}" (ephemeral samplers are dropped after the ${MAX_LIVE_SAMPLERS} most recent; save sampler weights by name to keep one)`,
      );
    }
    sampler = s;
  } else {
    sampler = await state.samplerFor(b.base_model, b.model_path, 'direct');
  }
  const hash = bodyHash(b);
  if (b.seq_id !== undefined) {
    const seen = sampler.sampleSeen.get(b.seq_id);
    if (seen) {
      if (seen.hash !== hash)
        throw new HttpError(409, `seq_id ${b.seq_id} was already used by a different sample request`);
      return futureReply(seen.requestId);
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
  const work = state.executor.run(
    state.wrap(async () => {
      sampler.lastUsed = Date.now();
      sampler.sampler ??= sampler.load?.();
      if (sampler.sampler === undefined) throw userError(`sampler ${sampler.id} is no longer loaded`);
      const r = (await sampler.sampler).sample(prompt, {
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
  const requestId = state.futures.create(work);
  if (b.seq_id !== undefined) {
    sampler.sampleSeen.set(b.seq_id, { hash, requestId });
    if (sampler.sampleSeen.size > 10_000) sampler.sampleSeen.delete(sampler.sampleSeen.keys().next().value!);
  }
  return futureReply(requestId);
}

export async function retrieveFuture(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  const b = parseBody(FutureRetrieveRequestSchema, req.body, 'retrieve_future');
  const found = await state.futures.wait(b.request_id, state.closing ? 0 : state.options.longPollMs, req.signal);
  switch (found.kind) {
    case 'pending':
      return ok({ type: 'try_again', request_id: b.request_id, queue_state: 'active' });
    case 'done':
      return ok(found.value);
    case 'failed':
      return ok({ error: found.failure.error, category: found.failure.category });
    case 'expired':
      return { status: 410, json: { detail: `request ${b.request_id} expired; submit it again` } };
    case 'unknown':
      return { status: 404, json: { detail: `unknown request_id "${b.request_id}"` } };
  }
}
