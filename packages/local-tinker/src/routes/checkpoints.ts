/**
 * Checkpoint routes: save_weights (state + PEFT adapter), save_weights_for_sampler (a named checkpoint, or an
 * ephemeral sampler snapshot), load_weights (into a model, or create-via-load) and weights_info. Checkpoints are
 * written through a staging folder and a rename (`Storage.writeCheckpoint`).
 */
import { join } from 'node:path';
import {
  LoadWeightsRequestSchema,
  SaveWeightsForSamplerRequestSchema,
  SaveWeightsRequestSchema,
  WeightsInfoRequestSchema,
} from '@cookbook/tinker-wire';
import {
  futureReply,
  HttpError,
  ok,
  parseBody,
  parseCheckpointPath,
  type ServiceReply,
  type ServiceRequest,
  userError,
} from '../http-errors.js';
import { checkTtlSeconds } from '../limits.js';
import { bodyHash } from '../model-queue.js';
import type { ModelState, ServiceState } from '../service-state.js';
import { type CheckpointKind, type CheckpointRecord, checkName } from '../storage.js';
import { consumingSeq, loraConfigOf } from './training.js';

/**
 * A checkpoint name is checked at submission (400 when it is not one); a name already saved fails the save's future
 * as a user error (`writeCheckpoint`), not with a 409 at submission: SDK ≥ 0.20 treats a 409 on submit as retryable
 * (`execute_with_retries`) and would resend the save for five minutes (SDK 0.25.0 `lib/internal_client_holder.py`).
 */
function checkNewCheckpoint(name: string): void {
  checkName(name, 'checkpoint name');
}

async function writeCheckpoint(
  state: ServiceState,
  runId: string,
  kind: CheckpointKind,
  name: string,
  overwrite: boolean,
  ttlSeconds: number | undefined,
  fill: (staging: string) => Promise<void>,
): Promise<CheckpointRecord> {
  if (!overwrite && (await state.storage.checkpointExists(runId, kind, name))) {
    throw userError(
      `checkpoint tinker://${runId}/${kind}/${name} already exists; choose another name${kind === 'weights' ? ' or save with overwrite' : ''}`,
    );
  }
  return state.storage.writeCheckpoint(runId, kind, name, fill, {
    overwrite,
    required: kind === 'weights' ? ['state', 'adapter'] : ['adapter'],
    ...(ttlSeconds !== undefined ? { ttlSeconds } : {}),
  });
}

export function saveWeights(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  return consumingSeq(state, req.body, async () => {
    const b = parseBody(SaveWeightsRequestSchema, req.body, 'save_weights');
    checkTtlSeconds('ttl_seconds', b.ttl_seconds);
    const m = state.modelState(b.model_id);
    const name = b.path ?? `checkpoint-${Date.now()}`;
    const runId = m.run.training_run_id;
    const replay = m.queue.replayOf(b.seq_id, bodyHash(b));
    if (replay !== undefined) return futureReply(replay, runId);
    checkNewCheckpoint(name);
    state.touch(m);
    return state.queueModelOp(m, b.seq_id, b, async () => {
      const record = await writeCheckpoint(state, runId, 'weights', name, b.overwrite, b.ttl_seconds, (dir) =>
        state
          .call(
            m.worker,
            { kind: 'saveState', modelId: runId, stateDir: join(dir, 'state'), adapterDir: join(dir, 'adapter') },
            m.sessionId,
          )
          .then(() => undefined),
      );
      return { path: record.tinker_path, type: 'save_weights' };
    });
  });
}

export function saveWeightsForSampler(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  return consumingSeq(state, req.body, async () => {
    const b = parseBody(SaveWeightsForSamplerRequestSchema, req.body, 'save_weights_for_sampler');
    checkTtlSeconds('ttl_seconds', b.ttl_seconds);
    const m = state.modelState(b.model_id);
    const runId = m.run.training_run_id;
    const sessionId = runId.split(':')[0]!;
    const replay = m.queue.replayOf(b.seq_id, bodyHash(b));
    if (replay !== undefined) return futureReply(replay, runId);
    state.touch(m);
    if (b.path !== undefined) {
      const name = b.path;
      checkNewCheckpoint(name);
      return state.queueModelOp(m, b.seq_id, b, async () => {
        const record = await writeCheckpoint(state, runId, 'sampler_weights', name, false, b.ttl_seconds, (dir) =>
          state
            .call(
              m.worker,
              { kind: 'saveSamplerWeights', modelId: runId, adapterDir: join(dir, 'adapter') },
              m.sessionId,
            )
            .then(() => undefined),
        );
        return { path: record.tinker_path, type: 'save_weights_for_sampler' };
      });
    }
    if (b.sampling_session_seq_id === undefined) {
      throw new HttpError(400, 'save_weights_for_sampler needs either "path" (a name) or "sampling_session_seq_id"');
    }
    const samplerId = `${sessionId}:sample:${b.sampling_session_seq_id}`;
    if (state.samplers.has(samplerId)) throw new HttpError(409, `sampling session ${samplerId} already exists`);
    return state.queueModelOp(m, b.seq_id, b, async () => {
      await state.samplers.snapshot(samplerId, m, m.sessionId);
      return { sampling_session_id: samplerId, type: 'save_weights_for_sampler' };
    });
  });
}

