/**
 * Which protocol the client speaks with a server, chosen from what the server answers, never guessed:
 * - `proto` (SDK 0.25.0): the server answered `client/config`. forward_backward is a protobuf
 *   `ForwardBackwardRequest` (zstd-compressed when `proto_compress_fwdbwd`), a forward pass is forward_backward with
 *   `forward_only`, and Sample / Forward / ForwardBackward results are asked for as protobuf.
 * - `json` (SDK 0.16.1): the server has no `client/config` route (404): JSON `/forward` and `/forward_backward`
 *   bodies and JSON results, as the last SDK that never asked for `client/config` sent them.
 * The codec is the shared one of `@cookbook/tinker-wire`.
 */
import {
  decodeForwardBackwardOutput,
  decodeSampleResponse,
  encodeForwardBackwardRequest,
  type ForwardBackwardProtoRequest,
  PROTO_CONTENT_TYPE,
} from '@cookbook/tinker-wire';
import { APIError } from '../errors.js';
import { LEGACY_SDK_VERSION, SDK_VERSION } from '../http.js';

export type ProtocolMode = 'proto' | 'json';

/** The `sdk_version` announced in `create_session` for a protocol mode. */
export function sdkVersionFor(mode: ProtocolMode): string {
  return mode === 'proto' ? SDK_VERSION : LEGACY_SDK_VERSION;
}

const fail = (message: string): never => {
  throw new APIError(`protobuf: ${message}`);
};

/** Reads a protobuf ForwardBackwardOutput result into its JSON shape. */
export const decodeForwardBackwardResult = (bytes: Uint8Array): unknown => decodeForwardBackwardOutput(bytes, fail);

/** Reads a protobuf SampleResponse result into its JSON shape. */
export const decodeSampleResult = (bytes: Uint8Array): unknown => decodeSampleResponse(bytes, fail);

/** The zstd compressor (WebAssembly), loaded on first use: only servers that set `proto_compress_fwdbwd` need it. */
let zstd: Promise<typeof import('@bokuweb/zstd-wasm')> | undefined;

/** zstd level of compressed bodies (zstandard's default, as the SDK's `ZstdCompressor()` uses). */
const ZSTD_LEVEL = 3;

/**
 * The protobuf body of one forward_backward chunk (SDK 0.25.0 `resources/training.py`): `application/x-protobuf`,
 * zstd-compressed with `Content-Encoding: zstd` when the server's `proto_compress_fwdbwd` flag is set.
 */
export async function forwardBackwardBody(
  request: ForwardBackwardProtoRequest,
  compressBody: boolean,
): Promise<{ data: Uint8Array; contentType: string; contentEncoding?: string }> {
  const data = encodeForwardBackwardRequest(request, fail);
  if (!compressBody) return { data, contentType: PROTO_CONTENT_TYPE };
  zstd ??= import('@bokuweb/zstd-wasm').then(async (m) => {
    await m.init();
    return m;
  });
  const { compress } = await zstd;
  return { data: compress(data, ZSTD_LEVEL), contentType: PROTO_CONTENT_TYPE, contentEncoding: 'zstd' };
}
