/**
 * The service's request and reply shapes and how failures become HTTP statuses: `HttpError` (status + `{detail}`),
 * body parsing with a 400 that names the route and field, and checkpoint-path parsing.
 */
import { CookbookError } from '@cookbook/core';
import { splitCheckpointPath } from '@cookbook/tinker-wire';
import type { z } from 'zod';
import { FutureFailure } from './futures.js';
import type { CheckpointKind } from './storage.js';

/** A request as the service sees it. */
export interface ServiceRequest {
  method: string;
  /** Path including `/api/v1`. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (undefined when empty). */
  body: unknown;
  /** Raw bytes when the body is not JSON (protobuf). */
  rawBody?: Uint8Array;
  signal?: AbortSignal;
}

/** A reply. */
export interface ServiceReply {
  status: number;
  json?: unknown;
  bytes?: Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
}

/** An error that becomes an HTTP status with `{detail}`. */
export class HttpError extends CookbookError {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A 200 reply with a JSON body. */
export const ok = (json: unknown): ServiceReply => ({ status: 200, json });

/** The reply to a submitted operation: its future's id (and the model it runs on). */
export function futureReply(requestId: string, modelId?: string): ServiceReply {
  return ok(modelId === undefined ? { request_id: requestId } : { request_id: requestId, model_id: modelId });
}

/** A failed future the user caused (bad input found while running). */
export const userError = (message: string) => new FutureFailure(message, 'user');

/** Bodies already checked against a schema where they were decoded (a decoder worker), with the refusal if any. */
const checkedBodies = new WeakMap<object, { schema: z.ZodType; refusal: HttpError | undefined }>();

/**
 * Marks `body` as the output of `schema` (or, with `refusal`, as the stand-in of a body the route's checks refused):
 * {@link parseBody} with that schema then returns it as is (or throws the refusal) instead of validating it again.
 */
export function markChecked(body: object, schema: z.ZodType, refusal?: HttpError): void {
  checkedBodies.set(body, { schema, refusal });
}

/** Parses a JSON body with `schema`, or a 400 naming the route and the first bad field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, route: string): z.infer<S> {
  if (body === undefined) throw new HttpError(400, `${route}: the request body must be a JSON object`);
  const checked = typeof body === 'object' && body !== null ? checkedBodies.get(body) : undefined;
  if (checked !== undefined && checked.schema === schema) {
    if (checked.refusal !== undefined) throw checked.refusal;
    return body as z.infer<S>;
  }
  const r = schema.safeParse(body);
  if (r.success) return r.data as z.infer<S>;
  const issue = r.error.issues[0]!;
  const field = issue.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : String(p)))
    .join('.')
    .replace(/\.\[/g, '[');
  throw new HttpError(400, `${route}: field "${field || '(body)'}": ${issue.message}`);
}

/** `tinker://<run>/<kind>/<name>` → parts, or an HttpError naming the path. */
export function parseCheckpointPath(path: string): { runId: string; kind: CheckpointKind; name: string } {
  const parts = splitCheckpointPath(path);
  if (!parts) {
    throw new HttpError(
      400,
      `"${path}" is not a checkpoint path (tinker://<run>/weights/<name> or tinker://<run>/sampler_weights/<name>)`,
    );
  }
  return parts;
}

/**
 * The refusal of an image (or other non-text) chunk: the embedded engines are text-only. A 400 naming the chunk and
 * the model, saying where images work.
 */
export function nonTextChunkError(where: string, chunkType: string, modelName: string): HttpError {
  return new HttpError(
    400,
    `${where}: ${chunkType} chunks cannot be read by model "${modelName}" on this embedded service (its engines are ` +
      'text-only); images need a vision model (Qwen3-VL, Qwen3.5 / 3.6 / 3.8, Kimi K2.5 / K2.6) on the hosted Tinker ' +
      'service (set TINKER_BASE_URL / base_url)',
  );
}
