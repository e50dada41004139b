/**
 * Image chunks on the wire, against a recording server. Facts from the official SDK 0.25.0: `types/image_chunk.py`
 * (`data` bytes serialised as standard base64, `format` "png" | "jpeg", `expected_tokens` optional int, `type`
 * "image"; bodies dumped with nulls left out), `proto/request_conv.py` (ImageChunk{1 data: raw bytes, 2 format, 3
 * optional expected_tokens} in Chunk field 2) and `training_client.py` (an image counts its raw byte length toward
 * `fwdbwd_max_chunk_bytes_count`).
 */
import { datumFromModelInputWeights, type ImageChunk, ModelInput } from '@cookbook/core';
import type { WireDatum } from '@cookbook/tinker-wire';
import { describe, expect, it } from 'vitest';
import { fakeTinkerPerTest } from './__tests__/per-test-server.js';
import { base64DecodedLength, estimateDatumBytes } from './chunking.js';

const fake = fakeTinkerPerTest();
const client = () => fake.client();

/** Deterministic bytes standing in for an image file (the client never decodes them). */
function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

function image(raw: Uint8Array, expected: number): ImageChunk {
  return { type: 'image', data: Buffer.from(raw).toString('base64'), format: 'png', expected_tokens: expected };
}

function imageDatum(raw: Uint8Array, expected = 4) {
  const input = new ModelInput([
    { type: 'encoded_text', tokens: [1, 2] },
    image(raw, expected),
    { type: 'encoded_text', tokens: [3, 4, 5] },
  ]);
  return datumFromModelInputWeights(input, [0, 0, ...Array(expected).fill(0), 0, 1, 1]);
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** Datum.model_input (field 1) entry holding Chunk{image (field 2): ImageChunk{1 data, 2 format, 3 expected}}. */
function expectedChunkBytes(raw: Uint8Array, format: string, expected: number): Buffer {
  const fmt = Buffer.from(format, 'utf8');
  const imageMsg = [
    0x0a,
    ...varint(raw.length),
    ...raw,
    0x12,
    ...varint(fmt.length),
    ...fmt,
    0x18,
    ...varint(expected),
  ];
  const chunkMsg = [0x12, ...varint(imageMsg.length), ...imageMsg];
  return Buffer.from([0x0a, ...varint(chunkMsg.length), ...chunkMsg]);
}

describe('image chunks serialise as the official SDK sends them', () => {
  it('forward_backward (protobuf): ImageChunk{data raw bytes, format, expected_tokens} in Chunk field 2', async () => {
    const raw = bytes(300, 7);
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    await tc.forwardBackward([imageDatum(raw, 70)], 'cross_entropy');
    const [post] = fake.server.calls('POST /api/v1/forward_backward');
    expect(post!.headers['content-type']).toBe('application/x-protobuf');
    expect(post!.raw.includes(expectedChunkBytes(raw, 'png', 70))).toBe(true);
    const body = post!.body as { forward_backward_input: { data: WireDatum[] } };
    expect(body.forward_backward_input.data[0]!.model_input.chunks[1]).toEqual(image(raw, 70));
  });

  it('sample (JSON): the prompt chunk is exactly {type, data (base64), format, expected_tokens}', async () => {
    const raw = bytes(50, 3);
    const sampler = await client().createSamplingClient({ baseModel: 'm' });
    const prompt = new ModelInput([
      { type: 'encoded_text', tokens: [9] },
      { ...image(raw, 64), format: 'jpeg' },
    ]);
    await sampler.sample({ prompt, numSamples: 1, samplingParams: { maxTokens: 2 } });
    const body = fake.server.calls('POST /api/v1/asample')[0]!.body as { prompt: { chunks: unknown[] } };
    expect(body.prompt.chunks[1]).toStrictEqual({
      type: 'image',
      data: Buffer.from(raw).toString('base64'),
      format: 'jpeg',
      expected_tokens: 64,
    });
    expect(Buffer.from((body.prompt.chunks[1] as { data: string }).data, 'base64').equals(Buffer.from(raw))).toBe(true);
  });
});

describe('image-heavy batches are split by size, never refused', () => {
  it('counts raw image bytes (not base64 characters) as the SDK does', () => {
    const raw = bytes(3000, 1);
    expect(base64DecodedLength(Buffer.from(raw).toString('base64'))).toBe(3000);
    expect(base64DecodedLength(Buffer.from(bytes(3001, 1)).toString('base64'))).toBe(3001);
  });

  it('a batch of three 40 kB images under a 100 kB chunk limit goes out in several requests', async () => {
    fake.server.routes.set('POST /api/v1/client/config', () => ({ json: { fwdbwd_max_chunk_bytes_count: 100_000 } }));
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    const data = [imageDatum(bytes(40_000, 1)), imageDatum(bytes(40_000, 2)), imageDatum(bytes(40_000, 3))];
    const out = await tc.forwardBackward(data, 'cross_entropy');
    const posts = fake.server.calls('POST /api/v1/forward_backward');
    expect(posts).toHaveLength(2); // 40 kB + 40 kB fit in 100 kB; the third starts a new request
    expect(out.lossFnOutputs).toHaveLength(3);
    // A single image above the limit still goes out (alone), as the SDK sends an oversized first datum.
    fake.server.routes.set('POST /api/v1/client/config', () => ({ json: { fwdbwd_max_chunk_bytes_count: 1000 } }));
    const big = await client().createLoraTrainingClient({ baseModel: 'm' });
    await big.forwardBackward([imageDatum(bytes(5000, 9))], 'cross_entropy');
    expect(fake.server.calls('POST /api/v1/forward_backward')).toHaveLength(3);
  });
});

describe('estimateDatumBytes', () => {
  it('4 B per token, raw image bytes, tensor bytes', () => {
    const wire: WireDatum = {
      model_input: { chunks: [{ type: 'encoded_text', tokens: [1, 2] }, image(bytes(30, 1), 4)] },
      loss_fn_inputs: { weights: { data: [1, 1], dtype: 'float32' } },
    };
    expect(estimateDatumBytes(wire)).toBe(2 * 4 + 30 + 2 * 4);
  });
});
