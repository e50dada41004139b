/**
 * Every route of the embedded service, called with bodies shaped exactly as the official Python SDK sends them when
 * it serialises with pydantic's `exclude_unset` (fields holding their defaults left out: chunk `type`, request
 * `type`, `num_samples`, `optimizer`, `allow_metadata_only`, Adam and sampling defaults, …) and the SDK's headers.
 * Regression: the SDK's very first forward_backward got `400 … chunks[0].type: Invalid discriminator value`.
 */

import { randomUUID } from 'node:crypto';
import { type LocalTinker, startLocalTinker } from '@cookbook/local-tinker';
import { ForwardBackwardRequestProto } from '@cookbook/tinker-wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL, tempRoot } from './helpers.js';

let service: LocalTinker;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const t = await tempRoot();
  cleanup = t.cleanup;
  // A short default max_tokens keeps the sample with empty sampling params quick.
  service = await startLocalTinker({ root: t.root, longPollMs: 2_000, limits: { defaultMaxTokens: 8 } });
});
afterAll(async () => {
  await service.close({ graceMs: 0 });
  await cleanup();
});

interface Reply {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** One request as the SDK makes it: JSON, its headers, an idempotency key on every non-GET. */
async function sdk(method: string, path: string, body?: unknown, extra: Record<string, string> = {}): Promise<Reply> {
  const headers: Record<string, string> = {
    Accept: 'application/json',
    'User-Agent': 'AsyncTinker/Python 0.25.0',
    'X-Stainless-Package-Version': '0.25.0',
    'X-Stainless-Retry-Count': '0',
    ...(method === 'GET' ? {} : { 'X-Idempotency-Key': `stainless-python-retry-${randomUUID()}` }),
    ...(body === undefined || body instanceof Uint8Array ? {} : { 'Content-Type': 'application/json' }),
    ...extra,
  };
  const r = await fetch(`${service.baseURL}/api/v1/${path}`, {
    method,
    headers,
    redirect: 'manual',
    ...(body === undefined ? {} : { body: body instanceof Uint8Array ? body : JSON.stringify(body) }),
  });
  const text = await r.text();
  let parsed: Record<string, unknown> = {};
  if (text && (r.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
  return { status: r.status, body: parsed, headers: r.headers };
}

/** A route answered 2xx; returns its body. */
async function ok(method: string, path: string, body?: unknown, extra?: Record<string, string>) {
  const r = await sdk(method, path, body, extra);
  expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
  return r.body;
}

/** Submit a future-returning request and poll it as the SDK does (`{request_id}` only, request-type header). */
async function future(path: string, body: unknown, requestType: string): Promise<Record<string, unknown>> {
  const submitted = await ok('POST', path, body);
  for (let i = 0; ; i++) {
    const r = await ok(
      'POST',
      'retrieve_future',
      { request_id: submitted.request_id },
      { 'X-Tinker-Request-Iteration': String(i), 'X-Tinker-Request-Type': requestType },
    );
    if (r.type === 'try_again') continue;
    expect(r, `${path}: ${JSON.stringify(r)}`).not.toHaveProperty('error');
    return r;
  }
}

/** A datum as `Datum(model_input=ModelInput.from_ints(...), loss_fn_inputs={...: list})` serialises. */
const datum = (tokens: number[]) => ({
  model_input: { chunks: [{ tokens: tokens.slice(0, -1) }] },
  loss_fn_inputs: {
    target_tokens: { data: tokens.slice(1), dtype: 'int64', shape: [tokens.length - 1] },
    weights: { data: tokens.slice(1).map(() => 1), dtype: 'float32', shape: [tokens.length - 1] },
  },
});

describe('requests shaped as the official SDK sends them pass on every route', () => {
  it('service, session, training, checkpoints, sampling, futures and REST', async () => {
    // Service and session.
    await ok('POST', 'client/config', { sdk_version: '0.25.0' });
    await ok('POST', 'client/dynamic_config', { sdk_version: '0.25.0' });
    await ok('GET', 'healthz');
    expect((await ok('GET', 'get_server_capabilities')).supported_models).toBeInstanceOf(Array);
    const session = (await ok('POST', 'create_session', { tags: [], sdk_version: '0.25.0' })).session_id as string;
    await ok('POST', 'session_heartbeat', { session_id: session });
    await ok('POST', 'telemetry', {
      events: [{ event: 'SESSION_START', event_id: randomUUID(), event_session_index: 0, severity: 'INFO' }],
      platform: 'linux',
      sdk_version: '0.25.0',
      session_id: session,
    });

    // A model: lora_config with only the rank set.
    const created = await future(
      'create_model',
      { session_id: session, model_seq_id: 0, base_model: MODEL, lora_config: { rank: 4 } },
      'CreateModel',
    );
    const model = created.model_id as string;
    expect((await ok('POST', 'get_info', { model_id: model })).model_id).toBe(model);

    // forward / forward_backward: chunks without `type`; loss_fn_config left out.
    const fwd = await future(
      'forward',
      { forward_input: { data: [datum([1, 2, 3, 4])], loss_fn: 'cross_entropy' }, model_id: model, seq_id: 1 },
      'Forward',
    );
    expect((fwd.loss_fn_outputs as unknown[]).length).toBe(1);
    await future(
      'forward_backward',
      {
        forward_backward_input: { data: [datum([5, 6, 7, 8]), datum([9, 10, 11])], loss_fn: 'cross_entropy' },
        model_id: model,
        seq_id: 2,
      },
      'ForwardBackward',
    );
    // Loss inputs given as plain lists where dtype and shape were left out, and a datum without loss_fn_inputs.
    await future(
      'forward',
      {
        forward_input: {
          data: [
            {
              model_input: { chunks: [{ tokens: [1, 2] }] },
              loss_fn_inputs: { target_tokens: { data: [2, 3] }, weights: { data: [1, 0.5] } },
            },
          ],
          loss_fn: 'cross_entropy',
        },
        model_id: model,
        seq_id: 3,
      },
      'Forward',
    );
    // Protobuf forward_backward whose tensors leave the dtype UNSPECIFIED.
    const proto = ForwardBackwardRequestProto.encode(
      ForwardBackwardRequestProto.fromObject({
        model_id: model,
        seq_id: 4,
        loss_fn: 'cross_entropy',
        data: [
          {
            model_input: [{ encoded_text: { tokens: new Uint8Array(new Int32Array([3, 4, 5]).buffer) } }],
            loss_fn_inputs: {
              target_tokens: { dense: new Uint8Array(new BigInt64Array([4n, 5n, 6n]).buffer), shape: [3] },
              weights: { dense: new Uint8Array(new Float32Array([1, 1, 1]).buffer), shape: [3] },
            },
          },
        ],
      }),
    ).finish();
    const protoFuture = await ok('POST', 'forward_backward', proto, { 'Content-Type': 'application/x-protobuf' });
    expect(protoFuture).toHaveProperty('request_id');

    // optim_step: AdamParams with one field set, then with none.
    await future('optim_step', { adam_params: { learning_rate: 1e-3 }, model_id: model, seq_id: 5 }, 'OptimStep');
    await future('optim_step', { adam_params: {}, model_id: model, seq_id: 6 }, 'OptimStep');

    // Checkpoints: overwrite / optimizer / ttl left out.
    const saved = await future('save_weights', { model_id: model, path: 'step-6', seq_id: 7 }, 'SaveWeights');
    const statePath = saved.path as string;
    const named = await future(
      'save_weights_for_sampler',
      { model_id: model, path: 'sampler-6', seq_id: 8 },
      'SaveWeightsForSampler',
    );
    const samplerPath = named.path as string;
    const ephemeral = await future(
      'save_weights_for_sampler',
      { model_id: model, sampling_session_seq_id: 0, seq_id: 9 },
      'SaveWeightsForSampler',
    );
    expect(ephemeral.sampling_session_id).toBe(`${session}:sample:0`);
    const info = await ok('POST', 'weights_info', { tinker_path: statePath });
    expect(info).toMatchObject({ base_model: MODEL, is_lora: true, lora_rank: 4 });
    const second = (
      await future(
        'create_model',
        { session_id: session, model_seq_id: 1, base_model: MODEL, lora_config: { rank: 4 } },
        'CreateModel',
      )
    ).model_id as string;
    await future('load_weights', { model_id: second, path: statePath, seq_id: 1 }, 'LoadWeights');

    // Sampling: num_samples, topk_prompt_logprobs, temperature, top_k, top_p, stop, seed left out.
    const fromPath = (
      await ok('POST', 'create_sampling_session', {
        session_id: session,
        sampling_session_seq_id: 1,
        model_path: samplerPath,
      })
    ).sampling_session_id as string;
    const fromBase = (
      await ok('POST', 'create_sampling_session', {
        session_id: session,
        sampling_session_seq_id: 2,
        base_model: MODEL,
      })
    ).sampling_session_id as string;
    for (const [i, sampler] of [ephemeral.sampling_session_id as string, fromPath, fromBase].entries()) {
      const out = await future(
        'asample',
        {
          prompt: { chunks: [{ tokens: [1, 2, 3] }] },
          sampling_params: { max_tokens: 4 },
          sampling_session_id: sampler,
          seq_id: i,
        },
        'Sample',
      );
      expect((out.sequences as unknown[]).length).toBe(1);
    }
    // compute_logprobs: num_samples 1, max_tokens 1, prompt_logprobs true; and sampling params left empty.
    const logprobs = await future(
      'asample',
      {
        num_samples: 1,
        prompt: { chunks: [{ tokens: [1, 2, 3] }] },
        sampling_params: { max_tokens: 1 },
        prompt_logprobs: true,
        sampling_session_id: fromBase,
        seq_id: 3,
      },
      'Sample',
    );
    expect((logprobs.prompt_logprobs as unknown[])[0]).toBeNull();
    await future(
      'asample',
      { prompt: { chunks: [{ tokens: [1] }] }, sampling_params: {}, sampling_session_id: fromBase, seq_id: 4 },
      'Sample',
    );
    await future(
      'asample',
      { prompt: { chunks: [{ tokens: [1] }] }, sampling_params: { max_tokens: 2 }, base_model: MODEL },
      'Sample',
    );

    // REST.
    const run = encodeURIComponent(model);
    expect((await ok('GET', 'training_runs')).training_runs).toBeInstanceOf(Array);
    expect((await ok('GET', `training_runs/${run}`)).training_run_id).toBe(model);
    expect((await ok('GET', `training_runs/${run}/checkpoints`)).checkpoints).toHaveLength(2);
    expect((await ok('GET', `models/${run}/checkpoints`)).checkpoints).toHaveLength(2);
    expect((await ok('GET', 'checkpoints')).checkpoints).toBeInstanceOf(Array);
    expect((await ok('GET', 'sessions')).sessions).toContain(session);
    expect((await ok('GET', `sessions/${session}`)).training_run_ids).toContain(model);
    expect((await ok('GET', `samplers/${encodeURIComponent(fromPath)}`)).model_path).toBe(samplerPath);
    const archive = await sdk('GET', `training_runs/${run}/checkpoints/sampler_weights/sampler-6/archive`);
    expect(archive.status).toBe(302);
    const download = await fetch(new URL(archive.headers.get('location')!, service.baseURL));
    expect(download.status).toBe(200);
    await ok('POST', `training_runs/${run}/checkpoints/weights/step-6/publish`);
    await ok('DELETE', `training_runs/${run}/checkpoints/weights/step-6/publish`);
    await ok('PUT', `training_runs/${run}/checkpoints/weights/step-6/ttl`, { ttl_seconds: 3600 });
    await ok('PUT', `training_runs/${run}/checkpoints/weights/step-6/ttl`, {});
    await ok('DELETE', `training_runs/${run}/checkpoints/sampler_weights/sampler-6`);

    // Unload.
    await future('unload_model', { model_id: second }, 'UnloadModel');
    const gone = await sdk('POST', 'get_info', { model_id: second });
    expect(gone.status).toBe(410);
  });

  it('still refuses what the protocol forbids, naming the field', async () => {
    const session = (await ok('POST', 'create_session', { tags: [], sdk_version: '0.25.0' })).session_id as string;
    const bad = async (path: string, body: unknown, field: RegExp) => {
      const r = await sdk('POST', path, body);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(String(r.body.detail)).toMatch(field);
    };
    await bad('create_model', { session_id: session, model_seq_id: 0, base_model: MODEL, lora_config: {} }, /rank/);
    await bad(
      'create_model',
      { session_id: session, model_seq_id: 0, base_model: MODEL, lora_config: { rank: 4, train_attn: 'yes' } },
      /train_attn/,
    );
    await bad('forward', { forward_input: { data: [], loss_fn: 'mse' }, model_id: 'm' }, /loss_fn/);
    await bad(
      'forward',
      {
        forward_input: {
          data: [{ model_input: { chunks: [{ type: 'video', tokens: [1] }] } }],
          loss_fn: 'cross_entropy',
        },
        model_id: 'm',
      },
      /chunks\[0\]/,
    );
    await bad(
      'forward',
      {
        forward_input: {
          data: [
            { model_input: { chunks: [{ tokens: [1] }] }, loss_fn_inputs: { weights: { data: [1], dtype: 'bf16' } } },
          ],
          loss_fn: 'cross_entropy',
        },
        model_id: 'm',
      },
      /dtype/,
    );
    await bad(
      'asample',
      { prompt: { chunks: [{ tokens: [1] }] }, sampling_params: { top_p: 2 }, base_model: MODEL },
      /top_p/,
    );
    await bad('optim_step', { adam_params: { beta1: 1 }, model_id: 'm' }, /beta1/);
    await bad('save_weights', { model_id: 'm', path: '..' }, /path/);
  });
});
