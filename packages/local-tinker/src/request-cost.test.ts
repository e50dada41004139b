/**
 * What a request can cost the service before it is refused (issue: a 2 MB body of a million numbers raised memory by
 * ≈750 MB; a 247-byte zstd protobuf of a million empty datums held the event loop for seconds). Counts are checked
 * before anything is allocated for the elements they count, each refusal naming its limit.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeForwardBackwardRequest } from '@cookbook/tinker-wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ceDatum, json, MODEL, post, servicesClosedAfterEach, sessionAndModel } from './__tests__/direct.js';
import { thrown } from './__tests__/thrown.js';
import { DEFAULT_LIMITS, resolveLimits, scanJson } from './limits.js';
import { type LocalTinker, startLocalTinker } from './local-tinker.js';
import { scanForwardBackwardProto } from './proto-scan.js';

const service = servicesClosedAfterEach();

const enc = (s: string) => new TextEncoder().encode(s);

describe('a JSON body is counted on its bytes before it is parsed', () => {
  it('objects, arrays and strings (keys too) past max_json_nodes: a 400 naming the limit; quotes inside strings are skipped', () => {
    const limits = { maxJsonDepth: 64, maxJsonNodes: 10 };
    // 1 object + 1 key + 1 array + 7 objects = 10 nodes: at the limit.
    expect(() => scanJson(enc(`{"a":[${Array(7).fill('{}').join(',')}]}`), limits)).not.toThrow();
    const over = thrown(() => scanJson(enc(`{"a":[${Array(8).fill('{}').join(',')}]}`), limits));
    expect(over.status).toBe(400);
    expect(over.message).toBe(
      "request body holds more than 10 JSON objects, arrays and strings (this service's limit; cookbook serve max_json_nodes=…)",
    );
    // One string holding brackets and an escaped quote is one node.
    expect(() => scanJson(enc(`{"a":"[{\\"[{[{[{[{[{[{"}`), limits)).not.toThrow();
    expect(thrown(() => scanJson(enc(`["a","b","c","d","e","f","g","h","i","j"]`), limits)).message).toContain(
      'more than 10 JSON objects',
    );
  });
});

describe('datums, chunks and tokens are counted before the request is validated', () => {
  it('forward_backward over max_datums / max_chunks / max_input_tokens: a 400 naming each (valid datums, so only the count refuses them)', async () => {
    const s = await service({ limits: { maxDatums: 2, maxChunks: 3, maxInputTokens: 12 } });
    const { model } = await sessionAndModel(s);
    const fb = (data: unknown[]) =>
      post(s, 'forward_backward', { model_id: model, forward_backward_input: { loss_fn: 'cross_entropy', data } });
    const d = ceDatum([1, 2, 3, 4]);
    expect((await fb([d, d])).status).toBe(200);
    const datums = await fb([d, d, d]);
    expect(datums.status).toBe(400);
    expect(json(datums).detail).toBe(
      "forward_backward_input.data: the number of datums = 3 exceeds this service's limit of 2 (the operator can raise it: cookbook serve max_datums=…)",
    );
    const twoChunks = {
      ...d,
      model_input: { chunks: [{ tokens: [1] }, { tokens: [2, 3] }] },
    };
    expect(json(await fb([twoChunks, twoChunks])).detail).toMatch(
      /^forward_backward_input\.data\[\*\]\.model_input\.chunks: the number of chunks = 4\+ exceeds .* max_chunks=/,
    );
    const long = ceDatum(Array.from({ length: 14 }, (_, i) => i + 1));
    expect(json(await fb([long])).detail).toMatch(
      /^forward_backward_input\.data\[\*\]\.model_input: the number of tokens = 13\+ exceeds .* limit of 12 .* max_input_tokens=/,
    );
    const fwd = await post(s, 'forward', {
      model_id: model,
      forward_input: { loss_fn: 'cross_entropy', data: [d, d, d] },
    });
    expect(json(fwd).detail).toMatch(/^forward_input\.data: the number of datums = 3 exceeds .* max_datums=/);
    const sample = await post(s, 'asample', {
      base_model: MODEL,
      prompt: { chunks: [{ tokens: Array.from({ length: 13 }, (_, i) => i + 1) }] },
      sampling_params: { max_tokens: 1 },
    });
    expect(json(sample).detail).toMatch(/^prompt: the number of tokens = 13\+ exceeds .* max_input_tokens=/);
  });
});

/** The protobuf bytes of `n` empty datums (field 3, length 0) after a model id and loss. */
function emptyDatums(n: number): Uint8Array {
  const head = [0x0a, 1, 0x78, 0x22, 13, ...enc('cross_entropy')];
  const out = new Uint8Array(head.length + 2 * n);
  out.set(head);
  for (let i = 0; i < n; i++) out[head.length + 2 * i] = 0x1a;
  return out;
}

