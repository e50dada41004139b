/**
 * The service's bounds on what a client may make it hold: one request (checked before anything is allocated for
 * it), the requests waiting in a model's queue, and the memory of the models loaded at once. Each refusal is a 400
 * naming the field, the value and the limit (and how to raise it on `cookbook serve`).
 */
import { totalmem } from 'node:os';
import { HttpError } from './http-errors.js';

/** Longest checkpoint lifetime, s (100 years; past ~2.7e11 s a date is no longer representable). */
export const MAX_TTL_SECONDS = 100 * 365 * 86_400;

/**
 * Bounds on what clients may make the service hold. Every field has a default; `cookbook serve` sets them by the
 * snake_case name.
 */
export interface ServiceLimits {
  /** Largest request body (after decompression), bytes. */
  maxBodyBytes: number;
  /** Deepest nesting of arrays and objects in a JSON body. */
  maxJsonDepth: number;
  /**
   * Most objects, arrays and strings (keys included) in a JSON body, counted on its bytes before it is parsed: what
   * parsing would allocate per node (tens of bytes for a 3-byte `{},`) is bounded before it happens.
   */
  maxJsonNodes: number;
  /** Most datums in one forward_backward / forward (JSON or protobuf, counted before the datums are checked). */
  maxDatums: number;
  /** Most model-input chunks in one request, over all its datums. */
  maxChunks: number;
  /** Most model-input tokens in one request, over all its datums and chunks. */
  maxInputTokens: number;
  /** Most messages in one OpenAI-route chat completion (`/v1/chat/completions`). */
  maxMessages: number;
  /** Largest `num_samples` of one sample request. */
  maxNumSamples: number;
  /** `max_tokens` used when a sample request gives none (also bounded by the context). */
  defaultMaxTokens: number;
  /** Largest `max_tokens` a sample request may ask for. */
  maxTokens: number;
  /** Largest `topk_prompt_logprobs`. */
  maxTopkPromptLogprobs: number;
  /** Largest LoRA `rank`. */
  maxLoraRank: number;
  /** Most loss-input elements (as declared by the tensor shapes, sparse ones densified) in one forward_backward. */
  maxLossInputElements: number;
  /** Largest sampler working memory (KV cache and logits of all samples), bytes. */
  maxSampleBytes: number;
  /** Largest Adam `learning_rate`. */
  maxLearningRate: number;
  /**
   * Most sample requests of one client (session) queued or running at once; past it `asample` answers 429 (the SDK
   * pauses and submits again). The SDK's own cap is its `sample_max_concurrent_requests` flag (2000).
   */
  maxConcurrentRequests: number;
  /** Most stop sequences (strings or token ids) of one sample request. */
  maxStopSequences: number;
  /** Largest total length of a sample request's stop strings, UTF-16 code units. */
  maxStopChars: number;
  /**
   * How far past the next seq_id to run a model's request may be: a request at seq_id next + this or beyond is
   * refused, since it would wait (holding its payload) for every seq_id before it.
   */
  maxSeqAhead: number;
  /**
   * Largest payload of the requests waiting in one model's queue (for a missing seq_id or their turn), bytes,
   * estimated as {@link QUEUED_BYTES_PER_ELEMENT} per token and loss-input element. The next seq_id to run is always
   * taken (the others wait for it).
   */
  maxQueuedBytesPerModel: number;
  /** Largest payload waiting in all models' queues together, bytes (estimated the same way). */
  maxQueuedBytes: number;
  /**
   * Memory budget of the training models loaded at once (LoRA weights, gradients, Adam moments and training
   * workspace), bytes. A model that would pass it is refused, after unloading models idle for `idleModelUnloadMs`.
   */
  maxModelBytes: number;
  /** Under the model memory budget, models with no request for this long may be unloaded for a new one, ms. */
  idleModelUnloadMs: number;
}

/**
 * Bytes a waiting request is counted for per token and loss-input element: its parsed, validated and converted
 * copies on the service's heap (measured: a 16 MB JSON forward_backward of ≈3 M numbers held ≈150 MB while parked).
 */
export const QUEUED_BYTES_PER_ELEMENT = 48;

