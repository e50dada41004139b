/**
 * The request contract of the current official SDK (thinking-machines-lab/tinker 0.25.0), route by route: what a
 * 0.25.0 client sends, written down from its source, strict. The SDK's request models forbid extra fields
 * (`StrictBase`) and are dumped with `exclude_unset=False, exclude_none=True`, so in a request as sent every field
 * with a default is present, a field whose value is None is absent, and nothing else appears. A schema here is
 * therefore stricter than the service's request schemas (`wire.ts`, which also accept older SDKs): unknown fields,
 * missing required fields and missing defaults all fail. The source of each route is named beside it (paths relative
 * to the SDK's `src/tinker/`); the next protocol change is a diff to this table.
 *
 * `forward_backward` is protobuf (`ForwardBackwardRequest`, `proto/request_conv.py`): its contract checks the decoded
 * message and that the body holds no field the message does not define.
 */
import { decompress } from 'fzstd';
import { z } from 'zod';
import { ForwardBackwardRequestProto, PROTO_CONTENT_TYPE } from './proto.js';

/** The SDK version every rule below is taken from. */
export const CONTRACT_SDK_VERSION = '0.25.0';

const int = () => z.number().int();
const str = () => z.string();

/** `types/encoded_text_chunk.py`, `types/image_chunk.py`, `types/image_asset_pointer_chunk.py`, `types/dmel_chunk.py`. */
const ChunkContract = z.discriminatedUnion('type', [
  z.strictObject({ tokens: z.array(int()), type: z.literal('encoded_text') }),
  z.strictObject({
    data: str(),
    format: z.enum(['png', 'jpeg']),
    expected_tokens: int().optional(),
    type: z.literal('image'),
  }),
  z.strictObject({
    format: z.enum(['png', 'jpeg']),
    location: str(),
    expected_tokens: int().optional(),
    type: z.literal('image_asset_pointer'),
  }),
  z.strictObject({ dmel: str(), type: z.literal('dmel') }),
]);

/** `types/_pydantic_types/model_input.py`. */
const ModelInputContract = z.strictObject({ chunks: z.array(ChunkContract) });

/** `types/_pydantic_types/sampling_params.py` (defaults temperature 1, top_k −1, top_p 1 are present). */
const SamplingParamsContract = z.strictObject({
  max_tokens: int().optional(),
  seed: int().optional(),
  stop: z.union([str(), z.array(str()), z.array(int())]).optional(),
  temperature: z.number(),
  top_k: int(),
  top_p: z.number(),
});

/** `types/optim_step_request.py` `AdamParams`: every field has a default, so all six are present. */
const AdamParamsContract = z.strictObject({
  learning_rate: z.number(),
  beta1: z.number(),
  beta2: z.number(),
  eps: z.number(),
  weight_decay: z.number(),
  grad_clip_norm: z.number(),
});

/** `types/lora_config.py`. */
const LoraConfigContract = z.strictObject({
  rank: int(),
  seed: int().optional(),
  train_unembed: z.boolean(),
  train_mlp: z.boolean(),
  train_attn: z.boolean(),
});

const metadata = () => z.record(z.string(), z.unknown());

/** One route's request contract: the JSON body (or protobuf check) and the query, each with its SDK source. */
export interface RouteContract {
  /** SDK file(s) the rule comes from. */
  source: string;
  body?: z.ZodType;
  /** Protobuf body: returns the problems found. */
  protoBody?: (bytes: Uint8Array) => string[];
  /** No body at all (GET, DELETE, publish). */
  noBody?: boolean;
  query?: z.ZodType;
}

const LossFns = ['cross_entropy', 'importance_sampling', 'ppo', 'cispo', 'dro'];

