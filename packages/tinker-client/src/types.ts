/**
 * The client's TypeScript-side types (camelCase) and their conversion to and from the wire (snake_case).
 */
import { type Datum, datumToJSON, type TensorData } from '@cookbook/core';
import {
  ADAM_PARAMS_DEFAULTS,
  type LossFnType,
  type WireAdamParams,
  type WireDatum,
  type WireForwardBackwardOutput,
  type WireLoraConfig,
  type WireSampleResponse,
  type WireSamplingParams,
} from '@cookbook/tinker-wire';

export type { LossFnType };

/** Result of forward / forward_backward: one output dict per datum, in request order, and metrics. */
export interface ForwardBackwardOutput {
  lossFnOutputType: string;
  lossFnOutputs: Record<string, TensorData>[];
  /** Keys are `name:reduction`, e.g. `loss:sum`. */
  metrics: Record<string, number>;
}

/** `snake_case` → `camelCase`, at the type level (`grad_clip_norm` → `gradClipNorm`). */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;

/**
 * Adam(W) hyperparameters (torch semantics; weight decay is decoupled; `gradClipNorm` 0 = off): the wire's
 * `AdamParams` (`@cookbook/tinker-wire`'s `AdamParamsSchema`, which describes each field and holds its bounds) in
 * camelCase. An absent field is sent as the protocol's default, the official SDK's (`ADAM_PARAMS_DEFAULTS`).
 */
export type AdamParams = { [K in keyof WireAdamParams as CamelCase<K>]?: WireAdamParams[K] };

/** Sampling parameters. `stop`: strings, or token ids; `null`/absent keeps EOS; `[]` disables every stop. */
export interface SamplingParams {
  maxTokens?: number;
  seed?: number;
  stop?: string | string[] | number[] | null;
  /** Default 1; 0 samples greedily. */
  temperature?: number;
  /** −1 (default) means no limit. */
  topK?: number;
  /** Default 1. */
  topP?: number;
}

/** LoRA adapter settings of a training run. */
export interface LoraConfig {
  /** Default 32. */
  rank?: number;
  seed?: number;
  /** Default true. */
  trainMlp?: boolean;
  /** Default true. */
  trainAttn?: boolean;
  /** Default true. */
  trainUnembed?: boolean;
}

/** One sampled continuation. */
export interface SampledSequence {
  tokens: number[];
  /** The sampler's logprob of each token, when available. */
  logprobs?: number[];
  stopReason: 'stop' | 'length';
}

/** Result of `sample`. */
export interface SampleResponse {
  sequences: SampledSequence[];
  /** One per prompt token; the first is null. Only when requested. */
  promptLogprobs?: (number | null)[];
  /** Per prompt token, the top-k `[tokenId, logprob]` pairs; the first is null. Only when requested. */
  topkPromptLogprobs?: ([number, number][] | null)[];
  promptCacheHitTokens: number;
}

/** The wire form of `p`, every field present (as the SDK sends it): an absent one is the protocol's default. */
export function adamParamsToWire(p: AdamParams): WireAdamParams {
  const d = ADAM_PARAMS_DEFAULTS;
  return {
    learning_rate: p.learningRate ?? d.learning_rate,
    beta1: p.beta1 ?? d.beta1,
    beta2: p.beta2 ?? d.beta2,
    eps: p.eps ?? d.eps,
    weight_decay: p.weightDecay ?? d.weight_decay,
    grad_clip_norm: p.gradClipNorm ?? d.grad_clip_norm,
  };
}

export function samplingParamsToWire(p: SamplingParams): WireSamplingParams {
  const w: WireSamplingParams = { temperature: p.temperature ?? 1, top_k: p.topK ?? -1, top_p: p.topP ?? 1 };
  if (p.maxTokens !== undefined) w.max_tokens = p.maxTokens;
  if (p.seed !== undefined) w.seed = p.seed;
  if (p.stop !== undefined && p.stop !== null) w.stop = p.stop;
  return w;
}

export function loraConfigToWire(c: LoraConfig): WireLoraConfig {
  const w: WireLoraConfig = {
    rank: c.rank ?? 32,
    train_mlp: c.trainMlp ?? true,
    train_attn: c.trainAttn ?? true,
    train_unembed: c.trainUnembed ?? true,
  };
  if (c.seed !== undefined) w.seed = c.seed;
  return w;
}

export function datumToWire(d: Datum): WireDatum {
  return datumToJSON(d) as WireDatum;
}

export function forwardBackwardOutputFromWire(w: WireForwardBackwardOutput): ForwardBackwardOutput {
  return {
    lossFnOutputType: w.loss_fn_output_type.replace(/^.*:/, ''),
    lossFnOutputs: w.loss_fn_outputs as Record<string, TensorData>[],
    metrics: w.metrics,
  };
}

export function sampleResponseFromWire(w: WireSampleResponse): SampleResponse {
  const out: SampleResponse = {
    sequences: w.sequences.map((s) => {
      const seq: SampledSequence = { tokens: s.tokens, stopReason: s.stop_reason };
      if (s.logprobs !== undefined) seq.logprobs = s.logprobs;
      return seq;
    }),
    promptCacheHitTokens: w.prompt_cache_hit_tokens,
  };
  if (w.prompt_logprobs !== undefined) out.promptLogprobs = w.prompt_logprobs;
  if (w.topk_prompt_logprobs !== undefined) out.topkPromptLogprobs = w.topk_prompt_logprobs;
  return out;
}

/** The JSON request a forward_backward encoder receives (forward when `forward_only`). */
export interface ForwardBackwardWireRequest {
  model_id: string;
  seq_id: number;
  forward_backward_input: { data: WireDatum[]; loss_fn: LossFnType; loss_fn_config?: Record<string, number> };
  forward_only: boolean;
}

/**
 * A replacement forward_backward body encoder (a test seam): given the request, return the bytes and their content
 * type. Without one the client encodes as the server's protocol asks (protobuf, zstd when flagged, for servers that
 * answer `client/config`; JSON for those that do not).
 */
export interface ForwardBackwardEncoder {
  encode(request: ForwardBackwardWireRequest): { data: Uint8Array; contentType: string; contentEncoding?: string };
}
