/**
 * The protobuf side of the protocol (tinker-api.md §3.9), one schema for both ends: the client encodes
 * `forward_backward` request bodies and decodes `ForwardBackwardOutput` / `SampleResponse` results; the service
 * decodes the requests and encodes the results. Field numbers and enum values follow the official SDK's
 * `tinker_public` descriptor (SDK 0.25.0 `proto/tinker_public_pb2.py`); the request is built as SDK 0.25.0
 * `proto/request_conv.py` builds it (tokens as int32, tensors in their declared dtype, CSR indices as int64) and
 * results are read as `proto/response_conv.py` reads them (int32 widened to int64, bfloat16 to float32, per-datum
 * byte offsets, `module:` prefixes stripped). Packed numeric arrays are little-endian bytes.
 *
 * Decoders take a `fail(message)` that throws: the service answers 400, the client raises its own error type.
 */
import protobuf from 'protobufjs';
import { DTYPE_BY_KEY, type WireForwardBackwardInput, type WireTensorData } from './data-types.js';
import type { WireForwardBackwardOutput, WireSampleResponse } from './wire.js';

/** The content type of every protobuf body and result. */
export const PROTO_CONTENT_TYPE = 'application/x-protobuf';

/** Throws; what a decoder calls on malformed bytes. */
export type ProtoFail = (message: string) => never;

const PROTO = `
syntax = "proto3";
package tinker_public;
enum StopReason { STOP_REASON_STOP = 0; STOP_REASON_LENGTH = 1; }
enum DType { DTYPE_UNSPECIFIED = 0; DTYPE_FLOAT32 = 1; DTYPE_INT64 = 2; DTYPE_INT32 = 3; DTYPE_BFLOAT16 = 4; }
message EncodedTextChunk { bytes tokens = 1; }
message ImageChunk { bytes data = 1; string format = 2; optional int32 expected_tokens = 3; }
message DmelChunk { bytes dmel = 1; }
message Chunk { oneof chunk { EncodedTextChunk encoded_text = 1; ImageChunk image = 2; DmelChunk dmel = 3; } }
message SparseCsr { bytes values = 1; bytes crow_indices = 2; bytes col_indices = 3; }
message Tensor { oneof encoding { bytes dense = 1; SparseCsr sparse_csr = 2; } DType dtype = 3; repeated int64 shape = 4; }
message Datum { repeated Chunk model_input = 1; map<string, Tensor> loss_fn_inputs = 2; }
message ForwardBackwardRequest {
  string model_id = 1; int32 seq_id = 2; repeated Datum data = 3; string loss_fn = 4;
  map<string, double> loss_fn_config = 5; bool forward_only = 6;
}
message BatchedTensor { bytes data = 1; bytes offsets = 2; DType dtype = 3; repeated int64 trailing_shape = 4; }
message ArrayRecord { string type_tag = 1; map<string, BatchedTensor> fields = 2; int64 num_datums = 3; }
message ForwardBackwardOutput { string loss_fn_output_type = 1; repeated ArrayRecord loss_fn_outputs = 2; map<string, double> metrics = 3; }
message SampledSequence { StopReason stop_reason = 1; bytes tokens = 2; optional bytes logprobs = 3; }
message TopkPromptLogprobs { bytes token_ids = 1; bytes logprobs = 2; uint32 k = 3; uint32 prompt_length = 4; }
message SampleResponse {
  repeated SampledSequence sequences = 1; optional bytes prompt_logprobs = 2;
  optional TopkPromptLogprobs topk_prompt_logprobs = 3; int32 prompt_cache_hit_tokens = 4;
}
`;

const root = protobuf.parse(PROTO, { keepCase: true }).root;
// Resolves proto3 defaults (packed repeated scalars, as the SDK's encoder writes them) before the first use.
root.resolveAll();
export const ForwardBackwardRequestProto = root.lookupType('tinker_public.ForwardBackwardRequest');
export const ForwardBackwardOutputProto = root.lookupType('tinker_public.ForwardBackwardOutput');
export const SampleResponseProto = root.lookupType('tinker_public.SampleResponse');

