/**
 * The Tinker wire protocol's JSON payloads as zod schemas — defined once, imported by the client and by the
 * embedded service. Request schemas accept what the protocol allows — every field an SDK leaves out holds its
 * default (the rule and its table are in `data-types.ts`) — and refuse what it forbids; response schemas ignore
 * unknown fields.
 * Field names stay snake_case, exactly as they travel. See shared/design/tinker-api.md §2–3.
 */
import { z } from 'zod';
import {
  AdamParamsSchema,
  ForwardBackwardInputSchema,
  LoraConfigSchema,
  ModelInputSchema,
  opt,
  SamplingParamsSchema,
  TensorDataSchema,
} from './data-types.js';

// ---------------------------------------------------------------- service / session (§2.1)

/**
 * Feature flags resolved for the caller's `sdk_version`, each with the SDK's default (SDK 0.25.0
 * `types/client_config_response.py`); a server may return `{}`, and flags this client does not know are ignored.
 * `proto_write_fwdbwd` / `fwd_via_fwdbwd` are the SDK 0.19–0.24 flags (read, not needed by a 0.25 client).
 */
export const ClientConfigResponseSchema = z.looseObject({
  pjwt_auth_enabled: z.boolean().default(false),
  credential_default_source: z.string().default('api_key'),
  sample_dispatch_bytes_semaphore_size: z
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  inflight_response_bytes_semaphore_size: z
    .number()
    .int()
    .positive()
    .default(50 * 1024 * 1024),
  parallel_fwdbwd_chunks: z.boolean().default(true),
  proto_compress_fwdbwd: z.boolean().default(false),
  fwdbwd_max_chunk_len: z.number().int().positive().default(1024),
  fwdbwd_max_chunk_bytes_count: z.number().int().positive().default(5_000_000),
  fwdbwd_dispatch_bytes_semaphore_size: z.number().int().positive().default(50_000_000),
  billing_exception_max_pause_duration_sec: z.number().int().nonnegative().default(3600),
  sample_no_retries: z.boolean().default(false),
  /** This cookbook's addition: the service keeps a streamed sample's tokens for `retrieve_future`'s `partial_from`. */
  sample_partial_results: z.boolean().default(false),
  sample_enable_stuck_detection: z.boolean().default(true),
  sample_max_concurrent_requests: z.number().int().positive().default(2000),
  use_pyqwest_transport: z.boolean().default(true),
  create_model_via_load_weights: z.boolean().default(false),
  proto_write_fwdbwd: opt(z.boolean()),
  fwd_via_fwdbwd: opt(z.boolean()),
});
export type ClientConfigResponse = z.infer<typeof ClientConfigResponseSchema>;

/** Flags re-fetched every `max(refresh_interval_sec, 10)` s (SDK 0.25.0 `types/client_dynamic_config_response.py`). */
export const DynamicConfigResponseSchema = z.looseObject({ refresh_interval_sec: z.number().int().default(300) });

/** `POST /api/v1/auth/token` → the short-lived JWT (SDK 0.25.0 `types/auth_token_response.py`). */
export const AuthTokenResponseSchema = z.looseObject({ jwt: z.string().min(1) });

export const HealthzResponseSchema = z.looseObject({ status: z.string() });

export const ServerCapabilitiesSchema = z.looseObject({
  supported_models: z.array(z.looseObject({ model_name: opt(z.string()), max_context_length: opt(z.number().int()) })),
});

export const CreateSessionRequestSchema = z.object({
  tags: z.array(z.string()).default([]),
  user_metadata: opt(z.record(z.string(), z.unknown())),
  sdk_version: z.string().default('unknown'),
  project_id: opt(z.string()),
  type: z.literal('create_session').default('create_session'),
});

export const CreateSessionResponseSchema = z.looseObject({
  type: opt(z.literal('create_session')),
  session_id: z.string(),
  info_message: opt(z.string()),
  warning_message: opt(z.string()),
  error_message: opt(z.string()),
});

export const SessionHeartbeatRequestSchema = z.object({
  session_id: z.string(),
  type: z.literal('session_heartbeat').default('session_heartbeat'),
});

