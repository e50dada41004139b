/**
 * Reading a request body into the value the routes take: zstd, the byte scans that bound what parsing allocates,
 * `JSON.parse` or the protobuf decode, and for the routes whose bodies can be large (forward_backward, forward,
 * asample) the route's own count checks and schema. Pure: it runs on the HTTP thread for small bodies and in a
 * decoder worker (`body-decoder-pool.ts`) for large ones, with the same messages either way.
 *
 * A failure of the decode itself (bad JSON, too deep, an unknown encoding) is the HTTP layer's and is answered at
 * once, before auth, as always. A failure of a route's check is the route's: it is carried to the route as a small
 * stand-in body holding only `model_id` and `seq_id` and marked with the refusal ({@link markChecked}), so the route
 * answers it in its usual place: after auth and the shutdown check, with the seq_id consumed.
 */
import {
  ForwardBackwardRequestSchema,
  ForwardRequestSchema,
  SampleRequestSchema,
  type WireSampleRequest,
} from '@cookbook/tinker-wire';
import type { z } from 'zod';
import { HttpError, parseBody } from './http-errors.js';
import {
  checkInputCounts,
  checkLimit,
  checkStops,
  countChunks,
  field,
  type ServiceLimits,
  scanJson,
} from './limits.js';
import { decodeForwardBackwardRequest } from './proto.js';
import { scanForwardBackwardProto } from './proto-scan.js';
import { decompressZstd } from './zstd.js';

/** One body to decode. */
export interface DecodeTask {
  bytes: Uint8Array;
  /** `Content-Encoding: zstd`: decompressed first (bounded by `limits.maxBodyBytes`). */
  zstd: boolean;
  /** `Content-Type: application/x-protobuf`. */
  proto: boolean;
  method: string;
  /** Request path, `/api/v1/...` (trailing slashes removed). */
  path: string;
  /** The path belongs to mounted routes (JSON only; they validate their own bodies). */
  mounted: boolean;
  limits: ServiceLimits;
}

/** What a route's checks found: nothing (the body is the schema's output) or the refusal the route will answer. */
export interface RouteRefusal {
  status: number;
  message: string;
}

/** The decoded body, or the HTTP layer's error. */
export type DecodeOutcome =
  | {
      ok: true;
      /** The body the route receives (the schema's output, or a stand-in when `refusal` is set). */
      body: unknown;
      /** The path the route is found by (a protobuf forward-only request becomes `/api/v1/forward`). */
      path: string;
      /** `METHOD path` of the route whose checks ran ({@link ROUTE_CHECKS}), when they did. */
      checked?: string;
      refusal?: RouteRefusal;
    }
  | { ok: false; status: number; message: string };

interface RouteCheck {
  schema: z.ZodType;
  /** The route's checks, in its order, up to and including its schema; returns the schema's output. */
  run(body: unknown, limits: ServiceLimits): unknown;
}

/** The checks of the routes whose bodies may be large, run where the body is decoded. */
export const ROUTE_CHECKS: Readonly<Record<string, RouteCheck>> = {
  'POST /api/v1/forward_backward': {
    schema: ForwardBackwardRequestSchema,
    run(body, limits) {
      checkInputCounts(limits, field(body, 'forward_backward_input'), 'forward_backward_input');
      return parseBody(ForwardBackwardRequestSchema, body, 'forward_backward');
    },
  },
  'POST /api/v1/forward': {
    schema: ForwardRequestSchema,
    run(body, limits) {
      checkInputCounts(limits, field(body, 'forward_input'), 'forward_input');
      return parseBody(ForwardRequestSchema, body, 'forward');
    },
  },
  'POST /api/v1/asample': {
    schema: SampleRequestSchema,
    run(body, limits) {
      countChunks(limits, field(field(body, 'prompt'), 'chunks'), 'prompt');
      const b: WireSampleRequest = parseBody(SampleRequestSchema, body, 'asample');
      // The route's checks right after its schema (pure, on the parsed request): the stop list is bounded here, before
      // the million-string body would be copied to the HTTP thread.
      checkLimit(limits, 'maxNumSamples', 'num_samples', b.num_samples);
      checkLimit(limits, 'maxTopkPromptLogprobs', 'topk_prompt_logprobs', b.topk_prompt_logprobs);
      const p = b.sampling_params;
      if (p.max_tokens !== undefined) checkLimit(limits, 'maxTokens', 'sampling_params.max_tokens', p.max_tokens);
      checkStops(limits, p.stop);
      return b;
    },
  },
};

/** Decode `task` (see the file comment). Never throws an HttpError: it becomes `{ok: false}` or a refusal. */
export function decodeBody(task: DecodeTask): DecodeOutcome {
  let body: unknown;
  let path = task.path;
  try {
    let raw = task.bytes;
    if (task.zstd && raw.length > 0) raw = decompressZstd(raw, task.limits.maxBodyBytes);
    if (raw.length === 0) return { ok: true, body: undefined, path };
    if (task.proto) {
      if (task.mounted || path !== '/api/v1/forward_backward') throw new HttpError(415, `${path} accepts JSON only`);
      scanForwardBackwardProto(raw, task.limits);
      const decoded = decodeForwardBackwardRequest(raw);
      body = decoded.body;
      if (decoded.forwardOnly) path = '/api/v1/forward';
    } else {
      scanJson(raw, task.limits);
      try {
        body = JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
      } catch (err) {
        throw new HttpError(400, `request body is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  } catch (err) {
    if (err instanceof HttpError) return { ok: false, status: err.status, message: err.message };
    throw err;
  }
  const key = `${task.method} ${path}`;
  const check = task.mounted ? undefined : ROUTE_CHECKS[key];
  if (check === undefined) return { ok: true, body, path };
  try {
    return { ok: true, body: check.run(body, task.limits), path, checked: key };
  } catch (err) {
    if (!(err instanceof HttpError)) throw err;
    return {
      ok: true,
      body: seqStandIn(body),
      path,
      checked: key,
      refusal: { status: err.status, message: err.message },
    };
  }
}

/** The body's `model_id` and `seq_id` (what a refused request still needs: its seq_id is consumed). */
function seqStandIn(body: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const modelId = field(body, 'model_id');
  const seqId = field(body, 'seq_id');
  if (typeof modelId === 'string') out.model_id = modelId;
  if (typeof seqId === 'number') out.seq_id = seqId;
  return out;
}
