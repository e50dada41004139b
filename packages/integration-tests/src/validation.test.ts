import { datumFromTokensWeights } from '@cookbook/core';
import { startLocalTinker } from '@cookbook/local-tinker';
import { BadRequestError, RequestFailedError, ServiceClient, type TrainingClient } from '@cookbook/tinker-client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MODEL, startPair, tempRoot } from './helpers.js';

/**
 * Results are kept this long: far above a loaded machine's delays (no future of another test expires before it is
 * read), far below the session timeout (5 min), which the expiry test's jump of the clock must not reach.
 */
const FUTURE_TTL_MS = 30_000;
let ctx: Awaited<ReturnType<typeof startPair>>;
let tc: TrainingClient;
/** A second model that only raw requests touch, so their seq ids never collide with tc's. */
let rawModelId: string;
let cleanup: () => Promise<void>;
let root: string;

beforeAll(async () => {
  ({ root, cleanup } = await tempRoot());
  ctx = await startPair({ root, maxBodyBytes: 64 * 1024, futureTtlMs: FUTURE_TTL_MS });
  tc = await ctx.client.createLoraTrainingClient({ baseModel: MODEL, rank: 4 });
  rawModelId = (await ctx.client.createLoraTrainingClient({ baseModel: MODEL, rank: 4 })).modelId;
});
afterAll(async () => {
  await ctx.stop();
  await cleanup();
});

/** POST raw JSON to the service. */
async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${ctx.service.baseURL}/api/v1/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

const tokens = (n: number, base = 100) => Array.from({ length: n }, (_, i) => base + i);
const fb = (data: unknown[], lossFn = 'cross_entropy', config?: Record<string, number>) => ({
  forward_backward_input: { data, loss_fn: lossFn, ...(config ? { loss_fn_config: config } : {}) },
  model_id: rawModelId,
});
const datum = (n: number, inputs: Record<string, unknown>) => ({
  model_input: { chunks: [{ type: 'encoded_text', tokens: tokens(n) }] },
  loss_fn_inputs: inputs,
});