/** `DType` enum values. */
export const PROTO_DTYPE = { FLOAT32: 1, INT64: 2, INT32: 3, BFLOAT16: 4 } as const;

/** The empty cell of a top-k row, and the marker of an undefined row (SDK `types/sample_response.py`). */
const TOPK_EMPTY_LOGPROB = -99999;

function view(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** Little-endian bytes of `dtype` to numbers. */
export function decodeNumbers(bytes: Uint8Array, dtype: number, what: string, fail: ProtoFail): number[] {
  const width = dtype === PROTO_DTYPE.INT64 ? 8 : dtype === PROTO_DTYPE.BFLOAT16 ? 2 : 4;
  if (
    dtype !== PROTO_DTYPE.FLOAT32 &&
    dtype !== PROTO_DTYPE.INT64 &&
    dtype !== PROTO_DTYPE.INT32 &&
    dtype !== PROTO_DTYPE.BFLOAT16
  ) {
    fail(`${what}: unsupported dtype ${dtype}`);
  }
  if (bytes.length % width !== 0) fail(`${what}: ${bytes.length} bytes is not a whole number of ${width}-byte values`);
  const v = view(bytes);
  const out = new Array<number>(bytes.length / width);
  const f = new DataView(new ArrayBuffer(4));
  for (let o = 0, i = 0; o < bytes.length; o += width, i++) {
    if (dtype === PROTO_DTYPE.FLOAT32) out[i] = v.getFloat32(o, true);
    else if (dtype === PROTO_DTYPE.INT32) out[i] = v.getInt32(o, true);
    else if (dtype === PROTO_DTYPE.INT64) out[i] = Number(v.getBigInt64(o, true));
    else {
      f.setUint16(0, v.getUint16(o, true));
      f.setUint16(2, 0);
      out[i] = f.getFloat32(0);
    }
  }
  return out;
}

/** Numbers to little-endian float32 bytes. */
export function encodeFloat32(values: ArrayLike<number>): Uint8Array {
  const b = new Uint8Array(values.length * 4);
  const v = view(b);
  for (let i = 0; i < values.length; i++) v.setFloat32(i * 4, values[i]!, true);
  return b;
}

/** Integers to little-endian int32 bytes. */
export function encodeInt32(values: ArrayLike<number>): Uint8Array {
  const b = new Uint8Array(values.length * 4);
  const v = view(b);
  for (let i = 0; i < values.length; i++) v.setInt32(i * 4, values[i]!, true);
  return b;
}

/** Integers to little-endian int64 bytes. */
export function encodeInt64(values: ArrayLike<number>): Uint8Array {
  const b = new Uint8Array(values.length * 8);
  const v = view(b);
  for (let i = 0; i < values.length; i++) v.setBigInt64(i * 8, BigInt(Math.trunc(values[i]!)), true);
  return b;
}

const num = (x: number | { toNumber(): number }) => (typeof x === 'number' ? x : x.toNumber());

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.length;
  }
  return out;
}

function base64Bytes(s: string): Uint8Array {
  return new Uint8Array(Buffer.from(s, 'base64'));
}

// ---------------------------------------------------------------- forward_backward request

/** A forward_backward call as the protobuf body carries it (forward when `forward_only`). */
export interface ForwardBackwardProtoRequest {
  model_id: string;
  seq_id: number;
  forward_backward_input: WireForwardBackwardInput;
  forward_only: boolean;
}

function tensorToProto(t: WireTensorData): Record<string, unknown> {
  const dtype = t.dtype === 'int64' ? PROTO_DTYPE.INT64 : PROTO_DTYPE.FLOAT32;
  const values = t.dtype === 'int64' ? encodeInt64(t.data) : encodeFloat32(t.data);
  const msg: Record<string, unknown> = { dtype };
  if (t.shape !== undefined) msg.shape = t.shape;
  if (t.sparse_crow_indices !== undefined) {
    msg.sparse_csr = {
      values,
      crow_indices: encodeInt64(t.sparse_crow_indices),
      col_indices: encodeInt64(t.sparse_col_indices ?? []),
    };
  } else msg.dense = values;
  return msg;
}

/**
 * The protobuf body of a forward_backward call, as SDK 0.25.0 `proto/request_conv.py` builds it. Only chunk kinds
 * the message can carry are accepted: `image_asset_pointer` cannot travel in protobuf (it calls `fail`).
 */