/** The protobuf ForwardBackwardRequest as `proto/request_conv.py` writes it. */
function checkForwardBackwardProto(bytes: Uint8Array): string[] {
  const problems: string[] = [];
  let msg: protobufMessage;
  try {
    msg = ForwardBackwardRequestProto.decode(bytes) as unknown as protobufMessage;
  } catch (err) {
    return [`not a ForwardBackwardRequest: ${err instanceof Error ? err.message : String(err)}`];
  }
  // A field the message does not define is dropped by the decoder: re-encoding gives fewer bytes.
  const again = ForwardBackwardRequestProto.encode(msg as never).finish();
  if (again.length !== bytes.length)
    problems.push(`fields the message does not define (${bytes.length - again.length} bytes)`);
  const o = ForwardBackwardRequestProto.toObject(msg as never, { defaults: true }) as {
    model_id: string;
    seq_id: number;
    loss_fn: string;
    data: { model_input: Record<string, unknown>[]; loss_fn_inputs: Record<string, { dtype: number }> }[];
  };
  if (o.model_id === '') problems.push('model_id is empty');
  if (!(o.seq_id >= 1)) problems.push(`seq_id ${o.seq_id} (the SDK sends request_id + 1 ≥ 1)`);
  if (!LossFns.includes(o.loss_fn)) problems.push(`loss_fn "${o.loss_fn}" is not a LossFnType`);
  if (o.data.length === 0) problems.push('data is empty');
  for (const [i, d] of o.data.entries()) {
    for (const [j, c] of d.model_input.entries()) {
      const kinds = ['encoded_text', 'image', 'dmel'].filter((k) => c[k] !== undefined && c[k] !== null);
      if (kinds.length !== 1) problems.push(`data[${i}].model_input[${j}]: ${kinds.length} chunk kinds set`);
    }
    for (const [k, t] of Object.entries(d.loss_fn_inputs)) {
      // request_conv writes only FLOAT32 and INT64.
      if (t.dtype !== 1 && t.dtype !== 2) problems.push(`data[${i}].loss_fn_inputs.${k}: dtype ${t.dtype}`);
    }
  }
  return problems;
}
type protobufMessage = Record<string, unknown>;

const page = { limit: z.coerce.number().int(), offset: z.coerce.number().int() };
const scope = z.enum(['owned', 'accessible']);

