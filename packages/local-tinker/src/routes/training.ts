/**
 * Session and training routes: create_session, session_heartbeat, create_model, get_info, unload_model, forward,
 * forward_backward and optim_step. Seq-ordered routes run through `consumingSeq`, so a rejected request still uses
 * up its seq_id and the model's later requests do not wait for it forever. Everything a request asks for is bounded
 * (`limits.ts`) before anything is allocated for it; the engine work runs in the model's worker thread.
 */
import { randomBytes } from 'node:crypto';
import { tensorToNumbers } from '@cookbook/core';
import { type AdamParams, type EngineDatum, EngineInputError, validateBatch } from '@cookbook/engine';
import {
  CreateModelRequestSchema,
  CreateSessionRequestSchema,
  ForwardBackwardRequestSchema,
  ForwardRequestSchema,
  GetInfoRequestSchema,
  OptimStepRequestSchema,
  SessionHeartbeatRequestSchema,
  UnloadModelRequestSchema,
  type WireDatum,
  type WireForwardBackwardInput,
  type WireLoraConfig,
} from '@cookbook/tinker-wire';
import {
  futureReply,
  HttpError,
  nonTextChunkError,
  ok,
  parseBody,
  type ServiceReply,
  type ServiceRequest,
} from '../http-errors.js';
import { checkInputCounts, checkLimit, field, overLimit, QUEUED_BYTES_PER_ELEMENT, shapeElements } from '../limits.js';
import { bodyHash, SeqRangeError } from '../model-queue.js';
import type { ServiceState } from '../service-state.js';

/**
 * Runs a seq-ordered route; if it rejects the request (4xx), its seq_id still counts as used, so the model's later
 * requests do not wait for it forever.
 */
export async function consumingSeq(
  state: ServiceState,
  body: unknown,
  fn: () => ServiceReply | Promise<ServiceReply>,
): Promise<ServiceReply> {
  try {
    return await fn();
  } catch (err) {
    const status = err instanceof HttpError ? err.status : err instanceof SeqRangeError ? 400 : undefined;
    if (status !== undefined && status < 500 && body !== null && typeof body === 'object') {
      const { model_id, seq_id } = body as { model_id?: unknown; seq_id?: unknown };
      if (typeof model_id === 'string' && typeof seq_id === 'number' && Number.isInteger(seq_id) && seq_id >= 1) {
        state.models.get(model_id)?.queue.skip(seq_id);
      }
    }
    throw err;
  }
}

export function createSession(state: ServiceState, req: ServiceRequest): ServiceReply {
  const b = parseBody(CreateSessionRequestSchema, req.body, 'create_session');
  const id = `s${randomBytes(6).toString('hex')}`;
  state.sessions.set(id, {
    id,
    createdAt: new Date().toISOString(),
    lastSeen: Date.now(),
    runIds: new Set(),
    samplerIds: new Set(),
    tags: b.tags,
  });
  return ok({ type: 'create_session', session_id: id });
}

export function sessionHeartbeat(state: ServiceState, req: ServiceRequest): ServiceReply {
  const b = parseBody(SessionHeartbeatRequestSchema, req.body, 'session_heartbeat');
  state.session(b.session_id);
  return ok({ type: 'session_heartbeat' });
}

/** LoRA config with defaults, after the rank limit. */
export function loraConfigOf(state: ServiceState, lora: WireLoraConfig | undefined): WireLoraConfig {
  const out = lora ?? { rank: 32, train_attn: true, train_mlp: true, train_unembed: true };
  checkLimit(state.limits, 'maxLoraRank', 'lora_config.rank', out.rank);
  return out;
}