export const DEFAULT_LIMITS: Readonly<ServiceLimits> = {
  maxBodyBytes: 64 * 1024 * 1024,
  maxJsonDepth: 64,
  maxJsonNodes: 1 << 21,
  maxDatums: 32_768,
  maxChunks: 1 << 17,
  maxInputTokens: 1 << 24,
  maxMessages: 4096,
  maxNumSamples: 128,
  defaultMaxTokens: 512,
  maxTokens: 32_768,
  maxTopkPromptLogprobs: 64,
  maxLoraRank: 256,
  maxLossInputElements: 1 << 24,
  maxSampleBytes: 2 * 1024 * 1024 * 1024,
  maxLearningRate: 1,
  maxConcurrentRequests: 2000,
  maxStopSequences: 64,
  maxStopChars: 16_384,
  maxSeqAhead: 1024,
  maxQueuedBytesPerModel: 512 * 1024 * 1024,
  maxQueuedBytes: 1024 * 1024 * 1024,
  // Half the machine's memory: LoRA weights live outside the engine workers' heap limit.
  maxModelBytes: Math.floor(totalmem() / 2),
  idleModelUnloadMs: 10 * 60_000,
};

/** The `cookbook serve` key of each limit. */
export const LIMIT_KEYS: Readonly<Record<keyof ServiceLimits, string>> = {
  maxBodyBytes: 'max_body_mb',
  maxJsonDepth: 'max_json_depth',
  maxJsonNodes: 'max_json_nodes',
  maxDatums: 'max_datums',
  maxChunks: 'max_chunks',
  maxInputTokens: 'max_input_tokens',
  maxMessages: 'max_messages',
  maxNumSamples: 'max_num_samples',
  defaultMaxTokens: 'default_max_tokens',
  maxTokens: 'max_tokens',
  maxTopkPromptLogprobs: 'max_topk_prompt_logprobs',
  maxLoraRank: 'max_lora_rank',
  maxLossInputElements: 'max_loss_input_elements',
  maxSampleBytes: 'max_sample_mb',
  maxLearningRate: 'max_learning_rate',
  maxConcurrentRequests: 'max_concurrent_requests',
  maxStopSequences: 'max_stop_sequences',
  maxStopChars: 'max_stop_chars',
  maxSeqAhead: 'max_seq_ahead',
  maxQueuedBytesPerModel: 'max_queued_mb_per_model',
  maxQueuedBytes: 'max_queued_mb',
  maxModelBytes: 'max_model_mb',
  idleModelUnloadMs: 'idle_model_unload_s',
};