describe('the service rejects bad input with a 400 that names the problem', () => {
  it('a malformed body names the missing field', async () => {
    const r = await post('forward_backward', { forward_backward_input: { data: [], loss_fn: 'cross_entropy' } });
    expect(r.status).toBe(400);
    expect(String(r.body.detail)).toMatch(/model_id/);
  });

  it('invalid JSON', async () => {
    const r = await post('create_session', '{"tags": [');
    expect(r.status).toBe(400);
    expect(String(r.body.detail)).toMatch(/not valid JSON/);
  });

  it('a loss_fn_inputs tensor whose length differs from the model input', async () => {
    const r = await post('forward_backward', fb([datum(4, { target_tokens: { data: tokens(3), dtype: 'int64' } })]));
    expect(r.status).toBe(400);
    expect(String(r.body.detail)).toMatch(
      /data\[0\]\.loss_fn_inputs\.target_tokens has leading length 3 but model_input has 4/,
    );
  });

  it('token ids outside the vocabulary, in the input and in the targets', async () => {
    const big = { model_input: { chunks: [{ type: 'encoded_text', tokens: [1, 10_000_000] }] }, loss_fn_inputs: {} };
    let r = await post('forward_backward', fb([big]));
    expect(r.status).toBe(400);
    expect(String(r.body.detail)).toMatch(/token id 10000000 is outside the vocabulary \[0, 151936\)/);
    r = await post('forward_backward', fb([datum(2, { target_tokens: { data: [5, 999_999], dtype: 'int64' } })]));
    expect(r.status).toBe(400);
    expect(String(r.body.detail)).toMatch(/target_tokens: token id 999999/);
  });

  it('an unknown loss, an unknown loss config key, and a missing loss input', async () => {
    let r = await post(
      'forward_backward',
      fb([datum(2, { target_tokens: { data: tokens(2), dtype: 'int64' } })], 'hinge'),
    );
    expect(r.status).toBe(400);
    expect(String(r.body.detail)).toMatch(/loss_fn/);
    r = await post(
      'forward_backward',
      fb([datum(2, { target_tokens: { data: tokens(2), dtype: 'int64' } })], 'ppo', { clip_low: 0.5 }),
    );
    expect(r.status).toBe(400);
    expect(String(r.body.detail)).toMatch(/clip_low/);
    r = await post(
      'forward_backward',
      fb([datum(2, { target_tokens: { data: tokens(2), dtype: 'int64' } })], 'importance_sampling'),
    );
    expect(r.status).toBe(400);
    expect(String(r.body.detail)).toMatch(/advantages|logprobs/);
  });

  it('bad Adam parameters', async () => {
    const r = await post('optim_step', {
      adam_params: { learning_rate: -1 },
      model_id: rawModelId,
      type: 'optim_step',
    });
    expect(r.status).toBe(400);
    expect(String(r.body.detail)).toMatch(/learning_rate/);
  });

  it('a non-finite loss input, an image chunk, and an empty input', async () => {
    const inf = await post(
      'forward_backward',
      '{"forward_backward_input":{"loss_fn":"cross_entropy","data":[{"model_input":{"chunks":[{"type":"encoded_text","tokens":[1,2]}]},' +
        '"loss_fn_inputs":{"target_tokens":{"data":[2,3],"dtype":"int64"},"weights":{"data":[1,1e999],"dtype":"float32"}}}]},' +
        `"model_id":"${rawModelId}"}`,
    );
    expect(inf.status).toBe(400);
    expect(String(inf.body.detail)).toMatch(
      /field "forward_backward_input\.data\[0\]\.loss_fn_inputs\.weights\.data\[1\]".*Infinity/,
    );
    const image = await post(
      'forward_backward',
      fb([
        {
          model_input: { chunks: [{ type: 'image', data: '', format: 'png', expected_tokens: 2 }] },
          loss_fn_inputs: {},
        },
      ]),
    );
    expect(image.status).toBe(400);
    expect(String(image.body.detail)).toMatch(
      /chunks\[0\]: image chunks cannot be read by model "[^"]+" on this embedded service \(its engines are text-only\); images need a vision model .* on the hosted Tinker service/,
    );
    const imagePrompt = await post('asample', {
      base_model: MODEL,
      prompt: {
        chunks: [
          { type: 'encoded_text', tokens: [1] },
          { type: 'image', data: 'AA==', format: 'jpeg', expected_tokens: 4 },
        ],
      },
      num_samples: 1,
      sampling_params: { max_tokens: 2 },
    });
    expect(imagePrompt.status).toBe(400);
    expect(String(imagePrompt.body.detail)).toMatch(
      new RegExp(`prompt\\.chunks\\[1\\]: image chunks cannot be read by model "${MODEL}" on this embedded service`),
    );
    const empty = await post('forward_backward', fb([{ model_input: { chunks: [] }, loss_fn_inputs: {} }]));
    expect(empty.status).toBe(400);
    expect(String(empty.body.detail)).toMatch(/data\[0\]\.model_input is empty/);
  });

  it('checkpoint names, paths and sampler addressing are checked', async () => {
    const badName = await post('save_weights', { model_id: rawModelId, path: 'a/b', type: 'save_weights' });
    expect(badName.status).toBe(400);
    expect(String(badName.body.detail)).toMatch(/path/);
    const neither = await post('save_weights_for_sampler', { model_id: rawModelId });
    expect(neither.status).toBe(400);
    expect(String(neither.body.detail)).toMatch(/needs either "path" \(a name\) or "sampling_session_seq_id"/);
    const notPath = await post('weights_info', { tinker_path: 'tinker://run/other/x' });
    expect(notPath.status).toBe(400);
    expect(String(notPath.body.detail)).toMatch(/is not a checkpoint path/);
    const session = await ctx.client.sessionId();
    const both = await post('create_sampling_session', {
      session_id: session,
      sampling_session_seq_id: 900,
      base_model: MODEL,
      model_path: 'tinker://r/sampler_weights/x',
    });
    expect(both.status).toBe(400);
    expect(String(both.body.detail)).toMatch(/exactly one of base_model or model_path/);
    const missing = await post('create_sampling_session', {
      session_id: session,
      sampling_session_seq_id: 901,
      model_path: 'tinker://nope:train:0/sampler_weights/x',
    });
    expect(missing.status).toBe(404);
    expect(String(missing.body.detail)).toMatch(
      /checkpoint tinker:\/\/nope:train:0\/sampler_weights\/x does not exist/,
    );
  });

  it('an unknown base model lists the available ones', async () => {
    const sc = new ServiceClient({ baseURL: ctx.service.baseURL, backoffScale: 0.01, warn: () => undefined });
    await expect(sc.createLoraTrainingClient({ baseModel: 'acme/unknown' })).rejects.toThrow(
      /unknown base_model "acme\/unknown".*local\/qwen3-tiny/,
    );
    // A hosted model name asked of the embedded service: the error says how to reach the hosted service.
    await expect(sc.createLoraTrainingClient({ baseModel: 'Qwen/Qwen3-8B' })).rejects.toThrow(
      /"Qwen\/Qwen3-8B" is a model of the hosted Tinker service: set TINKER_API_KEY to train it on the hosted Tinker service/,
    );
    await sc.close();
  });

  it('a body over the size limit gets 413', async () => {
    const r = await post(
      'forward_backward',
      fb([datum(20_000, { target_tokens: { data: tokens(20_000), dtype: 'int64' } })]),
    );
    expect(r.status).toBe(413);
    expect(String(r.body.detail)).toMatch(/exceeds this service's limit of \d+ bytes \(cookbook serve max_body_mb=…\)/);
  });

  it('an unknown model or session is a 404', async () => {
    expect((await post('optim_step', { adam_params: {}, model_id: 'nope:train:0' })).status).toBe(404);
    expect((await post('create_model', { session_id: 'nope', model_seq_id: 0, base_model: MODEL })).status).toBe(404);
  });

  it('a duplicate checkpoint name fails the save as a user error; overwrite replaces it', async () => {
    await tc.saveState('dup');
    await expect(tc.saveState('dup')).rejects.toThrow(/user error.*already exists.*overwrite/);
    expect((await tc.saveState('dup', { overwrite: true })).path).toMatch(/\/weights\/dup$/);
  });

  it('load_weights is refused unless it is a model’s first request', async () => {
    const { path } = await tc.saveState('for-load');
    await expect(tc.loadState(path)).rejects.toBeInstanceOf(BadRequestError);
    await expect(tc.loadState(path)).rejects.toThrow(/LoadWeights is not permitted with seq_id/);
  });

  it('an engine-level failure fails the future with category "user"', async () => {
    // dro needs beta; the service checks config keys up front but beta's absence surfaces from the engine.
    const d = datumFromTokensWeights(tokens(4), [1, 1, 1, 1]);
    const data = [
      {
        modelInput: d.modelInput,
        lossFnInputs: {
          target_tokens: d.lossFnInputs.target_tokens!,
          logprobs: { data: [0, 0, 0], dtype: 'float32' as const },
          advantages: { data: [1, 1, 1], dtype: 'float32' as const },
        },
      },
    ];
    const err = await tc.forwardBackward(data, 'dro').then(
      () => undefined,
      (e: unknown) => e,
    );
    if (err instanceof RequestFailedError) expect(err.category).toBe('user');
    else expect(err).toBeInstanceOf(BadRequestError);
    expect(String((err as Error).message)).toMatch(/beta/);
  });

  it('retrieve_future: unknown id → 404, expired → 410', async () => {
    expect((await post('retrieve_future', { request_id: 'req_nope' })).status).toBe(404);
    const sub = await post('optim_step', { adam_params: {}, model_id: rawModelId, type: 'optim_step' });
    const id = String(sub.body.request_id);
    // Read until the result is out (a long poll may answer try_again first): only a done future expires.
    for (;;) {
      const r = await post('retrieve_future', { request_id: id });
      expect(r.status).toBe(200);
      if (r.body.type !== 'try_again') break;
    }
    // Then the clock (Date only: timers and the service's sweeps stay real) moves past the TTL.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + FUTURE_TTL_MS + 1_000 });
    try {
      expect((await post('retrieve_future', { request_id: id })).status).toBe(410);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a repeated seq_id with the same body returns the same future; with another body it is a 409', async () => {
    const a = await post('optim_step', { adam_params: {}, model_id: rawModelId, seq_id: 1000 });
    const b = await post('optim_step', { adam_params: {}, model_id: rawModelId, seq_id: 1000 });
    expect(b.body.request_id).toBe(a.body.request_id);
    const c = await post('optim_step', { adam_params: { learning_rate: 1 }, model_id: rawModelId, seq_id: 1000 });
    expect(c.status).toBe(409);
  });
});

describe('authentication and binding', () => {
  it('requires X-API-Key when a key is configured, compared exactly', async () => {
    const { root: r2, cleanup: c2 } = await tempRoot();
    const svc = await startLocalTinker({ root: r2, apiKey: 'tml-secret' });
    try {
      const call = (key?: string) =>
        fetch(`${svc.baseURL}/api/v1/create_session`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...(key ? { 'X-API-Key': key } : {}) },
          body: '{}',
        }).then((r) => r.status);
      expect(await call()).toBe(401);
      expect(await call('tml-secreT')).toBe(401);
      expect(await call('tml-secret')).toBe(200);
      // The protobuf forward_backward route is guarded the same way.
      const { ForwardBackwardRequestProto } = await import('@cookbook/tinker-wire');
      const proto = await fetch(`${svc.baseURL}/api/v1/forward_backward`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-protobuf' },
        body: ForwardBackwardRequestProto.encode(
          ForwardBackwardRequestProto.fromObject({ model_id: 'm', seq_id: 1 }),
        ).finish(),
      });
      expect(proto.status).toBe(401);
      expect((await fetch(`${svc.baseURL}/api/v1/healthz`)).status).toBe(200);
    } finally {
      await svc.close();
      await c2();
    }
  });

  it('refuses a non-loopback address without a key', async () => {
    await expect(startLocalTinker({ root, host: '0.0.0.0' })).rejects.toThrow(
      /refusing to bind 0.0.0.0 without an API key/,
    );
  });
});

describe('memory bounds of a long run', () => {
  it('keeps only the most recent ephemeral samplers; older ones get a 404 that says why', async () => {
    const samplers = [];
    for (let i = 0; i < 18; i++) samplers.push(await tc.saveWeightsAndGetSamplingClient());
    const { ModelInput } = await import('@cookbook/core');
    const prompt = ModelInput.fromInts([1, 2, 3]);
    const last = await samplers.at(-1)!.sample({ prompt, samplingParams: { maxTokens: 1 } });
    expect(last.sequences).toHaveLength(1);
    await expect(samplers[0]!.sample({ prompt, samplingParams: { maxTokens: 1 } })).rejects.toThrow(
      /dropped after the 16 most recent/,
    );
  });
});
