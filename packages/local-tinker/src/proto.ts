/**
 * The service's side of the protobuf protocol: the codec itself lives once in `@cookbook/tinker-wire` (shared with
 * the client); this file maps its failures to HTTP 400 and picks which future results travel as protobuf.
 */
import {
  decodeForwardBackwardRequest as decodeWire,
  encodeForwardBackwardOutput,
  encodeSampleResponse,
  PROTO_CONTENT_TYPE,
} from '@cookbook/tinker-wire';
import { HttpError } from './http-errors.js';

const fail = (message: string): never => {
  throw new HttpError(400, message);
};

/** Decode a (decompressed) protobuf forward_backward body into the JSON request shape the service validates. */
export function decodeForwardBackwardRequest(bytes: Uint8Array): { body: unknown; forwardOnly: boolean } {
  const { forwardOnly, body } = decodeWire(bytes, fail);
  return {
    forwardOnly,
    body: forwardOnly
      ? { forward_input: body.forward_backward_input, model_id: body.model_id, seq_id: body.seq_id }
      : body,
  };
}

/** True when the poller accepts protobuf results. */
export function wantsProto(accept: string | undefined): boolean {
  return accept?.includes(PROTO_CONTENT_TYPE) === true;
}

/** Encode a future's JSON result as protobuf when it is a ForwardBackwardOutput or a SampleResponse. */
export function encodeResult(requestType: string, json: unknown): Uint8Array | undefined {
  if (json === null || typeof json !== 'object') return undefined;
  const o = json as Record<string, unknown>;
  if ((requestType === 'ForwardBackward' || requestType === 'Forward') && Array.isArray(o.loss_fn_outputs)) {
    return encodeForwardBackwardOutput(o as Parameters<typeof encodeForwardBackwardOutput>[0]);
  }
  if (requestType === 'Sample' && Array.isArray(o.sequences)) {
    return encodeSampleResponse(o as Parameters<typeof encodeSampleResponse>[0]);
  }
  return undefined;
}