export function loadWeights(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  return consumingSeq(state, req.body, async () => {
    const b = parseBody(LoadWeightsRequestSchema, req.body, 'load_weights');
    const ckpt = parseCheckpointPath(b.path);
    if (ckpt.kind !== 'weights') {
      throw new HttpError(400, `load_weights needs a training checkpoint (tinker://…/weights/…), got ${b.path}`);
    }
    const record = await state.storage.readCheckpoint(ckpt.runId, 'weights', ckpt.name);
    if (!record) throw new HttpError(404, `checkpoint ${b.path} does not exist`);
    const dir = state.storage.checkpointDir(ckpt.runId, 'weights', ckpt.name);
    const load = (m: ModelState) => async () => {
      await state.call(
        m.worker,
        { kind: 'loadState', modelId: m.run.training_run_id, stateDir: join(dir, 'state'), optimizer: b.optimizer },
        m.sessionId,
      );
      return { path: b.path, model_id: m.run.training_run_id, type: 'load_weights' };
    };
    if (b.model_id !== undefined) {
      const m = state.modelState(b.model_id);
      const replay = m.queue.replayOf(b.seq_id, bodyHash(b));
      if (replay !== undefined) return futureReply(replay, b.model_id);
      const seq = b.seq_id ?? 1;
      if (seq !== 1 || m.queue.started) {
        throw new HttpError(400, `LoadWeights is not permitted with seq_id ${seq}: it must be a model's first request`);
      }
      return state.queueModelOp(m, seq, b, load(m));
    }
    // Create-via-load: the model is created from the checkpoint's run, then loaded.
    if (b.session_id === undefined || b.model_seq_id === undefined) {
      throw new HttpError(400, 'load_weights needs either model_id (+ seq_id 1) or session_id + model_seq_id');
    }
    const session = state.session(b.session_id);
    const run = await state.storage.readRun(ckpt.runId);
    if (!run) throw new HttpError(404, `training run ${ckpt.runId} does not exist`);
    const modelId = `${b.session_id}:train:${b.model_seq_id}`;
    if (state.models.has(modelId) || state.creating.has(modelId)) {
      throw new HttpError(409, `model ${modelId} already exists`);
    }
    const baseName = b.base_model ?? run.base_model;
    state.checkBaseModelName(baseName);
    const lora = loraConfigOf(state, { ...run.lora_config });
    const hash = bodyHash(b);
    const work = (async () => {
      const userMetadata = b.user_metadata ?? run.user_metadata;
      const m = await state.createModel(modelId, baseName, lora, userMetadata, session, hash);
      m.queue.assign(1);
      return load(m)();
    })();
    const requestId = state.futures.create(work);
    state.creating.set(modelId, { requestId, hash });
    work.then(
      () => state.creating.delete(modelId),
      () => state.creating.delete(modelId),
    );
    return futureReply(requestId, modelId);
  });
}

export async function weightsInfo(state: ServiceState, req: ServiceRequest): Promise<ServiceReply> {
  const b = parseBody(WeightsInfoRequestSchema, req.body, 'weights_info');
  const ckpt = parseCheckpointPath(b.tinker_path);
  const record = await state.storage.readCheckpoint(ckpt.runId, ckpt.kind, ckpt.name);
  const run = await state.storage.readRun(ckpt.runId);
  if (!record || !run) throw new HttpError(404, `checkpoint ${b.tinker_path} does not exist`);
  return ok({
    base_model: run.base_model,
    is_lora: true,
    lora_rank: run.lora_config.rank,
    train_unembed: run.lora_config.train_unembed,
    train_mlp: run.lora_config.train_mlp,
    train_attn: run.lora_config.train_attn,
  });
}