/** Every route a 0.25.0 client calls, by `METHOD path` (path parameters as `{…}`). */
export const ROUTE_CONTRACTS: Record<string, RouteContract> = {
  'POST /api/v1/client/config': {
    source: 'types/client_config_request.py, lib/internal_client_holder.py',
    body: z.strictObject({ sdk_version: str() }),
  },
  'POST /api/v1/client/dynamic_config': {
    source: 'types/client_config_request.py, lib/internal_client_holder.py',
    body: z.strictObject({ sdk_version: str() }),
  },
  'POST /api/v1/auth/token': { source: 'resources/service.py (body {})', body: z.strictObject({}) },
  'POST /api/v1/create_session': {
    source: 'types/create_session_request.py, lib/internal_client_holder.py (user_metadata or {})',
    body: z.strictObject({
      tags: z.array(str()),
      user_metadata: metadata(),
      sdk_version: str(),
      project_id: str().optional(),
      type: z.literal('create_session'),
    }),
  },
  'POST /api/v1/session_heartbeat': {
    source: 'types/session_heartbeat_request.py',
    body: z.strictObject({ session_id: str(), type: z.literal('session_heartbeat') }),
  },
  'POST /api/v1/create_sampling_session': {
    source: 'types/create_sampling_session_request.py',
    body: z.strictObject({
      session_id: str(),
      sampling_session_seq_id: int(),
      base_model: str().optional(),
      model_path: str().startsWith('tinker://').optional(),
      type: z.literal('create_sampling_session'),
    }),
  },
  'POST /api/v1/create_model': {
    source: 'types/create_model_request.py, types/lora_config.py',
    body: z.strictObject({
      session_id: str(),
      model_seq_id: int(),
      base_model: str(),
      user_metadata: metadata().optional(),
      lora_config: LoraConfigContract.optional(),
      type: z.literal('create_model'),
    }),
  },
  'POST /api/v1/get_info': {
    source: 'types/get_info_request.py',
    body: z.strictObject({ model_id: str(), type: z.literal('get_info') }),
  },
  'POST /api/v1/unload_model': {
    source: 'types/unload_model_request.py',
    body: z.strictObject({ model_id: str(), type: z.literal('unload_model') }),
  },
  'POST /api/v1/forward_backward': {
    source: 'resources/training.py, proto/request_conv.py, proto/tinker_public_pb2.py',
    protoBody: checkForwardBackwardProto,
  },
  'POST /api/v1/optim_step': {
    source: 'types/optim_step_request.py',
    body: z.strictObject({
      adam_params: AdamParamsContract,
      model_id: str(),
      seq_id: int().optional(),
      type: z.literal('optim_step'),
    }),
  },
  'POST /api/v1/save_weights': {
    source: 'types/save_weights_request.py',
    body: z.strictObject({
      model_id: str(),
      path: str().optional(),
      seq_id: int().optional(),
      ttl_seconds: int().optional(),
      overwrite: z.boolean(),
      type: z.literal('save_weights'),
    }),
  },
  'POST /api/v1/save_weights_for_sampler': {
    source: 'types/save_weights_for_sampler_request.py',
    body: z.strictObject({
      model_id: str(),
      path: str().optional(),
      sampling_session_seq_id: int().optional(),
      seq_id: int().optional(),
      ttl_seconds: int().optional(),
      type: z.literal('save_weights_for_sampler'),
    }),
  },
  'POST /api/v1/load_weights': {
    source: 'types/load_weights_request.py, lib/public_interfaces/service_client.py (create via load)',
    body: z
      .strictObject({
        model_id: str().optional(),
        seq_id: int().optional(),
        session_id: str().optional(),
        model_seq_id: int().optional(),
        base_model: str().optional(),
        user_metadata: metadata().optional(),
        path: str(),
        optimizer: z.boolean(),
        weights_access_token: str().optional(),
        type: z.literal('load_weights'),
      })
      .refine((b) => (b.model_id !== undefined) !== (b.session_id !== undefined), {
        message: 'exactly one addressing: model_id + seq_id, or session_id + model_seq_id',
      }),
  },
  'POST /api/v1/weights_info': {
    source: 'lib/public_interfaces/rest_client.py (body {tinker_path})',
    body: z.strictObject({ tinker_path: str() }),
  },
  'POST /api/v1/asample': {
    source: 'types/sample_request.py, lib/public_interfaces/sampling_client.py, resources/sampling.py',
    body: z.strictObject({
      num_samples: int(),
      prompt: ModelInputContract,
      sampling_params: SamplingParamsContract,
      base_model: str().optional(),
      model_path: str().optional(),
      sampling_session_id: str().optional(),
      seq_id: int().optional(),
      prompt_logprobs: z.boolean().optional(),
      topk_prompt_logprobs: int(),
      type: z.literal('sample'),
    }),
  },
  'POST /api/v1/retrieve_future': {
    source: 'types/future_retrieve_request.py, lib/api_future_impl.py',
    body: z.strictObject({ request_id: str(), allow_metadata_only: z.boolean() }),
  },
  'POST /api/v1/telemetry': {
    source: 'types/telemetry_send_request.py',
    body: z.strictObject({
      events: z.array(z.unknown()),
      platform: str(),
      sdk_version: str(),
      session_id: str(),
      process_uuid: str(),
    }),
  },
  'GET /api/v1/healthz': { source: 'resources/service.py', noBody: true },
  'GET /api/v1/get_server_capabilities': { source: 'resources/service.py', noBody: true },
  'GET /api/v1/training_runs': {
    source: 'lib/public_interfaces/rest_client.py list_training_runs',
    noBody: true,
    query: z.strictObject({ ...page, access_scope: scope, project_id: str().optional() }),
  },
  'GET /api/v1/training_runs/{run}': {
    source: 'lib/public_interfaces/rest_client.py get_training_run',
    noBody: true,
    query: z.strictObject({ access_scope: scope }),
  },
  'GET /api/v1/training_runs/{run}/checkpoints': { source: 'resources/weights.py', noBody: true },
  'DELETE /api/v1/training_runs/{run}/checkpoints/{kind}/{name}': {
    source: 'lib/public_interfaces/rest_client.py',
    noBody: true,
  },
  'POST /api/v1/training_runs/{run}/checkpoints/{kind}/{name}/publish': {
    source: 'lib/public_interfaces/rest_client.py',
    noBody: true,
  },
  'DELETE /api/v1/training_runs/{run}/checkpoints/{kind}/{name}/publish': {
    source: 'lib/public_interfaces/rest_client.py',
    noBody: true,
  },
  'PUT /api/v1/training_runs/{run}/checkpoints/{kind}/{name}/ttl': {
    source: 'lib/public_interfaces/rest_client.py (body {ttl_seconds})',
    body: z.strictObject({ ttl_seconds: int().nullable() }),
  },
  'GET /api/v1/training_runs/{run}/checkpoints/{kind}/{name}/archive': {
    source: 'resources/weights.py (Accept: application/json, redirects not followed)',
    noBody: true,
  },
  'GET /api/v1/checkpoints': {
    source: 'lib/public_interfaces/rest_client.py list_user_checkpoints',
    noBody: true,
    query: z.strictObject(page),
  },
  'GET /api/v1/samplers/{id}': { source: 'lib/public_interfaces/rest_client.py', noBody: true },
  'GET /api/v1/sessions': {
    source: 'lib/public_interfaces/rest_client.py list_sessions',
    noBody: true,
    query: z.strictObject({ ...page, access_scope: scope }),
  },
  'GET /api/v1/sessions/{id}': {
    source: 'lib/public_interfaces/rest_client.py get_session',
    noBody: true,
    query: z.strictObject({ access_scope: scope }),
  },
  'PUT /api/v1/sessions/{id}/project': {
    source: 'lib/public_interfaces/rest_client.py assign_session_project',
    body: z.strictObject({ project_id: str() }),
  },
  'GET /api/v1/sessions/{id}/trace_export': { source: 'lib/public_interfaces/rest_client.py', noBody: true },
  'GET /api/v1/audit': {
    source: 'lib/public_interfaces/rest_client.py get_audit_log',
    noBody: true,
    query: z.strictObject({ event_type: z.enum(['all', 'checkpoints']), day: str().optional() }),
  },
  'GET /api/v1/billing/usage/events': {
    source: 'types/billing_usage_request.py',
    noBody: true,
    query: z.strictObject({ starting_on: str(), ending_before: str() }),
  },
};