export function createModel(state: ServiceState, req: ServiceRequest): ServiceReply {
  const b = parseBody(CreateModelRequestSchema, req.body, 'create_model');
  const session = state.session(b.session_id);
  const modelId = `${b.session_id}:train:${b.model_seq_id}`;
  const hash = bodyHash(b);
  const existing = state.models.get(modelId) ?? state.creating.get(modelId);
  if (existing) {
    const [prevHash, prevId] =
      'createHash' in existing ? [existing.createHash, existing.createRequestId] : [existing.hash, existing.requestId];
    if (prevHash === hash) return futureReply(prevId, modelId);
    throw new HttpError(409, `model_seq_id ${b.model_seq_id} was already used in session ${b.session_id}`);
  }
  state.checkBaseModelName(b.base_model);
  const lora = loraConfigOf(state, b.lora_config);
  state.checkModelBudget(0);
  const work = state.createModel(modelId, b.base_model, lora, b.user_metadata, session, hash);
  const requestId = state.futures.create(work.then(() => ({ model_id: modelId, type: 'create_model' })));
  // Remember the request id for replays, while creating and once the model exists.
  state.creating.set(modelId, { requestId, hash });
  work.then(
    (m) => {
      m.createRequestId = requestId;
      state.creating.delete(modelId);
    },
    () => state.creating.delete(modelId),
  );
  return futureReply(requestId, modelId);
}

export function getInfo(state: ServiceState, req: ServiceRequest): ServiceReply {
  const b = parseBody(GetInfoRequestSchema, req.body, 'get_info');
  const m = state.modelState(b.model_id);
  return ok({
    type: 'get_info',
    model_id: b.model_id,
    model_data: { arch: m.base.arch, model_name: m.base.name, tokenizer_id: m.base.name },
    is_lora: true,
    lora_rank: m.run.lora_rank,
    model_name: m.base.name,
  });
}

export function unloadModel(state: ServiceState, req: ServiceRequest): ServiceReply {
  const b = parseBody(UnloadModelRequestSchema, req.body, 'unload_model');
  const m = state.modelState(b.model_id);
  // After every operation already queued for the model.
  const work = state.call(m.worker, { kind: 'dropModel', modelId: b.model_id }).then(() => ({
    model_id: b.model_id,
    type: 'unload_model',
  }));
  state.unloadModel(b.model_id, 'it was unloaded by an unload_model request', { inWorker: false });
  return futureReply(state.futures.create(work), b.model_id);
}

/**
 * Wire datums → engine datums: token chunks joined (only text chunks are supported here) and CSR tensors densified,
 * after checking every declared tensor size against the request's element budget, so a tensor declaring a huge
 * shape is refused before anything is allocated for it. Everything else about the batch (shapes against the data
 * and the model input, token ids, finite values in range, the loss's inputs) is the engine's `validateBatch`, the
 * one validation of a batch.
 */
function toEngineData(state: ServiceState, input: WireForwardBackwardInput, modelName: string): EngineDatum[] {
  let budget = state.limits.maxLossInputElements;
  return input.data.map((d: WireDatum, i) => {
    const tokens: number[] = [];
    for (const [c, chunk] of d.model_input.chunks.entries()) {
      if (chunk.type !== 'encoded_text') {
        throw nonTextChunkError(`data[${i}].model_input.chunks[${c}]`, chunk.type, modelName);
      }
      for (const t of chunk.tokens) tokens.push(t);
    }
    const lossFnInputs: EngineDatum['lossFnInputs'] = {};
    for (const [key, t] of Object.entries(d.loss_fn_inputs)) {
      const where = `data[${i}].loss_fn_inputs.${key}`;
      const declared = t.shape ? shapeElements(t.shape) : t.data.length;
      if (declared > budget) {
        throw overLimit(
          `${where}: the loss inputs' element count (shape [${(t.shape ?? [t.data.length]).join(', ')}])`,
          state.limits.maxLossInputElements - budget + declared,
          state.limits.maxLossInputElements,
          'maxLossInputElements',
        );
      }
      budget -= declared;
      if (t.sparse_crow_indices === undefined && t.sparse_col_indices === undefined) {
        // Dense: passed as it came; the engine checks its shape against its data.
        lossFnInputs[key] = { data: t.data, ...(t.shape ? { shape: t.shape } : {}), dtype: t.dtype };
        continue;
      }
      let values: number[];
      try {
        values = tensorToNumbers(t);
      } catch (err) {
        throw new HttpError(400, `${where}: ${err instanceof Error ? err.message : String(err)}`);
      }
      lossFnInputs[key] = { data: values, shape: t.shape ?? [values.length], dtype: t.dtype };
    }
    return { tokens, lossFnInputs };
  });
}