export const CreateSamplingSessionRequestSchema = z.object({
  session_id: z.string(),
  sampling_session_seq_id: z.number().int().nonnegative(),
  base_model: opt(z.string()),
  model_path: opt(z.string().startsWith('tinker://')),
  type: z.literal('create_sampling_session').default('create_sampling_session'),
});

export const CreateSamplingSessionResponseSchema = z.looseObject({ sampling_session_id: z.string() });

// ---------------------------------------------------------------- models and training (§2.2)

/** What every future-returning endpoint answers at once. */
export const UntypedAPIFutureSchema = z.looseObject({ request_id: z.string(), model_id: opt(z.string()) });

export const CreateModelRequestSchema = z.object({
  session_id: z.string(),
  model_seq_id: z.number().int().nonnegative(),
  base_model: z.string().min(1),
  user_metadata: opt(z.record(z.string(), z.unknown())),
  lora_config: opt(LoraConfigSchema),
  type: z.literal('create_model').default('create_model'),
});

export const CreateModelResponseSchema = z.looseObject({ model_id: z.string() });

export const GetInfoRequestSchema = z.object({
  model_id: z.string(),
  type: z.literal('get_info').default('get_info'),
});

export const GetInfoResponseSchema = z.looseObject({
  model_id: z.string(),
  model_data: z.looseObject({ arch: opt(z.string()), model_name: opt(z.string()), tokenizer_id: opt(z.string()) }),
  is_lora: opt(z.boolean()),
  lora_rank: opt(z.number().int()),
  model_name: opt(z.string()),
});

export const UnloadModelRequestSchema = z.object({
  model_id: z.string(),
  type: z.literal('unload_model').default('unload_model'),
});

const SeqId = opt(z.number().int().min(1));

export const ForwardBackwardRequestSchema = z.object({
  forward_backward_input: ForwardBackwardInputSchema,
  model_id: z.string(),
  seq_id: SeqId,
});

export const ForwardRequestSchema = z.object({
  forward_input: ForwardBackwardInputSchema,
  model_id: z.string(),
  seq_id: SeqId,
});

export const ForwardBackwardOutputSchema = z.looseObject({
  loss_fn_output_type: z.string().default('ArrayRecord'),
  loss_fn_outputs: z.array(z.record(z.string(), TensorDataSchema)),
  metrics: z.record(z.string(), z.number()).default({}),
});
export type WireForwardBackwardOutput = z.infer<typeof ForwardBackwardOutputSchema>;

export const OptimStepRequestSchema = z.object({
  adam_params: AdamParamsSchema,
  model_id: z.string(),
  seq_id: SeqId,
  type: z.literal('optim_step').default('optim_step'),
});

export const OptimStepResponseSchema = z.looseObject({ metrics: opt(z.record(z.string(), z.number())) });

/** Checkpoint names: letters, digits, `_`, `-`, `.`, not starting with `.` (so never `.` or `..`); no slashes. */
export const CheckpointNameSchema = z
  .string()
  .min(1)
  .max(255)
  .regex(
    /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/,
    'checkpoint names may contain only letters, digits, "_", "-" and ".", and may not start with "."',
  );

export const SaveWeightsRequestSchema = z.object({
  model_id: z.string(),
  path: opt(CheckpointNameSchema),
  seq_id: SeqId,
  ttl_seconds: opt(z.number().int().positive()),
  overwrite: z.boolean().default(false),
  type: z.literal('save_weights').default('save_weights'),
});

export const SaveWeightsResponseSchema = z.looseObject({ path: z.string() });

export const SaveWeightsForSamplerRequestSchema = z.object({
  model_id: z.string(),
  path: opt(CheckpointNameSchema),
  sampling_session_seq_id: opt(z.number().int().nonnegative()),
  seq_id: SeqId,
  ttl_seconds: opt(z.number().int().positive()),
  type: z.literal('save_weights_for_sampler').default('save_weights_for_sampler'),
});