export function encodeForwardBackwardRequest(req: ForwardBackwardProtoRequest, fail: ProtoFail): Uint8Array {
  const input = req.forward_backward_input;
  const data = input.data.map((d, i) => ({
    model_input: d.model_input.chunks.map((c, j) => {
      if (c.type === 'encoded_text') return { encoded_text: { tokens: encodeInt32(c.tokens) } };
      if (c.type === 'image') {
        return {
          image: {
            data: base64Bytes(c.data),
            format: c.format,
            ...(c.expected_tokens !== undefined ? { expected_tokens: c.expected_tokens } : {}),
          },
        };
      }
      if (c.type === 'dmel') return { dmel: { dmel: base64Bytes(c.dmel) } };
      return fail(
        `data[${i}].model_input.chunks[${j}]: a ${c.type} chunk cannot be sent in a protobuf forward_backward`,
      );
    }),
    loss_fn_inputs: Object.fromEntries(Object.entries(d.loss_fn_inputs).map(([k, t]) => [k, tensorToProto(t)])),
  }));
  const cfg: Record<string, number> = {};
  for (const [k, v] of Object.entries(input.loss_fn_config ?? {})) {
    const n = typeof v === 'number' ? v : Number(v);
    if (!Number.isFinite(n)) fail(`loss_fn_config.${k}: ${JSON.stringify(v)} is not a number`);
    cfg[k] = n;
  }
  const msg = ForwardBackwardRequestProto.fromObject({
    model_id: req.model_id,
    seq_id: req.seq_id,
    data,
    loss_fn: input.loss_fn,
    loss_fn_config: cfg,
    // proto3 leaves a default out; the SDK's encoder writes `forward_only` only when true.
    ...(req.forward_only ? { forward_only: true } : {}),
  });
  return ForwardBackwardRequestProto.encode(msg).finish();
}

interface ProtoTensor {
  dense?: Uint8Array;
  sparse_csr?: { values?: Uint8Array; crow_indices?: Uint8Array; col_indices?: Uint8Array };
  dtype?: number;
  shape?: (number | { toNumber(): number })[];
}

interface ProtoChunk {
  encoded_text?: { tokens: Uint8Array };
  image?: { data: Uint8Array; format: string; expected_tokens?: number };
  dmel?: { dmel: Uint8Array };
}

/**
 * Decode a (decompressed) protobuf forward_backward body into the JSON request shape: `{forward_backward_input,
 * model_id, seq_id}` and whether it is `forward_only`. A tensor whose dtype is unspecified takes the dtype its key
 * implies (`DTYPE_BY_KEY`).
 */