describe('a protobuf forward_backward is counted on its wire bytes before it is decoded', () => {
  const limits = resolveLimits({ maxDatums: 4, maxChunks: 5, maxInputTokens: 9 });
  const body = (data: { tokens: number[][] }[]) =>
    encodeForwardBackwardRequest(
      {
        model_id: 'm',
        seq_id: 1,
        forward_only: false,
        forward_backward_input: {
          loss_fn: 'cross_entropy',
          data: data.map((d) => ({
            model_input: { chunks: d.tokens.map((tokens) => ({ type: 'encoded_text' as const, tokens })) },
            loss_fn_inputs: { weights: { data: [1], dtype: 'float32' as const } },
          })),
        },
      },
      (m) => {
        throw new Error(m);
      },
    );

  it('datums, chunks and tokens at their limits pass; one more is a 400 naming the limit', () => {
    expect(() => scanForwardBackwardProto(emptyDatums(4), limits)).not.toThrow();
    expect(thrown(() => scanForwardBackwardProto(emptyDatums(1_000_000), limits)).message).toBe(
      "forward_backward_input.data: the number of datums = 5+ exceeds this service's limit of 4 (the operator can raise it: cookbook serve max_datums=…)",
    );
    expect(() =>
      scanForwardBackwardProto(body([{ tokens: [[1, 2], [3]] }, { tokens: [[4], [5], [6]] }]), limits),
    ).not.toThrow();
    expect(
      thrown(() => scanForwardBackwardProto(body([{ tokens: [[1], [2], [3]] }, { tokens: [[4], [5], [6]] }]), limits))
        .message,
    ).toMatch(/the number of chunks = 6\+ exceeds .* max_chunks=/);
    expect(() => scanForwardBackwardProto(body([{ tokens: [[1, 2, 3, 4, 5, 6, 7, 8, 9]] }]), limits)).not.toThrow();
    expect(
      thrown(() =>
        scanForwardBackwardProto(
          body([
            {
              tokens: [
                [1, 2, 3, 4, 5],
                [6, 7, 8, 9, 10],
              ],
            },
          ]),
          limits,
        ),
      ).message,
    ).toMatch(/the number of tokens = 10\+ exceeds .* max_input_tokens=/);
  });

  it('truncated bytes are a 400, not a crash', () => {
    const cut = body([{ tokens: [[1, 2, 3]] }]).slice(0, 12);
    expect(thrown(() => scanForwardBackwardProto(cut, limits)).status).toBe(400);
  });
});

describe('over HTTP', () => {
  let t: LocalTinker;
  beforeAll(async () => {
    t = await startLocalTinker({ root: mkdtempSync(join(tmpdir(), 'lt-cost-')), log: () => {} });
  });
  afterAll(async () => {
    await t.close({ graceMs: 0 });
  });

  it('a protobuf body of a million empty datums (2 MB) is refused by its count; healthz still answers', async () => {
    const r = await fetch(`${t.baseURL}/api/v1/forward_backward`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-protobuf' },
      body: emptyDatums(1_000_000),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { detail: string }).detail).toContain(
      `the number of datums = ${DEFAULT_LIMITS.maxDatums + 1}+ exceeds`,
    );
    expect((await fetch(`${t.baseURL}/api/v1/healthz`)).status).toBe(200);
  });
});
