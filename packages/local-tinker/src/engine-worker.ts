/**
 * An engine worker: a thread that owns LoRA models and samplers (and the base models under them, shared and freed
 * with their last user) and runs the host's operations off the HTTP event loop. Started by `engine-host.ts`; speaks
 * `engine-protocol.ts`. Invariants: the engine runs one thing at a time, in turns taken in arrival order (`turn`):
 * an operation other than a sample takes one turn, a sampler's batch takes one turn per {@link DECODE_SLICE} decode
 * steps and then queues again, so one long sample never holds back a short one on another sampler or a training
 * operation by more than a slice per batch decoding; a failure inside an operation never leaves a model or sampler
 * unusable (a sampler whose call failed is rebuilt, non-finite gradients are discarded before they reach the
 * weights); a cancelled sample stops at its next decode step; samples for one sampler decode together as one batch
 * (`decodeBatch`), each answered when its own sequences are done; the working memory of every batch decoding stays
 * within what each request admitted allows (a batch that does not fit waits for memory to be freed).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { CookbookError } from '@cookbook/core';
import {
  type BaseModel,
  createLoraModel,
  EngineInputError,
  type LoraModel,
  loadBaseModel,
  loadSampler,
  Sampler,
} from '@cookbook/engine';
import { admit, type WaitingSample } from './batch-admission.js';
import {
  type BaseInfo,
  CANCEL_SLOTS,
  type EngineFailure,
  type EngineOp,
  type EngineProgress,
  type EngineReady,
  type EngineRequest,
  type EngineResponse,
  type EngineWorkerData,
  type ForwardBackwardJson,
  NOT_RESIDENT,
  STAT_DECODE_STEPS,
} from './engine-protocol.js';

/**
 * Decode steps a sampler's batch runs per turn before the other batches and operations waiting get theirs: small
 * enough that a short request's wait is a few tokens per batch decoding, large enough that turns cost nothing.
 */
const DECODE_SLICE = 4;

/** Largest gradient element an optimizer step accepts. */
const MAX_GRADIENT = 1e18;

const port = parentPort;
if (port === null) throw new CookbookError('engine-worker.ts runs only as a worker thread');
const cancel = new Int32Array((workerData as EngineWorkerData).cancel);
const stats = new Int32Array((workerData as EngineWorkerData).stats);

interface BaseEntry {
  base: Promise<BaseModel>;
  users: number;
}
const bases = new Map<string, BaseEntry>();
const models = new Map<string, { model: LoraModel; baseName: string }>();
const samplers = new Map<string, { sampler: Sampler; baseName: string }>();

class NotResidentError extends CookbookError {
  override name = NOT_RESIDENT;
}

async function acquireBase(name: string): Promise<BaseModel> {
  let e = bases.get(name);
  if (!e) {
    e = { base: loadBaseModel(name), users: 0 };
    bases.set(name, e);
  }
  e.users++;
  try {
    return await e.base;
  } catch (err) {
    releaseBase(name);
    throw err;
  }
}

function releaseBase(name: string): void {
  const e = bases.get(name);
  if (e && --e.users <= 0) bases.delete(name);
}

function info(base: BaseModel): BaseInfo {
  const c = base.config;
  return {
    name: base.name,
    arch: base.arch,
    vocabSize: base.vocabSize,
    maxContextLength: base.maxContextLength,
    numLayers: c.numLayers,
    kvDim: c.numKvHeads * c.headDim,
  };
}

function model(id: string) {
  const m = models.get(id);
  if (!m) throw new NotResidentError(`model ${id} is not loaded`);
  return m;
}

function sampler(id: string) {
  const s = samplers.get(id);
  if (!s) throw new NotResidentError(`sampler ${id} is not loaded`);
  return s;
}

