/**
 * The shared protobuf codec against bytes the official SDK 0.25.0 sent (`__fixtures__/sdk-0.25.0`, recorded from
 * the real SDK): they decode to what was sent, our encoder writes the same bytes for the same request, results
 * round-trip, and the contract accepts them.
 */
import { readFileSync } from 'node:fs';
import { decompress } from 'fzstd';
import { describe, expect, it } from 'vitest';
import { checkRequest } from './contract.js';
import {
  decodeForwardBackwardOutput,
  decodeForwardBackwardRequest,
  decodeSampleResponse,
  encodeForwardBackwardOutput,
  encodeForwardBackwardRequest,
  encodeSampleResponse,
} from './proto.js';

const fixture = (name: string) =>
  new Uint8Array(readFileSync(new URL(`./__fixtures__/sdk-0.25.0/${name}`, import.meta.url)));
const fail = (m: string): never => {
  throw new SyntaxError(m);
};

/**
 * The datums the SDK flow sent: tokens 100+7i …, targets shifted by one, weights 1. Map entries in the order the
 * SDK's encoder wrote them (`weights` first), so that bytes can be compared.
 */
function sdkDatum(i: number) {
  const tokens = Array.from({ length: 10 }, (_, j) => 100 + i * 7 + j);
  return {
    model_input: { chunks: [{ type: 'encoded_text' as const, tokens: tokens.slice(0, -1) }] },
    loss_fn_inputs: {
      weights: { data: new Array<number>(9).fill(1), dtype: 'float32' as const, shape: [9] },
      target_tokens: { data: tokens.slice(1), dtype: 'int64' as const, shape: [9] },
    },
  };
}

describe('protobuf ForwardBackwardRequest as the SDK 0.25.0 sends it', () => {
  it('decodes a zstd-compressed forward_backward and a forward_only body', () => {
    const fb = decodeForwardBackwardRequest(decompress(fixture('forward-backward-zstd.pb.zst')), fail);
    expect(fb.forwardOnly).toBe(false);
    expect(fb.body.seq_id).toBe(1);
    expect(fb.body.model_id).toMatch(/^s[0-9a-f]+:train:0$/);
    expect(fb.body.forward_backward_input).toEqual({
      data: [0, 1, 2, 3].map(sdkDatum),
      loss_fn: 'cross_entropy',
    });
    const fwd = decodeForwardBackwardRequest(decompress(fixture('forward-only-zstd.pb.zst')), fail);
    expect(fwd.forwardOnly).toBe(true);
    expect(fwd.body.seq_id).toBe(3);
  });

  it('our encoder writes byte-for-byte what the SDK wrote for the same request', () => {
    const sdk = fixture('forward-backward-chunk.pb');
    const { body } = decodeForwardBackwardRequest(sdk, fail);
    const ours = encodeForwardBackwardRequest(
      {
        model_id: body.model_id,
        seq_id: 1,
        forward_backward_input: { data: [0, 1].map(sdkDatum), loss_fn: 'cross_entropy' },
        forward_only: false,
      },
      fail,
    );
    expect(Buffer.from(ours).toString('hex')).toBe(Buffer.from(sdk).toString('hex'));
  });

  it('the contract accepts the SDK bodies and refuses a truncated one', () => {
    const headers = {
      'x-api-key': 'k',
      'x-stainless-retry-count': '0',
      'x-idempotency-key': 'stainless-python-retry-x',
      'content-type': 'application/x-protobuf',
    };
    const req = { method: 'POST', path: '/api/v1/forward_backward', query: {}, headers };
    expect(checkRequest({ ...req, body: fixture('forward-backward-chunk.pb') })).toEqual([]);
    expect(
      checkRequest({
        ...req,
        headers: { ...headers, 'content-encoding': 'zstd' },
        body: fixture('forward-backward-zstd.pb.zst'),
      }),
    ).toEqual([]);
    expect(checkRequest({ ...req, body: fixture('forward-backward-chunk.pb').subarray(0, 40) }).length).toBeGreaterThan(
      0,
    );
  });

  it('refuses a chunk kind protobuf cannot carry, naming it', () => {
    expect(() =>
      encodeForwardBackwardRequest(
        {
          model_id: 'm',
          seq_id: 1,
          forward_backward_input: {
            data: [
              {
                model_input: { chunks: [{ type: 'image_asset_pointer', format: 'png', location: 'gs://x' }] },
                loss_fn_inputs: {},
              },
            ],
            loss_fn: 'cross_entropy',
          },
          forward_only: false,
        },
        fail,
      ),
    ).toThrow(/data\[0\]\.model_input\.chunks\[0\]: a image_asset_pointer chunk/);
  });
});

describe('protobuf results', () => {
  it('ForwardBackwardOutput round-trips, per-datum shapes and metrics included', () => {
    const out = {
      loss_fn_output_type: 'ArrayRecord',
      loss_fn_outputs: [
        { logprobs: { data: [-1.5, -0.25], dtype: 'float32', shape: [2] } },
        { logprobs: { data: [-2, -3, -0.5], dtype: 'float32', shape: [3] } },
      ],
      metrics: { 'loss:sum': 7.25 },
    };
    expect(decodeForwardBackwardOutput(encodeForwardBackwardOutput(out), fail)).toEqual(out);
  });

  it('SampleResponse round-trips; undefined prompt logprobs and top-k rows come back as null', () => {
    const res = {
      sequences: [{ stop_reason: 'length' as const, tokens: [5, 6], logprobs: [-0.5, -1] }],
      prompt_logprobs: [null, -2.5, -0.125],
      topk_prompt_logprobs: [
        null,
        [[7, -0.5] as [number, number], [8, -1] as [number, number]],
        [[9, -2] as [number, number]],
      ],
      prompt_cache_hit_tokens: 3,
    };
    expect(decodeSampleResponse(encodeSampleResponse(res), fail)).toEqual(res);
  });
});
