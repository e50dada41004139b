/**
 * Errors in the OpenAI API's shape: `{ error: { message, type, param, code } }` with the HTTP status OpenAI uses
 * (400 invalid_request_error, 401 authentication_error / invalid_api_key, 404 model_not_found, 413, 429, 500, 503).
 * A Tinker service's failure keeps its status and message, so a bound of the service (num_samples, max_tokens,
 * stop sequences, the sample memory) reaches the OpenAI client as the service worded it.
 */
import { CookbookError } from '@cookbook/core';
import { APIConnectionError, APIError } from '@cookbook/tinker-client';

/** The `error` object of an OpenAI error body. */
export interface OpenAIErrorObject {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** An error answered in OpenAI's shape. */
export class OpenAIHttpError extends CookbookError {
  override name = 'OpenAIHttpError';
  readonly status: number;
  readonly type: string;
  readonly param: string | null;
  readonly code: string | null;
  constructor(
    status: number,
    message: string,
    options: { type?: string; param?: string | null; code?: string | null; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    this.status = status;
    this.type = options.type ?? errorType(status);
    this.param = options.param ?? null;
    this.code = options.code ?? null;
  }

  toBody(): { error: OpenAIErrorObject } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** OpenAI's `type` for a status. */
export function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'invalid_request_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return status === 503 ? 'service_unavailable_error' : 'server_error';
  return 'invalid_request_error';
}

/** The body of an error with `status` and `message` (what the HTTP layer answers before the routes run). */
export function openAIErrorBody(status: number, message: string): { error: OpenAIErrorObject } {
  return new OpenAIHttpError(status, message).toBody();
}

/**
 * An error of any kind as an {@link OpenAIHttpError}: a Tinker `APIError` keeps its status and message (a
 * connection failure becomes 502), a `CookbookError` (a renderer that cannot render the conversation, a tool
 * declaration it refuses) is the request's fault (400); anything else is a 500 whose detail the caller logs.
 */
export function toOpenAIError(err: unknown): OpenAIHttpError {
  if (err instanceof OpenAIHttpError) return err;
  if (err instanceof APIConnectionError) {
    return new OpenAIHttpError(502, `the Tinker service did not answer: ${err.message}`, { cause: err });
  }
  if (err instanceof APIError) {
    const status = err.status ?? 502;
    return new OpenAIHttpError(status >= 400 && status < 600 ? status : 502, `Tinker service: ${err.message}`, {
      cause: err,
    });
  }
  if (err instanceof CookbookError) return new OpenAIHttpError(400, err.message, { cause: err });
  return new OpenAIHttpError(500, 'internal error (logged by the server)', { cause: err });
}