async function run(op: EngineOp): Promise<unknown> {
  switch (op.kind) {
    case 'createModel': {
      const base = await acquireBase(op.baseModel);
      try {
        const m = createLoraModel(base, op.lora);
        models.set(op.modelId, { model: m, baseName: op.baseModel });
      } catch (err) {
        releaseBase(op.baseModel);
        throw err;
      }
      return info(base);
    }
    case 'forwardBackward': {
      const m = model(op.modelId).model;
      const r = m.forwardBackward(op.data, op.lossFn, op.lossFnConfig, { backward: op.backward });
      const out: ForwardBackwardJson = {
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
      return out;
    }
    case 'optimStep': {
      const m = model(op.modelId).model;
      // A gradient past ~1e18 squares past float32 in Adam's second moment (which then freezes that weight for
      // good), and a non-finite one poisons the weights: discard them all, before they touch anything.
      const grads = m.lora.grads;
      let worst = 0;
      for (let i = 0; i < grads.length; i++) {
        const g = Math.abs(grads[i]!);
        if (!(g <= worst)) worst = g;
      }
      if (!(worst <= MAX_GRADIENT)) {
        m.zeroGrad();
        throw new EngineInputError(
          `the accumulated gradients are not finite or too large (largest |g| = ${worst}, limit ${MAX_GRADIENT}; a loss input too large?); they were discarded and the weights are unchanged`,
        );
      }
      return m.optimStep(op.adam);
    }
    case 'saveState': {
      const m = model(op.modelId).model;
      await m.saveState(op.stateDir, { optimizer: true });
      await m.exportPeftAdapter(op.adapterDir);
      return null;
    }
    case 'saveSamplerWeights':
      await model(op.modelId).model.saveSamplerWeights(op.adapterDir);
      return null;
    case 'loadState':
      await model(op.modelId).model.loadState(op.stateDir, { optimizer: op.optimizer });
      return null;
    case 'snapshotSampler': {
      const m = model(op.modelId);
      const base = await acquireBase(m.baseName);
      samplers.set(op.samplerId, { sampler: m.model.sampler(), baseName: m.baseName });
      return info(base);
    }
    case 'loadSampler': {
      const base = await acquireBase(op.baseModel);
      try {
        samplers.set(op.samplerId, { sampler: loadSampler(base, op.adapterDir), baseName: op.baseModel });
      } catch (err) {
        releaseBase(op.baseModel);
        throw err;
      }
      return info(base);
    }
    case 'sample':
      // Runs as a batch (decodeBatch); reached only through a direct call.
      throw new CookbookError('internal: a sample runs through decodeBatch');
    case 'dropModel': {
      const m = models.get(op.modelId);
      if (m) {
        models.delete(op.modelId);
        releaseBase(m.baseName);
      }
      return null;
    }
    case 'dropSampler': {
      const s = samplers.get(op.samplerId);
      if (s) {
        samplers.delete(op.samplerId);
        releaseBase(s.baseName);
      }
      return null;
    }
  }
}

function failureOf(err: unknown): EngineFailure {
  const e = err instanceof Error ? err : new Error(String(err));
  return { name: e.name, message: e.message };
}

/** True once the host asked to stop operation `id`. */
function cancelled(id: number): boolean {
  for (let i = 0; i < CANCEL_SLOTS; i++) if (Atomics.load(cancel, i) === id) return true;
  return false;
}

/** Whoever waits for the engine, first come first served; `engaged` while someone holds it. */
const turns: (() => void)[] = [];
let engaged = false;

/** Resolves when it is the caller's turn on the engine; the caller gives it back with {@link endTurn}. */
function turn(): Promise<void> {
  if (!engaged) {
    engaged = true;
    return Promise.resolve();
  }
  return new Promise((resolve) => turns.push(resolve));
}

function endTurn(): void {
  const next = turns.shift();
  if (next) next();
  else engaged = false;
}

/** The sample requests waiting to join the batch decoding (or about to decode) on each sampler. */
const batches = new Map<string, SampleRequest[]>();
/** Working memory (KV cache and logits) of each sampler's batch decoding, bytes, and its requests. */
const decoding = new Map<string, { bytes: number; members: number }>();
/** Batches waiting for memory that another batch holds, woken when a batch shrinks or ends. */
const memoryWaiters: (() => void)[] = [];
function memoryFreed(): void {
  for (const w of memoryWaiters.splice(0)) w();
}
type SampleRequest = EngineRequest & { op: Extract<EngineOp, { kind: 'sample' }> };

/**
 * Decodes the sample requests for one sampler and every one that arrives while it runs, together (continuous
 * batching): a request joins between tokens when the batch has room (`batch-admission.ts`: sequences and working
 * memory — its own and the other samplers' batches' — with a lane for small requests so large ones cannot starve
 * them), and is answered as soon as its own sequences are done. Takes the engine in turns of {@link DECODE_SLICE}
 * steps and yields to the event loop after each token, so requests can join and others get their turn.
 */
async function decodeBatch(samplerId: string, waiting: SampleRequest[]): Promise<void> {
  let s: { sampler: Sampler; baseName: string };
  try {
    s = sampler(samplerId);
  } catch (err) {
    if (batches.get(samplerId) === waiting) batches.delete(samplerId);
    for (const w of waiting.splice(0))
      port!.postMessage({ id: w.id, ok: false, error: failureOf(err) } satisfies EngineResponse);
    return;
  }
  const c = s.sampler.base.config;
  /** By sampler key: the request's id, sequences, longest length and, when it streams, the tokens reported. */
  const members = new Map<number, { id: number; seqs: number; len: number; reported?: number[] }>();
  const admission = new Map<number, WaitingSample>();
  const bytes = (seqs: number, len: number) =>
    4 * (2 * c.numLayers * c.numKvHeads * c.headDim * seqs * len + seqs * c.vocabSize);
  const shapeOf = () => {
    let shape = { seqs: 0, maxLen: 0, members: members.size };
    for (const m of members.values())
      shape = { ...shape, seqs: shape.seqs + m.seqs, maxLen: Math.max(shape.maxLen, m.len) };
    return shape;
  };
  const own = { bytes: 0, members: 0 };
  const record = () => {
    const shape = shapeOf();
    own.bytes = shape.members === 0 ? 0 : bytes(shape.seqs, shape.maxLen);
    own.members = shape.members;
  };
  decoding.set(samplerId, own);
  await turn();
  let steps = 0;
  try {
    for (;;) {
      // Cancelled before they joined: answered now (the cancel ring may not hold their id for long).
      for (let i = 0; i < waiting.length; i++) {
        const w = waiting[i]!;
        if (!cancelled(w.id)) continue;
        waiting.splice(i--, 1);
        port!.postMessage({
          id: w.id,
          ok: false,
          error: { name: 'EngineCancelledError', message: 'sampling was cancelled' },
        } satisfies EngineResponse);
      }
      // The other samplers' batches count against the memory a request admits (and a worker decoding nothing
      // always takes its first request).
      let otherBytes = 0;
      let otherMembers = 0;
      for (const [id, d] of decoding) {
        if (id === samplerId) continue;
        otherBytes += d.bytes;
        otherMembers += d.members;
      }
      const shape = shapeOf();
      const views = waiting.map((w) => {
        const o = w.op.options;
        const view = admission.get(w.id) ?? {
          seqs: o.numSamples,
          len: w.op.prompt.length + (o.maxTokens ?? s.sampler.base.maxContextLength) + 1,
          maxBytes: w.op.maxBatchBytes ?? Number.POSITIVE_INFINITY,
          passes: 0,
        };
        admission.set(w.id, view);
        return view;
      });
      const joining = new Set(
        admit(views, { ...shape, members: shape.members + otherMembers }, (q, l) => otherBytes + bytes(q, l)),
      );
      const admitted = waiting.filter((_, i) => joining.has(i));
      const stay = waiting.filter((_, i) => !joining.has(i));
      waiting.splice(0, waiting.length, ...stay);
      for (const next of admitted) {
        const id = next.id;
        const view = admission.get(id)!;
        admission.delete(id);
        try {
          const key = s.sampler.join(next.op.prompt, {
            ...next.op.options,
            signal: {
              get aborted() {
                return cancelled(id);
              },
            },
          });
          members.set(key, {
            id,
            seqs: view.seqs,
            len: view.len,
            ...(next.op.progress === true ? { reported: new Array<number>(view.seqs).fill(0) } : {}),
          });
        } catch (err) {
          port!.postMessage({ id, ok: false, error: failureOf(err) } satisfies EngineResponse);
        }
      }
      record();
      if (members.size === 0) {
        if (waiting.length === 0) break;
        // Nothing fits beside the other samplers' batches: wait until one shrinks (or a while, to see cancels).
        endTurn();
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 50);
          memoryWaiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
        await turn();
        continue;
      }
      const finished = s.sampler.decodeStep();
      Atomics.add(stats, STAT_DECODE_STEPS, 1);
      for (const f of finished) {
        const m = members.get(f.key)!;
        members.delete(f.key);
        port!.postMessage(
          (f.error
            ? { id: m.id, ok: false, error: failureOf(f.error) }
            : { id: m.id, ok: true, value: f.result }) satisfies EngineResponse,
        );
      }
      if (finished.length > 0) {
        record();
        memoryFreed();
      }
      for (const [key, m] of members) if (m.reported) report(m.id, s.sampler.progress(key), m.reported);
      await new Promise((r) => setImmediate(r));
      if (++steps % DECODE_SLICE === 0 && turns.length > 0) {
        // The slice is over: the others waiting take their turns first.
        endTurn();
        await turn();
      }
    }
  } catch (err) {
    // An allocation that failed half-way (or any other surprise) may leave buffers inconsistent: fail the batch and
    // start the sampler afresh.
    s.sampler.reset();
    s.sampler = new Sampler(s.sampler.base, s.sampler.lora);
    const failure = failureOf(err);
    for (const m of members.values())
      port!.postMessage({ id: m.id, ok: false, error: failure } satisfies EngineResponse);
    for (const w of waiting.splice(0))
      port!.postMessage({ id: w.id, ok: false, error: failure } satisfies EngineResponse);
  } finally {
    if (batches.get(samplerId) === waiting) batches.delete(samplerId);
    if (decoding.get(samplerId) === own) decoding.delete(samplerId);
    memoryFreed();
    endTurn();
  }
}