export const SaveWeightsForSamplerResponseSchema = z.looseObject({
  path: opt(z.string()),
  sampling_session_id: opt(z.string()),
});

export const LoadWeightsRequestSchema = z.object({
  path: z.string().startsWith('tinker://'),
  optimizer: z.boolean().default(false),
  weights_access_token: opt(z.string()),
  model_id: opt(z.string()),
  seq_id: SeqId,
  session_id: opt(z.string()),
  model_seq_id: opt(z.number().int().nonnegative()),
  base_model: opt(z.string()),
  user_metadata: opt(z.record(z.string(), z.unknown())),
  type: z.literal('load_weights').default('load_weights'),
});

export const LoadWeightsResponseSchema = z.looseObject({ path: opt(z.string()), model_id: opt(z.string()) });

export const WeightsInfoRequestSchema = z.object({ tinker_path: z.string().startsWith('tinker://') });

export const WeightsInfoResponseSchema = z.looseObject({
  base_model: z.string(),
  is_lora: z.boolean(),
  lora_rank: opt(z.number().int()),
  train_unembed: opt(z.boolean()),
  train_mlp: opt(z.boolean()),
  train_attn: opt(z.boolean()),
});

// ---------------------------------------------------------------- sampling (§2.3, §3.7)

export const SampleRequestSchema = z.object({
  num_samples: z.number().int().positive().default(1),
  prompt: ModelInputSchema,
  sampling_params: SamplingParamsSchema,
  prompt_logprobs: opt(z.boolean()),
  topk_prompt_logprobs: z.number().int().nonnegative().default(0),
  sampling_session_id: opt(z.string()),
  seq_id: opt(z.number().int().nonnegative()),
  base_model: opt(z.string()),
  model_path: opt(z.string()),
  type: z.literal('sample').default('sample'),
  /**
   * This cookbook's addition, sent only to a service whose `client/config` says `sample_partial_results`: keep the
   * tokens as they are picked, for `retrieve_future`'s `partial_from`.
   */
  stream: opt(z.boolean()),
});
export type WireSampleRequest = z.infer<typeof SampleRequestSchema>;

export const SampledSequenceSchema = z.looseObject({
  stop_reason: z.enum(['length', 'stop']),
  tokens: z.array(z.number().int()),
  logprobs: opt(z.array(z.number())),
});

export const SampleResponseSchema = z.looseObject({
  type: opt(z.literal('sample')),
  sequences: z.array(SampledSequenceSchema),
  prompt_logprobs: opt(z.array(z.number().nullable())),
  topk_prompt_logprobs: opt(z.array(z.array(z.tuple([z.number().int(), z.number()])).nullable())),
  prompt_cache_hit_tokens: z.number().int().default(0),
});
export type WireSampleResponse = z.infer<typeof SampleResponseSchema>;

// ---------------------------------------------------------------- futures (§2.5)

export const FutureRetrieveRequestSchema = z.object({
  request_id: z.string(),
  allow_metadata_only: z.boolean().default(false),
  /**
   * This cookbook's addition, for a sample submitted with `stream`: the poller holds each sequence's first
   * `partial_from` tokens; a pending answer (`try_again`) comes as soon as there are more, with them in `partial`.
   */
  partial_from: opt(z.number().int().nonnegative()),
});

/** A pending streamed sample's tokens past `partial_from` (each sequence's tokens from position `from` on). */
export const PartialSequencesSchema = z.looseObject({
  from: z.number().int().nonnegative(),
  sequences: z.array(z.looseObject({ tokens: z.array(z.number().int()), logprobs: z.array(z.number()) })),
});

export const TryAgainResponseSchema = z.looseObject({
  type: z.literal('try_again'),
  request_id: opt(z.string()),
  queue_state: opt(z.string()),
  queue_state_reason: opt(z.string()),
  partial: opt(PartialSequencesSchema),
});

export const RequestFailedResponseSchema = z.looseObject({
  error: z.string(),
  category: z.enum(['unknown', 'server', 'user']).catch('unknown'),
});
export type RequestErrorCategory = 'unknown' | 'server' | 'user';

