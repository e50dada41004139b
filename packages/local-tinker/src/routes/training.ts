/**
 * Session and training routes: create_session, session_heartbeat, create_model, get_info, unload_model, forward,
 * forward_backward and optim_step. Seq-ordered routes run through `consumingSeq`, so a rejected request still uses
 * up its seq_id and the model's later requests do not wait for it forever.
 */
import { randomBytes } from 'node:crypto';
import { tensorToNumbers } from '@cookbook/core';
import { type EngineDatum, EngineInputError, resolveAdamParams, validateBatch } from '@cookbook/engine';
import {
  AdamParamsSchema,
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
import { futureReply, HttpError, ok, parseBody, type ServiceReply, type ServiceRequest } from '../http-errors.js';
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
    lastHeartbeat: Date.now(),
    runIds: new Set(),
    samplerIds: new Set(),
    tags: b.tags,
  });
  return ok({ type: 'create_session', session_id: id });
}

export function sessionHeartbeat(state: ServiceState, req: ServiceRequest): ServiceReply {
  const b = parseBody(SessionHeartbeatRequestSchema, req.body, 'session_heartbeat');
  state.session(b.session_id).lastHeartbeat = Date.now();
  return ok({ type: 'session_heartbeat' });
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
  const lora: WireLoraConfig = b.lora_config ?? { rank: 32, train_attn: true, train_mlp: true, train_unembed: true };
  const work = state.executor.run(
    state.wrap(async () => {
      const base = await state.baseModel(b.base_model);
      return state.registerModel(modelId, base, lora, b.user_metadata, session, hash);
    }),
  );
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
  state.modelState(b.model_id);
  const work = state.executor.run(() => {
    state.models.delete(b.model_id);
    return { model_id: b.model_id, type: 'unload_model' };
  });
  return futureReply(state.futures.create(work), b.model_id);
}

/**
 * Wire datums → engine datums: token chunks joined (only text chunks are supported here) and tensors decoded. The
 * batch is then checked by the engine's own `validateBatch`, the one validation of a batch.
 */
function toEngineData(input: WireForwardBackwardInput): EngineDatum[] {
  return input.data.map((d: WireDatum, i) => {
    const tokens: number[] = [];
    for (const [c, chunk] of d.model_input.chunks.entries()) {
      if (chunk.type !== 'encoded_text') {
        throw new HttpError(
          400,
          `data[${i}].model_input.chunks[${c}]: ${chunk.type} chunks are not supported by the local service`,
        );
      }
      tokens.push(...chunk.tokens);
    }
    const lossFnInputs: EngineDatum['lossFnInputs'] = {};
    for (const [key, t] of Object.entries(d.loss_fn_inputs)) {
      let values: number[];
      try {
        values = tensorToNumbers(t);
      } catch (err) {
        throw new HttpError(
          400,
          `data[${i}].loss_fn_inputs.${key}: ${err instanceof Error ? err.message : String(err)}`,
        );
      }
      lossFnInputs[key] = { data: values, shape: t.shape ?? [values.length], dtype: t.dtype };
    }
    return { tokens, lossFnInputs };
  });
}

/** forward_backward (backward = true) or forward; shared by the JSON and protobuf routes. */
function forwardBackward(
  state: ServiceState,
  b: { forward_backward_input: WireForwardBackwardInput; model_id: string; seq_id?: number | undefined },
  backward: boolean,
): ServiceReply {
  const m = state.modelState(b.model_id);
  const input = b.forward_backward_input;
  const data = toEngineData(input);
  // Bad data, an unknown config key or a missing loss input is refused now, as a 400, not as a failed future.
  try {
    validateBatch(data, input.loss_fn, input.loss_fn_config, m.base);
  } catch (err) {
    if (err instanceof EngineInputError) throw new HttpError(400, err.message);
    throw err;
  }
  state.touch(m);
  return state.queueModelOp(m, b.seq_id, b, () => {
    const r = m.model.forwardBackward(data, input.loss_fn, input.loss_fn_config, { backward });
    return {
      loss_fn_output_type: 'ArrayRecord',
      loss_fn_outputs: r.lossFnOutputs.map((o) =>
        Object.fromEntries(
          Object.entries(o).map(([k, t]) => [
            k,
            { data: Array.from(t.data as ArrayLike<number>), dtype: t.dtype, ...(t.shape ? { shape: t.shape } : {}) },
          ]),
        ),
      ),
      metrics: r.metrics,
    };
  });
}

export function forwardBackwardRoute(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  return consumingSeq(state, req.body, () =>
    forwardBackward(state, parseBody(ForwardBackwardRequestSchema, req.body, 'forward_backward'), true),
  );
}

export function forwardRoute(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  return consumingSeq(state, req.body, () => {
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
    const a = AdamParamsSchema.parse(b.adam_params);
    const adam = {
      learningRate: a.learning_rate,
      beta1: a.beta1,
      beta2: a.beta2,
      eps: a.eps,
      weightDecay: a.weight_decay,
      gradClipNorm: a.grad_clip_norm,
    };
    try {
      resolveAdamParams(adam);
    } catch (err) {
      throw new HttpError(400, err instanceof Error ? err.message : String(err));
    }
    state.touch(m);
    return state.queueModelOp(m, b.seq_id, b, () => ({ metrics: m.model.optimStep(adam).metrics, type: 'optim_step' }));
  });
}