/** The route pattern a concrete `METHOD path` belongs to, or undefined for none. */
export function routeKey(method: string, path: string): string | undefined {
  const exact = `${method} ${path}`;
  if (ROUTE_CONTRACTS[exact]) return exact;
  const segs = path.split('/');
  for (const key of Object.keys(ROUTE_CONTRACTS)) {
    const [m, p] = key.split(' ') as [string, string];
    if (m !== method) continue;
    const pat = p.split('/');
    if (pat.length === segs.length && pat.every((s, i) => s.startsWith('{') || s === segs[i])) return key;
  }
  return undefined;
}

/** One request as a client sent it. */
export interface RecordedWireRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  body: Uint8Array;
}

/**
 * Header rules (SDK 0.25.0 `_base_client.py`, `_client.py`, `lib/api_future_impl.py`): every request carries the
 * credential in `X-API-Key` and `X-Stainless-Retry-Count`; every non-GET request an `X-Idempotency-Key` and a
 * `Content-Type` (JSON, or protobuf for forward_backward); a poll for a Sample / Forward / ForwardBackward result
 * asks for protobuf.
 */
function headerProblems(r: RecordedWireRequest, key: string): string[] {
  const p: string[] = [];
  const h = r.headers;
  if (!h['x-api-key']) p.push('no X-API-Key');
  if (h['x-stainless-retry-count'] === undefined) p.push('no X-Stainless-Retry-Count');
  if (r.method !== 'GET') {
    if (!h['x-idempotency-key']) p.push('no X-Idempotency-Key');
    const want = key === 'POST /api/v1/forward_backward' ? PROTO_CONTENT_TYPE : 'application/json';
    if (h['content-type'] !== want) p.push(`Content-Type ${h['content-type']}, expected ${want}`);
  }
  if (key === 'POST /api/v1/retrieve_future') {
    const type = h['x-tinker-request-type'];
    if (!type) p.push('no X-Tinker-Request-Type');
    if (h['x-tinker-request-iteration'] === undefined) p.push('no X-Tinker-Request-Iteration');
    const wantsProto = type === 'Sample' || type === 'Forward' || type === 'ForwardBackward';
    if (wantsProto && h.accept !== PROTO_CONTENT_TYPE) p.push(`Accept ${h.accept} for a ${type} result`);
  }
  return p;
}

/** The contract violations of one request (empty when it conforms). */
export function checkRequest(r: RecordedWireRequest): string[] {
  const key = routeKey(r.method, r.path);
  if (key === undefined) return [`${r.method} ${r.path}: no such route in SDK ${CONTRACT_SDK_VERSION}`];
  const c = ROUTE_CONTRACTS[key]!;
  const where = `${r.method} ${r.path}`;
  const problems = headerProblems(r, key).map((m) => `${where}: ${m}`);
  if (c.protoBody) {
    let bytes = r.body;
    if (r.headers['content-encoding'] === 'zstd') {
      try {
        bytes = decompress(r.body);
      } catch (err) {
        problems.push(`${where}: Content-Encoding zstd, but ${err instanceof Error ? err.message : String(err)}`);
      }
    } else if (r.headers['content-encoding'] !== undefined) {
      problems.push(`${where}: Content-Encoding ${r.headers['content-encoding']} (the SDK sends zstd or none)`);
    }
    problems.push(...c.protoBody(bytes).map((m) => `${where}: ${m}`));
  } else if (c.noBody) {
    if (r.body.length > 0) problems.push(`${where}: a body on a route that takes none`);
  } else if (c.body) {
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder().decode(r.body));
    } catch {
      problems.push(`${where}: the body is not JSON`);
    }
    if (json !== undefined) {
      const res = c.body.safeParse(json);
      if (!res.success) {
        for (const issue of res.error.issues) {
          const field = issue.path.join('.');
          const extra = issue.code === 'unrecognized_keys' ? ` ${issue.keys.join(', ')}` : '';
          problems.push(`${where}: ${field ? `${field}: ` : ''}${issue.message}${extra}`);
        }
      }
    }
  }
  if (c.query) {
    const res = c.query.safeParse(r.query);
    if (!res.success) {
      for (const issue of res.error.issues) problems.push(`${where}: query ${issue.path.join('.')}: ${issue.message}`);
    }
  } else if (Object.keys(r.query).length > 0) {
    problems.push(`${where}: query parameters on a route that takes none`);
  }
  return problems;
}