export function decodeForwardBackwardRequest(
  bytes: Uint8Array,
  fail: ProtoFail,
): {
  forwardOnly: boolean;
  body: { forward_backward_input: unknown; model_id: string; seq_id: number };
} {
  let msg: Record<string, unknown>;
  try {
    msg = ForwardBackwardRequestProto.toObject(ForwardBackwardRequestProto.decode(bytes), {
      defaults: true,
    }) as Record<string, unknown>;
  } catch (err) {
    return fail(
      `cannot decode the protobuf ForwardBackwardRequest: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const data = (msg.data as { model_input: ProtoChunk[]; loss_fn_inputs: Record<string, ProtoTensor> }[]).map(
    (d, i) => ({
      model_input: {
        chunks: d.model_input.map((c, j) => {
          const where = `data[${i}].model_input[${j}]`;
          if (c.encoded_text)
            return {
              type: 'encoded_text',
              tokens: decodeNumbers(c.encoded_text.tokens, PROTO_DTYPE.INT32, where, fail),
            };
          if (c.image) {
            return {
              type: 'image',
              data: Buffer.from(c.image.data).toString('base64'),
              format: c.image.format,
              ...(c.image.expected_tokens !== undefined && c.image.expected_tokens !== null
                ? { expected_tokens: c.image.expected_tokens }
                : {}),
            };
          }
          if (c.dmel) return { type: 'dmel', dmel: Buffer.from(c.dmel.dmel).toString('base64') };
          return fail(`${where}: a chunk with no kind set`);
        }),
      },
      loss_fn_inputs: Object.fromEntries(
        Object.entries(d.loss_fn_inputs).map(([key, t]) => {
          const dtype = t.dtype || (DTYPE_BY_KEY[key] === 'int64' ? PROTO_DTYPE.INT64 : PROTO_DTYPE.FLOAT32);
          const where = `data[${i}].loss_fn_inputs.${key}`;
          const shape = (t.shape ?? []).map(num);
          const wireDtype = dtype === PROTO_DTYPE.INT64 || dtype === PROTO_DTYPE.INT32 ? 'int64' : 'float32';
          if (t.sparse_csr) {
            const empty = new Uint8Array();
            return [
              key,
              {
                data: decodeNumbers(t.sparse_csr.values ?? empty, dtype, where, fail),
                dtype: wireDtype,
                shape,
                sparse_crow_indices: decodeNumbers(t.sparse_csr.crow_indices ?? empty, PROTO_DTYPE.INT64, where, fail),
                sparse_col_indices: decodeNumbers(t.sparse_csr.col_indices ?? empty, PROTO_DTYPE.INT64, where, fail),
              },
            ];
          }
          const values = decodeNumbers(t.dense ?? new Uint8Array(), dtype, where, fail);
          return [key, { data: values, dtype: wireDtype, ...(shape.length > 0 ? { shape } : {}) }];
        }),
      ),
    }),
  );
  const cfg = msg.loss_fn_config as Record<string, number>;
  return {
    forwardOnly: Boolean(msg.forward_only),
    body: {
      forward_backward_input: {
        data,
        loss_fn: msg.loss_fn,
        ...(Object.keys(cfg).length > 0 ? { loss_fn_config: cfg } : {}),
      },
      model_id: String(msg.model_id),
      seq_id: Number(msg.seq_id),
    },
  };
}

// ---------------------------------------------------------------- results

/** Encode a JSON ForwardBackwardOutput as one batched `ArrayRecord` (what the service answers). */
export function encodeForwardBackwardOutput(o: {
  loss_fn_output_type?: string;
  loss_fn_outputs: Record<string, { data: number[]; dtype: string; shape?: number[] }>[];
  metrics?: Record<string, number>;
}): Uint8Array {
  const outputs = o.loss_fn_outputs;
  const keys = outputs.length > 0 ? Object.keys(outputs[0]!) : [];
  const fields: Record<string, unknown> = {};
  for (const key of keys) {
    const parts = outputs.map((d) => d[key]!);
    const first = parts[0]!;
    const isInt = first.dtype === 'int64';
    const offsets: number[] = [0];
    const chunks: Uint8Array[] = [];
    for (const t of parts) {
      const b = isInt ? encodeInt64(t.data) : encodeFloat32(t.data);
      chunks.push(b);
      offsets.push(offsets.at(-1)! + b.length);
    }
    fields[key] = {
      data: concat(chunks),
      offsets: encodeInt64(offsets),
      dtype: isInt ? PROTO_DTYPE.INT64 : PROTO_DTYPE.FLOAT32,
      trailing_shape: (first.shape ?? [first.data.length]).slice(1),
    };
  }
  const msg = ForwardBackwardOutputProto.fromObject({
    loss_fn_output_type: o.loss_fn_output_type ?? 'ArrayRecord',
    loss_fn_outputs: [{ type_tag: 'ArrayRecord', fields, num_datums: outputs.length }],
    metrics: o.metrics ?? {},
  });
  return ForwardBackwardOutputProto.encode(msg).finish();
}

interface ProtoBatched {
  data: Uint8Array;
  offsets: Uint8Array;
  dtype: number;
  trailing_shape: (number | { toNumber(): number })[];
}

/** Decode a protobuf ForwardBackwardOutput into its JSON shape (SDK 0.25.0 `proto/response_conv.py`). */
export function decodeForwardBackwardOutput(bytes: Uint8Array, fail: ProtoFail): WireForwardBackwardOutput {
  let msg: {
    loss_fn_output_type: string;
    loss_fn_outputs: { fields: Record<string, ProtoBatched>; num_datums: number | { toNumber(): number } }[];
    metrics: Record<string, number>;
  };
  try {
    msg = ForwardBackwardOutputProto.toObject(ForwardBackwardOutputProto.decode(bytes), {
      defaults: true,
    }) as typeof msg;
  } catch (err) {
    return fail(
      `cannot decode the protobuf ForwardBackwardOutput: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const metrics = { ...msg.metrics };
  if (msg.loss_fn_outputs.length === 0) {
    return { loss_fn_output_type: msg.loss_fn_output_type || 'ArrayRecord', loss_fn_outputs: [], metrics };
  }
  const perField = new Map<string, { data: number[]; dtype: 'int64' | 'float32'; trailing: number[] }[]>();
  for (const record of msg.loss_fn_outputs) {
    for (const [name, bt] of Object.entries(record.fields)) {
      const width = bt.dtype === PROTO_DTYPE.INT64 ? 8 : bt.dtype === PROTO_DTYPE.BFLOAT16 ? 2 : 4;
      const dtype = bt.dtype === PROTO_DTYPE.INT64 || bt.dtype === PROTO_DTYPE.INT32 ? 'int64' : 'float32';
      const offsets = decodeNumbers(bt.offsets, PROTO_DTYPE.INT64, `${name}.offsets`, fail);
      const trailing = bt.trailing_shape.map(num);
      const list = perField.get(name) ?? [];
      for (let i = 0; i + 1 < offsets.length; i++) {
        const start = offsets[i]!;
        const end = offsets[i + 1]!;
        if (start < 0 || end < start || end > bt.data.length)
          fail(`${name}: datum ${i} spans bytes ${start}..${end} of ${bt.data.length}`);
        if ((end - start) % width !== 0) fail(`${name}: datum ${i} is not a whole number of ${width}-byte values`);
        const values = decodeNumbers(bt.data.subarray(start, end), bt.dtype, name, fail);
        list.push({ data: values, dtype, trailing });
      }
      perField.set(name, list);
    }
  }
  let numDatums = msg.loss_fn_outputs.reduce((a, r) => a + num(r.num_datums), 0);
  if (numDatums === 0 && perField.size > 0) numDatums = perField.values().next().value!.length;
  const outputs: Record<string, WireTensorData>[] = [];
  for (let i = 0; i < numDatums; i++) {
    const datum: Record<string, WireTensorData> = {};
    for (const [name, list] of perField) {
      const t = list[i];
      if (t === undefined) fail(`${name}: ${list.length} datums, expected ${numDatums}`);
      const trailingElems = t.trailing.reduce((a, s) => a * s, 1);
      const leading = trailingElems === 0 ? 0 : Math.floor(t.data.length / trailingElems);
      datum[name] = { data: t.data, dtype: t.dtype, shape: [leading, ...t.trailing] };
    }
    outputs.push(datum);
  }
  return {
    loss_fn_output_type: msg.loss_fn_output_type.slice(msg.loss_fn_output_type.lastIndexOf(':') + 1),
    loss_fn_outputs: outputs,
    metrics,
  };
}

/** Encode a JSON SampleResponse (what the service answers). Undefined prompt logprobs travel as NaN. */
export function encodeSampleResponse(o: {
  sequences: { stop_reason: string; tokens: number[]; logprobs?: number[] | undefined }[];
  prompt_logprobs?: (number | null)[] | undefined;
  topk_prompt_logprobs?: ([number, number][] | null)[] | undefined;
  prompt_cache_hit_tokens?: number | undefined;
}): Uint8Array {
  const body: Record<string, unknown> = {
    sequences: o.sequences.map((s) => ({
      stop_reason: s.stop_reason === 'length' ? 1 : 0,
      tokens: encodeInt32(s.tokens),
      ...(s.logprobs ? { logprobs: encodeFloat32(s.logprobs) } : {}),
    })),
    prompt_cache_hit_tokens: Number(o.prompt_cache_hit_tokens ?? 0),
  };
  if (Array.isArray(o.prompt_logprobs)) {
    body.prompt_logprobs = encodeFloat32(o.prompt_logprobs.map((v) => (v === null ? Number.NaN : v)));
  }
  if (Array.isArray(o.topk_prompt_logprobs)) {
    const rows = o.topk_prompt_logprobs;
    const k = Math.max(0, ...rows.map((r) => r?.length ?? 0));
    const ids: number[] = [];
    const lps: number[] = [];
    for (const r of rows) {
      for (let j = 0; j < k; j++) {
        const cell = r?.[j];
        ids.push(cell ? cell[0] : 0);
        lps.push(cell ? cell[1] : TOPK_EMPTY_LOGPROB);
      }
    }
    body.topk_prompt_logprobs = {
      token_ids: encodeInt32(ids),
      logprobs: encodeFloat32(lps),
      k,
      prompt_length: rows.length,
    };
  }
  return SampleResponseProto.encode(SampleResponseProto.fromObject(body)).finish();
}

/**
 * Decode a protobuf SampleResponse into its JSON shape: NaN prompt logprobs become null; a top-k row whose first
 * cell is the empty sentinel is null, and empty cells are dropped from a row.
 */
export function decodeSampleResponse(bytes: Uint8Array, fail: ProtoFail): WireSampleResponse {
  let msg: {
    sequences: { stop_reason: number; tokens: Uint8Array; logprobs?: Uint8Array }[];
    prompt_logprobs?: Uint8Array;
    topk_prompt_logprobs?: { token_ids: Uint8Array; logprobs: Uint8Array; k: number; prompt_length: number };
    prompt_cache_hit_tokens: number;
  };
  try {
    msg = SampleResponseProto.toObject(SampleResponseProto.decode(bytes), { defaults: true }) as typeof msg;
  } catch (err) {
    return fail(`cannot decode the protobuf SampleResponse: ${err instanceof Error ? err.message : String(err)}`);
  }
  const out: WireSampleResponse = {
    sequences: msg.sequences.map((s, i) => {
      if (s.stop_reason !== 0 && s.stop_reason !== 1) fail(`sequences[${i}]: unknown stop_reason ${s.stop_reason}`);
      const seq: WireSampleResponse['sequences'][number] = {
        stop_reason: s.stop_reason === 1 ? 'length' : 'stop',
        tokens: decodeNumbers(s.tokens, PROTO_DTYPE.INT32, `sequences[${i}].tokens`, fail),
      };
      if (s.logprobs !== undefined && s.logprobs.length > 0) {
        seq.logprobs = decodeNumbers(s.logprobs, PROTO_DTYPE.FLOAT32, `sequences[${i}].logprobs`, fail);
      }
      return seq;
    }),
    prompt_cache_hit_tokens: msg.prompt_cache_hit_tokens,
  };
  if (msg.prompt_logprobs !== undefined && msg.prompt_logprobs.length > 0) {
    out.prompt_logprobs = decodeNumbers(msg.prompt_logprobs, PROTO_DTYPE.FLOAT32, 'prompt_logprobs', fail).map((v) =>
      Number.isNaN(v) ? null : v,
    );
  }
  const topk = msg.topk_prompt_logprobs;
  if (topk !== undefined && topk.k > 0 && topk.prompt_length > 0) {
    const ids = decodeNumbers(topk.token_ids, PROTO_DTYPE.INT32, 'topk_prompt_logprobs.token_ids', fail);
    const lps = decodeNumbers(topk.logprobs, PROTO_DTYPE.FLOAT32, 'topk_prompt_logprobs.logprobs', fail);
    const cells = topk.k * topk.prompt_length;
    if (ids.length !== cells || lps.length !== cells)
      fail(`topk_prompt_logprobs: ${ids.length} cells for ${topk.prompt_length}×${topk.k}`);
    const rows: ([number, number][] | null)[] = [];
    for (let r = 0; r < topk.prompt_length; r++) {
      const row: [number, number][] = [];
      for (let j = 0; j < topk.k; j++) {
        const lp = lps[r * topk.k + j]!;
        if (lp !== TOPK_EMPTY_LOGPROB) row.push([ids[r * topk.k + j]!, lp]);
      }
      rows.push(lps[r * topk.k] === TOPK_EMPTY_LOGPROB ? null : row);
    }
    out.topk_prompt_logprobs = rows;
  }
  return out;
}
