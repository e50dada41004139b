/**
 * The messages between the service (host, on the HTTP event loop) and its engine workers (threads that own models
 * and samplers). An operation is one message `{id, op}`; the worker answers `{id, ok, value | error}`. A worker runs
 * one operation at a time, in the order the host sends them — except that a sample for a sampler whose batch is
 * decoding joins that batch at once (continuous batching); the host keeps the queue (see `engine-host.ts`).
 */
import type { AdamParams, EngineDatum, SampleOptions, SampleResult } from '@cookbook/engine';

/** What the host knows about a base model without holding its weights. */
export interface BaseInfo {
  name: string;
  arch: string;
  vocabSize: number;
  maxContextLength: number;
  numLayers: number;
  /** Keys (or values) per token per layer: kv heads × head dim. */
  kvDim: number;
}

/** LoRA settings of a new model. */
export interface LoraSettings {
  rank: number;
  seed?: number;
  trainAttn: boolean;
  trainMlp: boolean;
  trainUnembed: boolean;
}

/** One engine operation. Folders are absolute paths the host chose (never from a request). */
export type EngineOp =
  | { kind: 'createModel'; modelId: string; baseModel: string; lora: LoraSettings }
  | {
      kind: 'forwardBackward';
      modelId: string;
      data: EngineDatum[];
      lossFn: string;
      lossFnConfig: Record<string, number> | undefined;
      backward: boolean;
    }
  | { kind: 'optimStep'; modelId: string; adam: AdamParams }
  | { kind: 'saveState'; modelId: string; stateDir: string; adapterDir: string }
  | { kind: 'saveSamplerWeights'; modelId: string; adapterDir: string }
  | { kind: 'loadState'; modelId: string; stateDir: string; optimizer: boolean }
  | { kind: 'snapshotSampler'; modelId: string; samplerId: string }
  | { kind: 'loadSampler'; samplerId: string; baseModel: string; adapterDir: string | null }
  | {
      kind: 'sample';
      samplerId: string;
      prompt: number[];
      options: Omit<SampleOptions, 'signal'>;
      /** Largest working memory (KV cache and logits) of the batch this request may join, bytes. */
      maxBatchBytes?: number;
      /** Report the tokens as they are picked ({@link EngineProgress} messages before the result). */
      progress?: boolean;
    }
  | { kind: 'dropModel'; modelId: string }
  | { kind: 'dropSampler'; samplerId: string };

export type EngineOpKind = EngineOp['kind'];

/** The wire JSON of a forward / forward_backward result. */
export interface ForwardBackwardJson {
  loss_fn_output_type: string;
  loss_fn_outputs: Record<string, { data: number[]; dtype: string; shape?: number[] }>[];
  metrics: Record<string, number>;
}

/** What each operation resolves to. */
export interface EngineOpResult {
  createModel: BaseInfo;
  forwardBackward: ForwardBackwardJson;
  optimStep: { metrics: Record<string, number> };
  saveState: null;
  saveSamplerWeights: null;
  loadState: null;
  snapshotSampler: BaseInfo;
  loadSampler: BaseInfo;
  sample: SampleResult;
  dropModel: null;
  dropSampler: null;
}

/** Host → worker. */
export interface EngineRequest {
  id: number;
  op: EngineOp;
}

/** A failure as it crosses the thread boundary: the error class name and its message. */
export interface EngineFailure {
  name: string;
  message: string;
}

/**
 * Worker → host. `bytes`: after an operation on a training model, the memory that model holds in the worker (LoRA
 * weights, gradients, Adam moments, workspace), for the service's model memory budget.
 */
export type EngineResponse =
  | { id: number; ok: true; value: unknown; bytes?: number }
  | { id: number; ok: false; error: EngineFailure };

/** The tokens a sequence gained since the last report, with their logprobs. */
export interface SequenceProgress {
  tokens: number[];
  logprobs: number[];
}

/**
 * Worker → host while a sample asked for `progress` decodes: per sequence (in order), the tokens picked since the
 * previous report. The result that follows holds every token.
 */
export interface EngineProgress {
  id: number;
  progress: SequenceProgress[];
}

/** Worker → host once the engine is loaded and the worker listens. */
export interface EngineReady {
  ready: true;
}

/** Entries of the shared cancel ring. */
export const CANCEL_SLOTS = 64;

/**
 * `workerData` of an engine worker: the shared cancel ring ({@link CANCEL_SLOTS} Int32 entries; the host writes the
 * id of an operation to stop into the next entry, and a running sample stops when its id is in any of them), and
 * the shared counters the worker adds to ({@link STAT_DECODE_STEPS}).
 */
export interface EngineWorkerData {
  cancel: SharedArrayBuffer;
  stats: SharedArrayBuffer;
}

/** Index in the `stats` Int32 counters: decode steps run (one per token position of a batch, all its samples). */
export const STAT_DECODE_STEPS = 0;
/** Int32 counters in `stats`. */
export const STAT_SLOTS = 1;

/** The error name a worker gives a request for a model or sampler it does not hold. */
export const NOT_RESIDENT = 'NotResidentError';