/** Posts the tokens of `seqs` past `reported` (per sequence), if any, and moves `reported` on. */
function report(id: number, seqs: ReturnType<Sampler['progress']>, reported: number[]): void {
  if (seqs === undefined) return;
  let any = false;
  const progress = seqs.map((q, i) => {
    const from = reported[i]!;
    reported[i] = q.tokens.length;
    if (q.tokens.length > from) any = true;
    return { tokens: q.tokens.slice(from), logprobs: q.logprobs.slice(from) };
  });
  if (any) port!.postMessage({ id, progress } satisfies EngineProgress);
}

/** Runs one operation other than a sample in its turn and answers it. */
async function runOp(req: EngineRequest): Promise<void> {
  await turn();
  let reply: EngineResponse;
  try {
    const value = await run(req.op);
    const m = 'modelId' in req.op ? models.get(req.op.modelId) : undefined;
    reply = { id: req.id, ok: true, value, ...(m ? { bytes: m.model.memoryBytes } : {}) };
  } catch (err) {
    reply = { id: req.id, ok: false, error: failureOf(err) };
  } finally {
    endTurn();
  }
  port!.postMessage(reply);
}

port.on('message', (req: EngineRequest) => {
  if (req.op.kind !== 'sample') {
    void runOp(req);
    return;
  }
  // Joins the batch decoding (or about to decode) on its sampler, or starts one, which waits for its turn.
  const id = req.op.samplerId;
  const joining = batches.get(id);
  if (joining) {
    joining.push(req as SampleRequest);
    return;
  }
  const waiting = [req as SampleRequest];
  batches.set(id, waiting);
  void decodeBatch(id, waiting);
});
port.postMessage({ ready: true } satisfies EngineReady);