export const CompleteMetadataResponseSchema = z.looseObject({
  status: z.literal('complete_metadata'),
  response_payload_size: z.number().int().nonnegative(),
});

/** Request types, as sent in `X-Tinker-Request-Type`. */
export type FutureRequestType =
  | 'Forward'
  | 'ForwardBackward'
  | 'OptimStep'
  | 'SaveWeights'
  | 'LoadWeights'
  | 'SaveWeightsForSampler'
  | 'CreateModel'
  | 'Sample'
  | 'UnloadModel';

// ---------------------------------------------------------------- REST (§2.4, §3.10)

/** The parts of a `tinker://<run>/<weights|sampler_weights>/<name>` checkpoint path, or undefined when it is not one. */
export function splitCheckpointPath(
  path: string,
): { runId: string; kind: 'weights' | 'sampler_weights'; name: string } | undefined {
  const m = /^tinker:\/\/([^/]+)\/(weights|sampler_weights)\/([^/]+)$/.exec(path);
  if (!m) return undefined;
  return { runId: m[1]!, kind: m[2] as 'weights' | 'sampler_weights', name: m[3]! };
}

export const CheckpointSchema = z.looseObject({
  checkpoint_id: z.string(),
  checkpoint_type: z.enum(['training', 'sampler']),
  time: z.string(),
  tinker_path: z.string(),
  size_bytes: opt(z.number().int()),
  public: z.boolean().default(false),
  expires_at: opt(z.string()),
});
export type WireCheckpoint = z.infer<typeof CheckpointSchema>;

export const CursorSchema = z.looseObject({
  offset: z.number().int(),
  limit: z.number().int(),
  total_count: z.number().int(),
});

export const TrainingRunSchema = z.looseObject({
  training_run_id: z.string(),
  base_model: z.string(),
  model_owner: z.string(),
  is_lora: z.boolean(),
  corrupted: z.boolean().default(false),
  lora_rank: opt(z.number().int()),
  last_request_time: z.string(),
  last_checkpoint: opt(CheckpointSchema),
  last_sampler_checkpoint: opt(CheckpointSchema),
  user_metadata: opt(z.record(z.string(), z.string())),
});
export type WireTrainingRun = z.infer<typeof TrainingRunSchema>;

export const TrainingRunsResponseSchema = z.looseObject({
  training_runs: z.array(TrainingRunSchema),
  cursor: CursorSchema,
});

export const CheckpointsListResponseSchema = z.looseObject({
  checkpoints: z.array(CheckpointSchema),
  cursor: opt(CursorSchema),
});

export const CheckpointArchiveUrlResponseSchema = z.looseObject({ url: z.string(), expires: opt(z.string()) });

/** `ttl_seconds` null or absent: never expires. */
export const CheckpointTtlRequestSchema = z.object({
  ttl_seconds: z.number().int().positive().nullable().default(null),
});

export const SamplerInfoSchema = z.looseObject({
  sampler_id: z.string(),
  base_model: z.string(),
  model_path: opt(z.string()),
});

export const SessionsListResponseSchema = z.looseObject({ sessions: z.array(z.string()) });

export const SessionInfoSchema = z.looseObject({
  training_run_ids: z.array(z.string()),
  sampler_ids: z.array(z.string()),
});

/** `GET /api/v1/sessions/{id}/trace_export`, polled until `ready` or `failed` (SDK 0.25.0 `rest_client.py`). */
export const TraceExportResponseSchema = z.looseObject({
  status: z.enum(['pending', 'ready', 'failed']),
  url: opt(z.string()),
  error: opt(z.string()),
});

/** `GET /api/v1/audit` (SDK 0.25.0 `types/audit_log_response.py`); entries are passed through as the server sends them. */
export const AuditLogResponseSchema = z.looseObject({ entries: z.array(z.record(z.string(), z.unknown())) });

/** `GET /api/v1/billing/usage/events` (SDK 0.25.0 `types/billing_usage_response.py`), passed through. */
export const BillingUsageResponseSchema = z.looseObject({
  data: z.array(z.record(z.string(), z.unknown())),
});
