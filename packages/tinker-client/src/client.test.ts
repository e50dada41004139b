import { ConfigError, datumFromTokensWeights, ModelInput } from '@cookbook/core';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Reply } from './__tests__/fake-server.js';
import { fakeTinkerPerTest } from './__tests__/per-test-server.js';
import {
  AuthenticationError,
  BadRequestError,
  FutureExpiredError,
  FutureTimeoutError,
  NotFoundError,
  RequestFailedError,
} from './errors.js';
import { ServiceClient } from './service-client.js';

let warnings: string[] = [];
const fake = fakeTinkerPerTest((m) => warnings.push(m));
const client = fake.client;

beforeEach(() => {
  warnings = [];
});

const datum = () => datumFromTokensWeights([5, 6, 7, 8], [0, 1, 1, 1]);

/** Make the next future of `route` reply with `script` before its result. */
function scriptNext(route: string, result: unknown, script: Reply[]): void {
  fake.server.routes.set(route, () => fake.server.future(result, script));
}

describe('futures: every retrieve_future reply of tinker-api.md §2.5', () => {
  const ok = { metrics: { 'step:unique': 1 } };

  it('try_again (200) and 408 poll again at once, then succeed', async () => {
    scriptNext('POST /api/v1/optim_step', ok, [
      { json: { type: 'try_again', request_id: 'x', queue_state: 'active' } },
      { status: 408, json: { detail: 'still running', queue_state: 'active' } },
      { json: { type: 'try_again', request_id: 'x', queue_state: 'paused_capacity', queue_state_reason: 'busy' } },
    ]);
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    expect(await tc.optimStep({ learningRate: 1e-3 })).toEqual(ok);
    const polls = fake.server.calls('POST /api/v1/retrieve_future');
    // create_model's poll + 4 for the optim step.
    expect(polls.slice(-4).map((p) => p.headers['x-tinker-request-iteration'])).toEqual(['0', '1', '2', '3']);
    expect(polls.at(-1)!.headers['x-tinker-request-type']).toBe('OptimStep');
    expect(polls.at(-4)!.headers['x-tinker-create-promise-roundtrip-time']).toBeDefined();
    expect(warnings.some((w) => w.includes('paused_capacity') && w.includes('busy'))).toBe(true);
  });

  it('complete_metadata polls again for the payload', async () => {
    scriptNext('POST /api/v1/optim_step', ok, [{ json: { status: 'complete_metadata', response_payload_size: 10 } }]);
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    expect(await tc.optimStep()).toEqual(ok);
  });

  it('5xx polls again', async () => {
    scriptNext('POST /api/v1/optim_step', ok, [
      { status: 500, json: { detail: 'boom' } },
      { status: 503, text: '' },
    ]);
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    expect(await tc.optimStep()).toEqual(ok);
  });

  it('429 backs off and polls again', async () => {
    scriptNext('POST /api/v1/optim_step', ok, [{ status: 429, json: { detail: 'slow down' } }]);
    const tc = await client({ backoffScale: 0.05 }).createLoraTrainingClient({ baseModel: 'm' });
    const t0 = Date.now();
    expect(await tc.optimStep()).toEqual(ok);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45); // min(2^0, 30) s × 0.05
  });

  it('402 is a billing pause: wait and retry', async () => {
    scriptNext('POST /api/v1/optim_step', ok, [{ status: 402, json: { detail: 'billing' } }]);
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    expect(await tc.optimStep()).toEqual(ok);
    expect(warnings.some((w) => w.includes('billing pause'))).toBe(true);
  });

  it('an empty 400 is retried three times, a fourth is fatal', async () => {
    const empty400: Reply = { status: 400, text: '' };
    scriptNext('POST /api/v1/optim_step', ok, [empty400, empty400, empty400]);
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    expect(await tc.optimStep()).toEqual(ok);
    scriptNext('POST /api/v1/optim_step', ok, [empty400, empty400, empty400, empty400]);
    await expect(tc.optimStep()).rejects.toBeInstanceOf(BadRequestError);
  });

  it('{error, category} fails the future with RequestFailedError', async () => {
    scriptNext('POST /api/v1/optim_step', ok, [{ json: { error: 'lr must be finite', category: 'user' } }]);
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    const err = await tc.optimStep().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RequestFailedError);
    expect((err as RequestFailedError).category).toBe('user');
    expect((err as RequestFailedError).message).toContain('lr must be finite');
  });

  it('410 is fatal for training futures', async () => {
    scriptNext('POST /api/v1/optim_step', ok, [{ status: 410, json: { detail: 'expired' } }]);
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    await expect(tc.optimStep()).rejects.toBeInstanceOf(FutureExpiredError);
  });

  it('401 / 404 on a poll are fatal', async () => {
    scriptNext('POST /api/v1/optim_step', ok, [{ status: 404, json: { detail: 'no such future' } }]);
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    await expect(tc.optimStep()).rejects.toBeInstanceOf(NotFoundError);
    scriptNext('POST /api/v1/optim_step', ok, [{ status: 401, json: { detail: 'bad key tml-test-secret-key' } }]);
    const err = await tc.optimStep().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err!.message).not.toContain('tml-test-secret-key');
    expect(err!.message).toContain('***');
  });

  it('a connection dropped mid-poll is retried', async () => {
    scriptNext('POST /api/v1/optim_step', ok, [{ destroy: true }, { destroy: true }]);
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    expect(await tc.optimStep()).toEqual(ok);
  });

  it('result() honours a timeout and an abort signal', async () => {
    scriptNext('POST /api/v1/optim_step', ok, new Array(1000).fill({ delayMs: 20, json: { type: 'try_again' } }));
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    const f = tc.optimStep();
    await expect(f.result({ timeout: 50 })).rejects.toBeInstanceOf(FutureTimeoutError);
    const ac = new AbortController();
    const p = f.result({ signal: ac.signal });
    ac.abort(new Error('stop'));
    await expect(p).rejects.toThrow('stop');
  });
});