/** The loss config as numbers (the SDK types values as float or str; every loss here takes numbers). */
function numericConfig(cfg: Record<string, number | string> | undefined): Record<string, number> | undefined {
  if (cfg === undefined) return undefined;
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(cfg)) {
    if (typeof v !== 'number') throw new HttpError(400, `loss_fn_config.${k} must be a number, got "${v}"`);
    out[k] = v;
  }
  return out;
}

/** forward_backward (backward = true) or forward; shared by the JSON and protobuf routes. */
function forwardBackward(
  state: ServiceState,
  b: { forward_backward_input: WireForwardBackwardInput; model_id: string; seq_id?: number | undefined },
  backward: boolean,
): ServiceReply {
  const m = state.modelState(b.model_id);
  const input = b.forward_backward_input;
  const data = toEngineData(state, input, m.base.name);
  const config = numericConfig(input.loss_fn_config);
  // Bad data, an unknown config key or a missing loss input is refused now, as a 400, not as a failed future.
  try {
    validateBatch(data, input.loss_fn, config, m.base);
  } catch (err) {
    if (err instanceof EngineInputError) throw new HttpError(400, err.message);
    throw err;
  }
  state.touch(m);
  const cycle = state.admit();
  // What this request holds while it waits in the model's queue (bounded per model).
  let elements = 0;
  for (const d of data) {
    elements += d.tokens.length;
    for (const t of Object.values(d.lossFnInputs)) elements += t.data.length;
  }
  return state.queueModelOp(
    m,
    b.seq_id,
    b,
    () =>
      state.call(
        m.worker,
        {
          kind: 'forwardBackward',
          modelId: b.model_id,
          data,
          lossFn: input.loss_fn,
          lossFnConfig: config,
          backward,
        },
        m.sessionId,
        cycle,
      ),
    elements * QUEUED_BYTES_PER_ELEMENT,
  );
}

export function forwardBackwardRoute(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  return consumingSeq(state, req.body, () => {
    checkInputCounts(state.limits, field(req.body, 'forward_backward_input'), 'forward_backward_input');
    return forwardBackward(state, parseBody(ForwardBackwardRequestSchema, req.body, 'forward_backward'), true);
  });
}

export function forwardRoute(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  return consumingSeq(state, req.body, () => {
    checkInputCounts(state.limits, field(req.body, 'forward_input'), 'forward_input');
    const b = parseBody(ForwardRequestSchema, req.body, 'forward');
    return forwardBackward(
      state,
      { forward_backward_input: b.forward_input, model_id: b.model_id, seq_id: b.seq_id },
      false,
    );
  });
}

export function optimStep(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  return consumingSeq(state, req.body, () => {
    const b = parseBody(OptimStepRequestSchema, req.body, 'optim_step');
    const m = state.modelState(b.model_id);
    // adam_params was checked against the wire's AdamParamsSchema (its one owner) by parseBody; what follows are
    // this service's own bounds.
    const a = b.adam_params;
    checkLimit(state.limits, 'maxLearningRate', 'adam_params.learning_rate', a.learning_rate);
    if (a.learning_rate * a.weight_decay > 1) {
      throw new HttpError(
        400,
        `adam_params.learning_rate × weight_decay = ${a.learning_rate * a.weight_decay} must be at most 1 (a larger decoupled decay flips the weights' sign)`,
      );
    }
    const adam: AdamParams = {
      learningRate: a.learning_rate,
      beta1: a.beta1,
      beta2: a.beta2,
      eps: a.eps,
      weightDecay: a.weight_decay,
      gradClipNorm: a.grad_clip_norm,
    };
    state.touch(m);
    const cycle = state.admit();
    return state.queueModelOp(m, b.seq_id, b, async () => {
      const r = await state.call(m.worker, { kind: 'optimStep', modelId: b.model_id, adam }, m.sessionId, cycle);
      return { metrics: r.metrics, type: 'optim_step' };
    });
  });
}
