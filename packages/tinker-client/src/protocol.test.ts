/**
 * The protocol the client speaks, rule by rule, against a scripted server: the SDK 0.25.0 forms when the server
 * answers `client/config`, the SDK 0.16.1 JSON forms when it does not, and each `client/config` flag.
 */
import { datumFromTokensWeights, ModelInput } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { fakeTinkerPerTest } from './__tests__/per-test-server.js';
import { LEGACY_SDK_VERSION, SDK_VERSION } from './http.js';

const fake = fakeTinkerPerTest();
const client = fake.client;

const datum = (n = 4) =>
  datumFromTokensWeights(
    Array.from({ length: n }, (_, i) => 5 + i),
    Array.from({ length: n }, () => 1),
  );

const flags = (f: Record<string, unknown>) => fake.server.routes.set('POST /api/v1/client/config', () => ({ json: f }));

function jwt(expSeconds: number, tag: string): string {
  const b = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${b({ alg: 'none' })}.${b({ exp: expSeconds, sub: tag })}.sig`;
}

describe('negotiation: chosen from what the server answers', () => {
  it('a server with client/config gets SDK 0.25.0: protobuf forward_backward, forward as forward_only, protobuf results', async () => {
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    const fb = await tc.forwardBackward([datum()], 'cross_entropy');
    const fwd = await tc.forward([datum()], 'cross_entropy');
    expect(fb.lossFnOutputs[0]!.logprobs!.data).toEqual([-1, -1, -1]);
    expect(fwd.metrics['loss:sum']).toBe(1);
    expect(fake.server.calls('POST /api/v1/forward')).toHaveLength(0);
    const posts = fake.server.calls('POST /api/v1/forward_backward');
    expect(posts.map((p) => p.headers['content-type'])).toEqual(['application/x-protobuf', 'application/x-protobuf']);
    expect(posts.map((p) => (p.body as { forward_only: boolean }).forward_only)).toEqual([false, true]);
    expect(posts.map((p) => (p.body as { seq_id: number }).seq_id)).toEqual([1, 2]);
    const polls = fake.server.calls('POST /api/v1/retrieve_future');
    const byType = (t: string) => polls.filter((p) => p.headers['x-tinker-request-type'] === t);
    expect(byType('ForwardBackward')[0]!.headers.accept).toBe('application/x-protobuf');
    expect(byType('Forward')[0]!.headers.accept).toBe('application/x-protobuf');
    expect(byType('CreateModel')[0]!.headers.accept).toBe('application/json');
    expect(fake.server.calls('POST /api/v1/client/config')[0]!.body).toEqual({ sdk_version: SDK_VERSION });
    expect(fake.server.calls('POST /api/v1/create_session')[0]!.body).toEqual({
      tags: [],
      user_metadata: {},
      sdk_version: SDK_VERSION,
      type: 'create_session',
    });
  });

  it('a server without client/config gets SDK 0.16.1: JSON /forward and /forward_backward, JSON results', async () => {
    fake.server.routes.delete('POST /api/v1/client/config');
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    await tc.forwardBackward([datum()], 'cross_entropy');
    await tc.forward([datum()], 'cross_entropy');
    const sampler = await client().createSamplingClient({ baseModel: 'm' });
    await sampler.sample({ prompt: ModelInput.fromInts([1]) });
    const fb = fake.server.calls('POST /api/v1/forward_backward')[0]!;
    expect(fb.headers['content-type']).toBe('application/json');
    expect(fb.body).toMatchObject({
      model_id: 'sess:train:0',
      seq_id: 1,
      forward_backward_input: { loss_fn: 'cross_entropy' },
    });
    expect(fake.server.calls('POST /api/v1/forward')[0]!.body).toMatchObject({ seq_id: 2, forward_input: {} });
    expect(fake.server.calls('POST /api/v1/client/dynamic_config')).toHaveLength(0);
    expect(
      fake.server.calls('POST /api/v1/retrieve_future').every((p) => p.headers.accept === 'application/json'),
    ).toBe(true);
    expect(fake.server.calls('POST /api/v1/create_session')[0]!.body).toMatchObject({
      sdk_version: LEGACY_SDK_VERSION,
    });
  });

  it('zstd-compresses the protobuf body when proto_compress_fwdbwd is set', async () => {
    flags({ proto_compress_fwdbwd: true });
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    const big = Array.from({ length: 8 }, () => datum(200));
    const out = await tc.forwardBackward(big, 'cross_entropy');
    expect(out.lossFnOutputs).toHaveLength(8);
    const post = fake.server.calls('POST /api/v1/forward_backward')[0]!;
    expect(post.headers['content-encoding']).toBe('zstd');
    expect([...post.raw.subarray(0, 4)]).toEqual([0x28, 0xb5, 0x2f, 0xfd]); // zstd frame magic
    expect((post.body as { forward_backward_input: { data: unknown[] } }).forward_backward_input.data).toHaveLength(8);
  });
});

describe('client/config flags', () => {
  it('parallel_fwdbwd_chunks false: chunks are posted one after another in seq order; chunk limits come from the flags', async () => {
    flags({ parallel_fwdbwd_chunks: false, fwdbwd_max_chunk_len: 2 });
    let inFlight = 0;
    let maxInFlight = 0;
    fake.server.routes.set('POST /api/v1/forward_backward', async (r) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((res) => setTimeout(res, 20));
      inFlight--;
      return fake.server.future(fake.server.fwdResult(r.body, 'forward_backward_input'), undefined, 'ForwardBackward');
    });
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    const out = await tc.forwardBackward([datum(), datum(), datum(), datum(), datum()], 'cross_entropy');
    expect(out.lossFnOutputs).toHaveLength(5);
    const seqs = fake.server.calls('POST /api/v1/forward_backward').map((p) => (p.body as { seq_id: number }).seq_id);
    expect(seqs).toEqual([1, 2, 3]);
    expect(maxInFlight).toBe(1);
  });

  it('fwdbwd_max_chunk_bytes_count splits by estimated protobuf bytes', async () => {
    flags({ fwdbwd_max_chunk_bytes_count: 60 }); // 3 input tokens ≈ 3·4 + 3·8 + 3·4 = 48 bytes
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    await tc.forwardBackward([datum(), datum(), datum()], 'cross_entropy');
    expect(fake.server.calls('POST /api/v1/forward_backward')).toHaveLength(3);
  });

  it('pjwt_auth_enabled: exchanges the key at auth/token, sends the JWT, refreshes one that is about to expire', async () => {
    flags({ pjwt_auth_enabled: true });
    const now = Math.floor(Date.now() / 1000);
    const tokens = [jwt(now + 30, 'first'), jwt(now + 3600, 'second')];
    fake.server.routes.set('POST /api/v1/auth/token', () => ({ json: { jwt: tokens.shift() } }));
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    await tc.optimStep();
    const exchanges = fake.server.calls('POST /api/v1/auth/token');
    // The first JWT has 30 s left (≤ 60 s): the next request refreshes it on demand.
    expect(exchanges).toHaveLength(2);
    expect(exchanges.every((e) => e.headers['x-api-key'] === 'tml-test-secret-key')).toBe(true);
    expect(exchanges[0]!.body).toEqual({});
    const after = fake.server.requests.slice(fake.server.requests.indexOf(exchanges[1]!) + 1);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((r) => String(r.headers['x-api-key']).endsWith('.sig'))).toBe(true);
    expect(fake.server.calls('POST /api/v1/client/config')[0]!.headers['x-api-key']).toBe('tml-test-secret-key');
  });

  it('create_model_via_load_weights: one session-addressed load_weights creates the model', async () => {
    flags({ create_model_via_load_weights: true });
    fake.server.routes.set('POST /api/v1/load_weights', (r) =>
      fake.server.future({ path: (r.body as { path: string }).path, type: 'load_weights' }),
    );
    const tc = await client().createTrainingClientFromState('tinker://run/weights/s1', { optimizer: true });
    expect(tc.modelId).toBe('sess:train:0');
    expect(fake.server.calls('POST /api/v1/create_model')).toHaveLength(0);
    expect(fake.server.calls('POST /api/v1/weights_info')).toHaveLength(0);
    expect(fake.server.calls('POST /api/v1/load_weights')[0]!.body).toEqual({
      session_id: 'sess',
      model_seq_id: 0,
      path: 'tinker://run/weights/s1',
      optimizer: true,
      type: 'load_weights',
    });
    await tc.optimStep();
    expect(fake.server.calls('POST /api/v1/optim_step')[0]!.body).toMatchObject({
      model_id: 'sess:train:0',
      seq_id: 1,
    });
  });

  it('sample_no_retries: an expired sample is not resubmitted', async () => {
    flags({ sample_no_retries: true });
    fake.server.routes.set('POST /api/v1/asample', () =>
      fake.server.future({ sequences: [] }, [{ status: 410, json: { detail: 'expired' } }]),
    );
    const sampler = await client().createSamplingClient({ baseModel: 'm' });
    await expect(sampler.sample({ prompt: ModelInput.fromInts([1]) })).rejects.toThrow(/410|expired/);
    expect(fake.server.calls('POST /api/v1/asample')).toHaveLength(1);
  });

  it('sample_max_concurrent_requests caps the samples in flight', async () => {
    flags({ sample_max_concurrent_requests: 2 });
    let inFlight = 0;
    let maxInFlight = 0;
    fake.server.routes.set('POST /api/v1/asample', async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((res) => setTimeout(res, 15));
      inFlight--;
      return fake.server.future({ sequences: [{ stop_reason: 'stop', tokens: [1] }] });
    });
    const sampler = await client().createSamplingClient({ baseModel: 'm' });
    await Promise.all(Array.from({ length: 6 }, () => sampler.sample({ prompt: ModelInput.fromInts([1]) })));
    expect(maxInFlight).toBeLessThanOrEqual(2);
    expect(fake.server.calls('POST /api/v1/asample')).toHaveLength(6);
  });

  it('refreshes client/dynamic_config on its interval', async () => {
    let n = 0;
    fake.server.routes.set('POST /api/v1/client/dynamic_config', () => ({ json: { refresh_interval_sec: 10 + n++ } }));
    await client({ dynamicConfigScale: 0.002 }).sessionId();
    await new Promise((res) => setTimeout(res, 150));
    const calls = fake.server.calls('POST /api/v1/client/dynamic_config');
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls[1]!.body).toEqual({ sdk_version: SDK_VERSION });
  });
});

describe('retries and headers', () => {
  it('after a 429 a sample is resubmitted with the same seq_id, a new idempotency key and retry count 0', async () => {
    let calls = 0;
    fake.server.routes.set('POST /api/v1/asample', () =>
      calls++ === 0
        ? { status: 429, json: { detail: 'backpressure' } }
        : fake.server.future({ sequences: [{ stop_reason: 'length', tokens: [3] }] }),
    );
    const sampler = await client({ backoffScale: 0.01 }).createSamplingClient({ baseModel: 'm' });
    await sampler.sample({ prompt: ModelInput.fromInts([1]), includePromptLogprobs: false });
    const [a, b] = fake.server.calls('POST /api/v1/asample');
    expect((a!.body as { seq_id: number }).seq_id).toBe(0);
    expect((b!.body as { seq_id: number }).seq_id).toBe(0);
    expect(a!.headers['x-idempotency-key']).not.toBe(b!.headers['x-idempotency-key']);
    expect([a!.headers['x-stainless-retry-count'], b!.headers['x-stainless-retry-count']]).toEqual(['0', '0']);
    // The SDK's defaults are present: prompt_logprobs false, topk 0, num_samples 1.
    expect(a!.body).toMatchObject({ num_samples: 1, prompt_logprobs: false, topk_prompt_logprobs: 0, type: 'sample' });
  });

  it('a 429 on retrieve_future backs off and polls again', async () => {
    fake.server.routes.set('POST /api/v1/optim_step', () =>
      fake.server.future({ metrics: {} }, [{ status: 429, json: { detail: 'slow down' } }]),
    );
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    expect(await tc.optimStep()).toEqual({ metrics: {} });
  });

  it('every non-GET request carries X-Idempotency-Key and Content-Type: application/json; GETs carry neither', async () => {
    fake.server.routes.set('DELETE /api/v1/training_runs/run/checkpoints/weights/s1', () => ({ status: 204 }));
    fake.server.routes.set('GET /api/v1/training_runs', () => ({
      json: { training_runs: [], cursor: { offset: 0, limit: 20, total_count: 0 } },
    }));
    const c = client();
    const tc = await c.createLoraTrainingClient({ baseModel: 'm' });
    await tc.optimStep();
    const rest = await c.createRestClient();
    await rest.deleteCheckpoint('tinker://run/weights/s1');
    await rest.listTrainingRuns({ projectId: 'p1' });
    for (const r of fake.server.requests) {
      if (r.method === 'GET') {
        expect(r.headers['x-idempotency-key']).toBeUndefined();
        continue;
      }
      expect(r.headers['x-idempotency-key'], `${r.method} ${r.path}`).toMatch(/^stainless-node-retry-/);
      expect(r.headers['content-type'], `${r.method} ${r.path}`).toMatch(/application\/(json|x-protobuf)/);
    }
    const list = fake.server.requests.find((r) => r.path === '/api/v1/training_runs')!;
    expect(list.headers['content-type']).toBeUndefined();
  });
});