/** Limits with defaults for the fields not given. */
export function resolveLimits(given: Partial<ServiceLimits> = {}): ServiceLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const [k, v] of Object.entries(given) as [keyof ServiceLimits, number | undefined][]) {
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** `bytes` in MB, for messages (`1536 MB`). */
export function formatMb(bytes: number): string {
  return `${Math.ceil(bytes / (1024 * 1024))} MB`;
}

/** A 400 for `field` = `value` over `limit`. */
export function overLimit(field: string, value: number | string, limit: number | string, key: keyof ServiceLimits) {
  return new HttpError(
    400,
    `${field} = ${value} exceeds this service's limit of ${limit} (the operator can raise it: cookbook serve ${LIMIT_KEYS[key]}=…)`,
  );
}

/** Throws a 400 when `value` > the limit `key`. */
export function checkLimit(limits: ServiceLimits, key: keyof ServiceLimits, field: string, value: number): void {
  if (value > limits[key]) throw overLimit(field, value, limits[key], key);
}

/** A 400 for a `ttl_seconds` past {@link MAX_TTL_SECONDS} (a later date cannot be represented). */
export function checkTtlSeconds(field: string, ttl: number | null | undefined): void {
  if (ttl !== null && ttl !== undefined && ttl > MAX_TTL_SECONDS) {
    throw new HttpError(400, `${field} = ${ttl} is out of range: at most ${MAX_TTL_SECONDS} (100 years)`);
  }
}

/** A 400 when a sample request's stop sequences pass the count or total-length limit. */
export function checkStops(
  limits: ServiceLimits,
  stop: string | readonly (string | number)[] | null | undefined,
): void {
  if (stop === null || stop === undefined) return;
  const list = typeof stop === 'string' ? [stop] : stop;
  checkLimit(limits, 'maxStopSequences', 'sampling_params.stop: the number of stop sequences', list.length);
  let chars = 0;
  for (const s of list) if (typeof s === 'string') chars += s.length;
  checkLimit(limits, 'maxStopChars', 'sampling_params.stop: the total length of the stop strings', chars);
}

/**
 * One pass over a JSON text's bytes before it is parsed (strings skipped, nothing allocated): throws a 400 as soon
 * as its nesting passes `maxDepth` or its objects, arrays and strings pass `maxNodes`. `JSON.parse` allocates tens of
 * bytes per node; this bounds that before it happens (a 60 MB body of `{},` would have been a gigabyte of heap).
 */
export function scanJson(raw: Uint8Array, limits: Pick<ServiceLimits, 'maxJsonDepth' | 'maxJsonNodes'>): void {
  const maxDepth = limits.maxJsonDepth;
  const maxNodes = limits.maxJsonNodes;
  let depth = 0;
  let nodes = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      if (++nodes > maxNodes) tooManyNodes(maxNodes);
    } else if (c === 0x5b || c === 0x7b) {
      if (++nodes > maxNodes) tooManyNodes(maxNodes);
      if (++depth > maxDepth) {
        throw new HttpError(
          400,
          `request body nests arrays/objects more than ${maxDepth} levels deep (this service's limit; cookbook serve ${LIMIT_KEYS.maxJsonDepth}=…)`,
        );
      }
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
}

/** {@link scanJson} with only the depth bound (the node count unbounded). */
export function checkJsonDepth(raw: Uint8Array, max: number): void {
  scanJson(raw, { maxJsonDepth: max, maxJsonNodes: Number.POSITIVE_INFINITY });
}

function tooManyNodes(max: number): never {
  throw new HttpError(
    400,
    `request body holds more than ${max} JSON objects, arrays and strings (this service's limit; cookbook serve ${LIMIT_KEYS.maxJsonNodes}=…)`,
  );
}

const asList = (v: unknown): readonly unknown[] | undefined => (Array.isArray(v) ? v : undefined);
/** `v[key]` when `v` is a plain object, else undefined (reading a body before it is validated). */
export const field = (v: unknown, key: string): unknown =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[key] : undefined;

/**
 * The counts of a forward_backward / forward input (`{data: [{model_input: {chunks: [{tokens}]}}]}`), checked on the
 * parsed body before it is validated: datums, chunks and tokens, each a 400 naming its limit. Whatever is not the
 * expected shape is left for the schema to refuse (with a bounded number of issues, since the counts are bounded).
 */
export function checkInputCounts(limits: ServiceLimits, input: unknown, where: string): void {
  const data = asList(field(input, 'data'));
  if (data === undefined) return;
  checkLimit(limits, 'maxDatums', `${where}.data: the number of datums`, data.length);
  const count = { chunks: 0, tokens: 0 };
  for (const d of data)
    countChunks(limits, field(field(d, 'model_input'), 'chunks'), `${where}.data[*].model_input`, count);
}

/**
 * Adds a model input's chunks and tokens to `count`, throwing a 400 as soon as either passes its limit (`where` names
 * the model input(s) in the message). A `chunks` that is not a list is left for the schema.
 */
export function countChunks(
  limits: ServiceLimits,
  chunks: unknown,
  where: string,
  count = { chunks: 0, tokens: 0 },
): void {
  const list = asList(chunks);
  if (list === undefined) return;
  count.chunks += list.length;
  if (count.chunks > limits.maxChunks) {
    throw overLimit(`${where}.chunks: the number of chunks`, `${count.chunks}+`, limits.maxChunks, 'maxChunks');
  }
  for (const c of list) count.tokens += asList(field(c, 'tokens'))?.length ?? 0;
  if (count.tokens > limits.maxInputTokens) {
    throw overLimit(`${where}: the number of tokens`, `${count.tokens}+`, limits.maxInputTokens, 'maxInputTokens');
  }
}

/** Product of a shape's dimensions, or Infinity when it overflows a safe integer. */
export function shapeElements(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) {
    n *= d;
    if (!Number.isSafeInteger(n)) return Number.POSITIVE_INFINITY;
  }
  return n;
}

/**
 * Bytes a sample call needs for its KV cache (which only grows: the largest slot count and length a sampler has
 * seen) and its logits, from the base model's dimensions.
 */
export function sampleBytes(
  info: { numLayers: number; kvDim: number; vocabSize: number },
  slots: number,
  length: number,
): number {
  return 4 * (2 * info.numLayers * slots * length * info.kvDim + slots * info.vocabSize);
}