describe('submission', () => {
  it('sends X-API-Key, the handshake and the session before anything else', async () => {
    await client().createLoraTrainingClient({ baseModel: 'local/qwen3-tiny', rank: 4 });
    expect(fake.server.requests.slice(0, 4).map((r) => r.path)).toEqual([
      '/api/v1/client/config',
      '/api/v1/client/dynamic_config',
      '/api/v1/create_session',
      '/api/v1/create_model',
    ]);
    expect(fake.server.requests.every((r) => r.headers['x-api-key'] === 'tml-test-secret-key')).toBe(true);
    expect(fake.server.calls('POST /api/v1/create_model')[0]!.body).toMatchObject({
      session_id: 'sess',
      model_seq_id: 0,
      base_model: 'local/qwen3-tiny',
      lora_config: { rank: 4, train_mlp: true, train_attn: true, train_unembed: true },
      type: 'create_model',
    });
  });

  it('keeps seq_id order under concurrent submission, even when the server answers out of order', async () => {
    let n = 0;
    const slow = (route: string, result: (body: unknown) => unknown) =>
      fake.server.routes.set(route, (r) => ({ ...fake.server.future(result(r.body)), delayMs: (n++ % 3) * 15 }));
    slow('POST /api/v1/forward_backward', (b) => fake.server.fwdResult(b, 'forward_backward_input'));
    slow('POST /api/v1/optim_step', () => ({ metrics: {} }));
    slow('POST /api/v1/save_weights', () => ({ path: 'tinker://sess:train:0/weights/a' }));
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    const futures = [
      tc.forwardBackward([datum()], 'cross_entropy'),
      tc.optimStep(),
      tc.forwardBackward([datum()], 'cross_entropy'),
      tc.optimStep(),
      tc.saveState('a'),
      tc.forward([datum()], 'cross_entropy'),
    ];
    await Promise.all(futures);
    const seqs = fake.server.requests
      .filter((r) =>
        ['/api/v1/forward_backward', '/api/v1/optim_step', '/api/v1/save_weights', '/api/v1/forward'].includes(r.path),
      )
      .map((r) => (r.body as { seq_id: number }).seq_id);
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('reuses one idempotency key across the retries of a request, and a new key per request', async () => {
    let calls = 0;
    fake.server.routes.set('POST /api/v1/create_model', () =>
      calls++ === 0
        ? { status: 503, json: { detail: 'warming up' } }
        : fake.server.future({ model_id: 'sess:train:0' }),
    );
    const sc = client();
    await sc.createLoraTrainingClient({ baseModel: 'm' });
    const keys = fake.server.calls('POST /api/v1/create_model').map((r) => r.headers['x-idempotency-key']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toBeTruthy();
    expect(keys[1]).toBe(keys[0]);
    expect(fake.server.calls('POST /api/v1/create_model').map((r) => r.headers['x-stainless-retry-count'])).toEqual([
      '0',
      '1',
    ]);
    const other = fake.server.calls('POST /api/v1/create_session')[0]!.headers['x-idempotency-key'];
    expect(other).not.toBe(keys[0]);
  });

  it('applies no request twice: a lost response is retried with the same key and deduplicated', async () => {
    const applied = new Map<string, { request_id: string }>();
    let applyCount = 0;
    let dropped = false;
    fake.server.routes.set('POST /api/v1/forward_backward', (r) => {
      const key = String(r.headers['x-idempotency-key']);
      let fut = applied.get(key);
      if (!fut) {
        applyCount++;
        fut = fake.server.future(fake.server.fwdResult(r.body, 'forward_backward_input')).json as {
          request_id: string;
        };
        applied.set(key, fut);
      }
      if (!dropped) {
        dropped = true;
        return { destroy: true };
      }
      return { json: fut };
    });
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    const out = await tc.forwardBackward([datum()], 'cross_entropy');
    expect(out.lossFnOutputs).toHaveLength(1);
    expect(fake.server.calls('POST /api/v1/forward_backward')).toHaveLength(2);
    expect(applyCount).toBe(1);
  });

  it('honours retry-after-ms', async () => {
    let calls = 0;
    fake.server.routes.set('POST /api/v1/create_model', () =>
      calls++ === 0
        ? { status: 429, json: { detail: 'later' }, headers: { 'retry-after-ms': '2000' } }
        : fake.server.future({ model_id: 'sess:train:0' }),
    );
    const sc = client({ backoffScale: 0.05 });
    const t0 = Date.now();
    await sc.createLoraTrainingClient({ baseModel: 'm' });
    expect(Date.now() - t0).toBeGreaterThanOrEqual(95); // 2000 ms × 0.05
  });

  it('does not retry a 4xx and names the problem', async () => {
    fake.server.routes.set('POST /api/v1/create_model', () => ({
      status: 400,
      json: { detail: 'unknown base_model "nope"' },
    }));
    await expect(client().createLoraTrainingClient({ baseModel: 'nope' })).rejects.toThrow(
      /400: unknown base_model "nope"/,
    );
    expect(fake.server.calls('POST /api/v1/create_model')).toHaveLength(1);
  });

  it('rejects a datum whose tensors do not match its input, before sending it', async () => {
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    const bad = datum();
    bad.lossFnInputs.weights = { data: [1], dtype: 'float32' };
    expect(() => tc.forwardBackward([bad], 'cross_entropy')).toThrow(/loss_fn_inputs.weights/);
    expect(fake.server.calls('POST /api/v1/forward_backward')).toHaveLength(0);
  });

  it('splits a large batch into chunks with consecutive seq ids, first chunk posted last, and recombines', async () => {
    fake.server.routes.set('POST /api/v1/client/config', () => ({ json: { fwdbwd_max_chunk_len: 2 } }));
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    const data = [1, 2, 3, 4, 5].map((k) => datumFromTokensWeights([k, k + 1, k + 2], [0, 1, 1]));
    const out = await tc.forwardBackward(data, 'cross_entropy');
    const posts = fake.server.calls('POST /api/v1/forward_backward');
    expect(posts).toHaveLength(3);
    expect(posts.at(-1)!.body).toMatchObject({ seq_id: 1 });
    expect(posts.map((p) => (p.body as { seq_id: number }).seq_id).sort()).toEqual([1, 2, 3]);
    expect(out.lossFnOutputs).toHaveLength(5);
    expect(out.metrics).toEqual({ 'loss:sum': 5, 'tokens:mean': 2 });
    expect((await tc.optimStep()) && fake.server.calls('POST /api/v1/optim_step')[0]!.body).toMatchObject({
      seq_id: 4,
    });
  });

  it('forwardBackwardCustom runs forward, then a backward with weights = −dloss/dlogprob', async () => {
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    const out = await tc.forwardBackwardCustom([datum()], (_data, lps) => ({
      loss: lps[0]!.reduce((a, b) => a + b * b, 0),
      gradLogprobs: [Array.from(lps[0]!, (v) => 2 * v)],
      metrics: { 'custom:mean': 7 },
    }));
    // SDK 0.25: the forward pass is a forward_backward with forward_only.
    const [fwd, bwd] = fake.server.calls('POST /api/v1/forward_backward').map(
      (c) =>
        c.body as {
          seq_id: number;
          forward_only: boolean;
          forward_backward_input: { data: { loss_fn_inputs: { weights: { data: number[] } } }[] };
        },
    );
    expect([fwd!.seq_id, bwd!.seq_id]).toEqual([1, 2]);
    expect([fwd!.forward_only, bwd!.forward_only]).toEqual([true, false]);
    // logprobs are −1 each → gradient 2·(−1) = −2 → weights +2.
    expect(bwd!.forward_backward_input.data[0]!.loss_fn_inputs.weights.data).toEqual([2, 2, 2]);
    expect(out.metrics['custom:mean']).toBe(7);
    expect(out.metrics['custom_loss:sum']).toBe(3);
  });
});

describe('sampling', () => {
  it('samples through a sampling session with seq ids from 0', async () => {
    const sc = client();
    const sampler = await sc.createSamplingClient({ baseModel: 'local/qwen3-tiny' });
    const r1 = await sampler.sample({
      prompt: ModelInput.fromInts([1, 2]),
      numSamples: 1,
      samplingParams: { maxTokens: 4, stop: ['\n'] },
    });
    await sampler.sample({ prompt: ModelInput.fromInts([1]), samplingParams: { maxTokens: 1 } });
    expect(r1.sequences[0]).toEqual({ tokens: [1, 2], logprobs: [-0.5, -0.25], stopReason: 'stop' });
    const bodies = fake.server.calls('POST /api/v1/asample').map((r) => r.body as Record<string, unknown>);
    expect(bodies.map((b) => b.seq_id)).toEqual([0, 1]);
    expect(bodies[0]).toMatchObject({
      sampling_session_id: 'sess:sample:0',
      sampling_params: { max_tokens: 4, stop: ['\n'], temperature: 1, top_k: -1, top_p: 1 },
      type: 'sample',
    });
    expect(fake.server.calls('POST /api/v1/asample')[0]!.headers['x-tinker-sampling-backpressure']).toBe('1');
  });

  it('pauses every sample dispatch after a 429, then resubmits', async () => {
    let calls = 0;
    fake.server.routes.set('POST /api/v1/asample', () =>
      calls++ === 0
        ? { status: 429, json: { detail: 'backpressure' } }
        : fake.server.future({ sequences: [{ stop_reason: 'length', tokens: [3] }] }),
    );
    const sampler = await client({ backoffScale: 0.1 }).createSamplingClient({ baseModel: 'm' });
    const r = await sampler.sample({ prompt: ModelInput.fromInts([1]) });
    const [first, second] = fake.server.calls('POST /api/v1/asample');
    expect(r.sequences[0]!.tokens).toEqual([3]);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(95); // 1 s pause × 0.1
  });

  it('resubmits a sample whose future expired (410), with a new seq id', async () => {
    let calls = 0;
    fake.server.routes.set('POST /api/v1/asample', () =>
      calls++ === 0
        ? fake.server.future({ sequences: [] }, [{ status: 410, json: { detail: 'expired' } }])
        : fake.server.future({ sequences: [{ stop_reason: 'stop', tokens: [9] }] }),
    );
    const sampler = await client().createSamplingClient({ baseModel: 'm' });
    const r = await sampler.sample({ prompt: ModelInput.fromInts([1]) });
    expect(r.sequences[0]!.tokens).toEqual([9]);
    expect(fake.server.calls('POST /api/v1/asample').map((c) => (c.body as { seq_id: number }).seq_id)).toEqual([0, 1]);
  });

  it('computeLogprobs asks for prompt logprobs with one token', async () => {
    fake.server.routes.set('POST /api/v1/asample', () =>
      fake.server.future({ sequences: [{ stop_reason: 'length', tokens: [3] }], prompt_logprobs: [null, -0.5] }),
    );
    const sampler = await client().createSamplingClient({ baseModel: 'm' });
    expect(await sampler.computeLogprobs(ModelInput.fromInts([1, 2]))).toEqual([null, -0.5]);
    expect(fake.server.calls('POST /api/v1/asample')[0]!.body).toMatchObject({
      prompt_logprobs: true,
      sampling_params: { max_tokens: 1 },
    });
  });

  it('saveWeightsAndGetSamplingClient does an ephemeral save and samples from its session', async () => {
    fake.server.routes.set('POST /api/v1/save_weights_for_sampler', (r) =>
      fake.server.future({
        sampling_session_id: `sess:sample:${(r.body as { sampling_session_seq_id: number }).sampling_session_seq_id}`,
      }),
    );
    const tc = await client().createLoraTrainingClient({ baseModel: 'm' });
    const sampler = await tc.saveWeightsAndGetSamplingClient();
    expect(sampler.samplingSessionId).toBe('sess:sample:0');
    expect(fake.server.calls('POST /api/v1/save_weights_for_sampler')[0]!.body).toMatchObject({
      sampling_session_seq_id: 0,
      seq_id: 1,
    });
  });
});

describe('session', () => {
  it('sends a heartbeat every interval and stops on close', async () => {
    // The heartbeat's interval timer is a fake one: each advance by one interval sends exactly one heartbeat.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const sc = client({ heartbeatIntervalMs: 30 });
      await sc.sessionId();
      const beats = () => fake.server.calls('POST /api/v1/session_heartbeat');
      expect(beats()).toHaveLength(0);
      for (let i = 1; i <= 3; i++) {
        vi.advanceTimersByTime(30);
        // Wait (real timeouts; vi.waitFor would advance the fake interval itself) for that one heartbeat to land.
        while (beats().length < i) await new Promise((r) => setTimeout(r, 5));
        expect(beats()).toHaveLength(i);
      }
      expect(beats()[0]!.body).toEqual({ session_id: 'sess', type: 'session_heartbeat' });
      await sc.close();
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(300);
      expect(beats()).toHaveLength(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('warns once when heartbeats keep failing', async () => {
    fake.server.routes.set('POST /api/v1/session_heartbeat', () => ({ status: 500, json: { detail: 'down' } }));
    const sc = client({ heartbeatIntervalMs: 10 });
    await sc.sessionId();
    // The warning comes once 12 intervals passed without a good heartbeat; then ten more fail without a second one.
    await vi.waitFor(() => expect(warnings.some((w) => w.includes('heartbeat'))).toBe(true), { timeout: 20_000 });
    const seen = fake.server.calls('POST /api/v1/session_heartbeat').length;
    await vi.waitFor(
      () => expect(fake.server.calls('POST /api/v1/session_heartbeat').length).toBeGreaterThan(seen + 10),
      {
        timeout: 20_000,
      },
    );
    expect(warnings.filter((w) => w.includes('heartbeat'))).toHaveLength(1);
  });

  it('says the server answers with errors, not that it will end the session, when heartbeats fail with 5xx', async () => {
    fake.server.routes.set('POST /api/v1/session_heartbeat', () => ({ status: 500, json: { detail: 'down' } }));
    // Each heartbeat times out after one interval: long enough here for the 500 to arrive.
    const sc = client({ heartbeatIntervalMs: 250 });
    await sc.sessionId();
    await vi.waitFor(() => expect(warnings.some((w) => w.includes('heartbeat'))).toBe(true), { timeout: 20_000 });
    const w = warnings.find((x) => x.includes('heartbeat'))!;
    expect(w).toContain('heartbeats have failed');
    expect(w).not.toContain('will be terminated');
  });

  it('does not claim the server will end the session when the server is gone', async () => {
    const sc = client({ heartbeatIntervalMs: 10 });
    await sc.sessionId();
    await fake.server.close();
    await vi.waitFor(() => expect(warnings.some((w) => w.includes('reachable'))).toBe(true), { timeout: 10_000 });
    const w = warnings.find((x) => x.includes('reachable'))!;
    expect(w).toContain(`the Tinker service at ${fake.server.url} has not been reachable`);
    expect(w).not.toContain('will be terminated');
  });

  it('reads TINKER_BASE_URL and TINKER_API_KEY', async () => {
    const prev = { u: process.env.TINKER_BASE_URL, k: process.env.TINKER_API_KEY };
    process.env.TINKER_BASE_URL = fake.server.url;
    process.env.TINKER_API_KEY = 'tml-from-env';
    try {
      const sc = new ServiceClient({ warn: () => undefined });
      fake.track(sc);
      await sc.sessionId();
      expect(fake.server.requests[0]!.headers['x-api-key']).toBe('tml-from-env');
    } finally {
      if (prev.u === undefined) delete process.env.TINKER_BASE_URL;
      else process.env.TINKER_BASE_URL = prev.u;
      if (prev.k === undefined) delete process.env.TINKER_API_KEY;
      else process.env.TINKER_API_KEY = prev.k;
    }
  });

  it('never picks or starts a service itself: with no URL, key or server it refuses, naming what to set', async () => {
    const prev = { u: process.env.TINKER_BASE_URL, k: process.env.TINKER_API_KEY };
    delete process.env.TINKER_BASE_URL;
    delete process.env.TINKER_API_KEY;
    try {
      const sc = new ServiceClient({ warn: () => undefined });
      fake.track(sc);
      const err = await sc.sessionId().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConfigError);
      expect(String(err)).toContain('TINKER_BASE_URL');
      expect(String(err)).toContain('serviceClientFor');
      expect(fake.server.requests).toHaveLength(0);
    } finally {
      if (prev.u !== undefined) process.env.TINKER_BASE_URL = prev.u;
      if (prev.k !== undefined) process.env.TINKER_API_KEY = prev.k;
    }
  });

  it("asks a caller's server provider at first contact only, and releases it once on close", async () => {
    let asked = 0;
    let released = 0;
    const sc = new ServiceClient({
      server: async () => {
        asked++;
        return { baseURL: fake.server.url, apiKey: 'tml-provided', release: async () => void released++ };
      },
      backoffScale: 0.001,
      warn: () => undefined,
    });
    expect(asked).toBe(0);
    await sc.sessionId();
    expect(await sc.baseURL()).toBe(fake.server.url);
    expect(asked).toBe(1);
    expect(fake.server.requests[0]!.headers['x-api-key']).toBe('tml-provided');
    await sc.close();
    await sc.close();
    expect(released).toBe(1);
    const both = new ServiceClient({ baseURL: fake.server.url, server: async () => ({ baseURL: fake.server.url }) });
    fake.track(both);
    await expect(both.sessionId()).rejects.toThrow(/either baseURL or server/);
  });
});
