/**
 * The contract suite: every request the client makes in a full flow (training, sampling, checkpoints, REST, retries,
 * chunking, JWT) against the embedded service is recorded on the wire and checked against the request contract of
 * the official SDK 0.25.0 (`@cookbook/tinker-wire` `contract.ts`): zero violations. A planted dropped field, unknown
 * field or extra protobuf field must be caught.
 */
import { ModelInput } from '@cookbook/core';
import { type LocalTinker, startLocalTinker } from '@cookbook/local-tinker';
import { NotFoundError, ServiceClient } from '@cookbook/tinker-client';
import { checkRequest, type RecordedWireRequest, routeKey } from '@cookbook/tinker-wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedBatch, MODEL, tempRoot } from './helpers.js';
import { RecordingProxy } from './recording-proxy.js';

let root: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ root, cleanup } = await tempRoot());
});
afterAll(async () => {
  await cleanup();
});

interface Flow {
  requests: RecordedWireRequest[];
  violations: string[];
}

/** One full flow through a recording proxy in front of a service with `clientFlags`. */
async function runFlow(clientFlags: Record<string, unknown>, apiKey: string): Promise<Flow> {
  const service: LocalTinker = await startLocalTinker({
    root,
    apiKey,
    longPollMs: 2000,
    protocol: { clientFlags, dynamicRefreshIntervalS: 10 },
  });
  const proxy = new RecordingProxy(service.baseURL);
  await proxy.start();
  // Backpressure once on the first sample and on the first poll of a sample: the client must resubmit / back off.
  let sampled429 = false;
  let polled429 = false;
  proxy.intercept = (r) => {
    if (r.path === '/api/v1/asample' && !sampled429) {
      sampled429 = true;
      return { status: 429, json: { detail: 'backpressure' } };
    }
    if (r.path === '/api/v1/retrieve_future' && r.headers['x-tinker-request-type'] === 'Sample' && !polled429) {
      polled429 = true;
      return { status: 429, json: { detail: 'slow down' } };
    }
    return undefined;
  };
  const client = new ServiceClient({
    baseURL: proxy.url,
    apiKey,
    backoffScale: 0.01,
    heartbeatIntervalMs: 300,
    dynamicConfigScale: 0.02,
    warn: () => undefined,
    projectId: 'proj-1',
  });
  try {
    const tc = await client.createLoraTrainingClient({ baseModel: MODEL, rank: 4, userMetadata: { task: 'contract' } });
    const batch = fixedBatch(0, 5, 8);
    const fb = tc.forwardBackward(batch, 'cross_entropy'); // 3 chunks of ≤ 2
    const opt = tc.optimStep({ learningRate: 1e-3 });
    expect((await fb).lossFnOutputs).toHaveLength(5);
    await opt;
    expect((await tc.forward(batch.slice(0, 2), 'cross_entropy')).lossFnOutputs).toHaveLength(2);
    await tc.forwardBackwardCustom(batch.slice(0, 1), (_d, lps) => ({
      loss: lps[0]!.reduce((a, b) => a - b, 0),
      gradLogprobs: [Array.from(lps[0]!, () => -1)],
    }));
    await tc.forwardBackward(batch.slice(0, 2), 'importance_sampling').then(
      () => undefined,
      () => undefined, // missing advantages: the service's answer does not matter, the request's form does
    );
    const state = await tc.saveState('s1', { ttlSeconds: 3600 });
    await tc.saveState('s1', { overwrite: true });
    const named = await tc.saveWeightsForSampler('w1');
    await tc.getInfo();
    const sc = await tc.saveWeightsAndGetSamplingClient();
    const prompt = ModelInput.fromInts([11, 12, 13, 14]);
    const s1 = await sc.sample({ prompt, numSamples: 2, samplingParams: { maxTokens: 3, seed: 7, stop: [5] } });
    expect(s1.sequences).toHaveLength(2);
    expect(await sc.computeLogprobs(prompt)).toHaveLength(4);
    await sc.sample({ prompt, samplingParams: { maxTokens: 1 }, topkPromptLogprobs: 2, includePromptLogprobs: true });
    await sc.getInfo();
    const fromPath = await client.createSamplingClient({ modelPath: named.path! });
    await fromPath.sample({ prompt, samplingParams: { maxTokens: 2, temperature: 0 } });
    const base = await client.createSamplingClient({ baseModel: MODEL });
    await base.sample({ prompt, samplingParams: { maxTokens: 1, stop: 'x' } });
    const resumed = await client.createTrainingClientFromState(state.path, { optimizer: true });
    await resumed.forwardBackward(batch.slice(0, 1), 'cross_entropy');
    await resumed.optimStep();
    await client.health();
    await client.getServerCapabilities();
    const rest = await client.createRestClient();
    await rest.listTrainingRuns();
    await rest.listTrainingRuns({ projectId: 'proj-1', accessScope: 'accessible' });
    await rest.getTrainingRun(tc.modelId);
    await rest.listCheckpoints(tc.modelId);
    await rest.listUserCheckpoints();
    await rest.getWeightsInfo(state.path);
    await rest.publishCheckpoint(named.path!);
    await rest.unpublishCheckpoint(named.path!);
    await rest.setCheckpointTtl(named.path!, 600);
    await rest.setCheckpointTtl(named.path!, null);
    await rest.getCheckpointArchiveUrl(named.path!);
    await rest.getSampler(sc.samplingSessionId);
    await rest.listSessions();
    const sessionId = await client.sessionId();
    await rest.getSession(sessionId);
    // Hosted-only routes: the local service refuses them with a clear 404; the requests still follow the contract.
    await expect(rest.assignSessionProject(sessionId, 'proj-2')).rejects.toBeInstanceOf(NotFoundError);
    await expect(rest.exportSessionTrace(sessionId)).rejects.toThrow(/no session traces/);
    await expect(rest.getAuditLog({ eventType: 'checkpoints', day: '2026-01-02' })).rejects.toThrow(/audit log/);
    await expect(rest.getBillingUsage('2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z')).rejects.toThrow(/billing/);
    await rest.deleteCheckpoint(named.path!);
    // Wait for a heartbeat and a dynamic_config refresh to have gone through (events, however fast the flow ran).
    const seen = (route: string) => proxy.requests.some((r) => `${r.method} ${r.path}` === route);
    while (!seen('POST /api/v1/session_heartbeat') || !seen('POST /api/v1/client/dynamic_config')) {
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await client.close();
    await proxy.close();
    await service.close();
  }
  expect(sampled429 && polled429).toBe(true);
  return { requests: proxy.requests, violations: proxy.requests.flatMap(checkRequest) };
}

describe('contract: every request of a full flow matches SDK 0.25.0', () => {
  let plain: Flow;
  let jwtFlow: Flow;

  it('default flags, zstd, chunks of 2 in parallel: zero violations', async () => {
    plain = await runFlow({ fwdbwd_max_chunk_len: 2, proto_compress_fwdbwd: true }, 'tml-contract-key');
    expect(plain.violations).toEqual([]);
    const hit = new Set(plain.requests.map((r) => routeKey(r.method, r.path)));
    for (const route of [
      'POST /api/v1/client/config',
      'POST /api/v1/client/dynamic_config',
      'POST /api/v1/create_session',
      'POST /api/v1/session_heartbeat',
      'POST /api/v1/create_model',
      'POST /api/v1/forward_backward',
      'POST /api/v1/optim_step',
      'POST /api/v1/save_weights',
      'POST /api/v1/save_weights_for_sampler',
      'POST /api/v1/load_weights',
      'POST /api/v1/weights_info',
      'POST /api/v1/create_sampling_session',
      'POST /api/v1/asample',
      'POST /api/v1/retrieve_future',
      'PUT /api/v1/sessions/{id}/project',
      'GET /api/v1/audit',
      'GET /api/v1/billing/usage/events',
    ]) {
      expect(hit.has(route), route).toBe(true);
    }
    // Retries: the sample after the 429 reused its seq_id with a new idempotency key.
    const samples = plain.requests.filter((r) => r.path === '/api/v1/asample');
    const body = (r: RecordedWireRequest) => JSON.parse(new TextDecoder().decode(r.body)) as { seq_id: number };
    expect(body(samples[1]!).seq_id).toBe(body(samples[0]!).seq_id);
    expect(samples[1]!.headers['x-idempotency-key']).not.toBe(samples[0]!.headers['x-idempotency-key']);
    expect(
      plain.requests
        .filter((r) => r.path === '/api/v1/forward_backward')
        .every((r) => r.headers['content-encoding'] === 'zstd'),
    ).toBe(true);
  });

  it('JWT mode, create-via-load, serial chunks: zero violations', async () => {
    jwtFlow = await runFlow(
      {
        pjwt_auth_enabled: true,
        create_model_via_load_weights: true,
        parallel_fwdbwd_chunks: false,
        fwdbwd_max_chunk_len: 2,
      },
      'tml-contract-key',
    );
    const flow = jwtFlow;
    expect(flow.violations).toEqual([]);
    const tokens = flow.requests.filter((r) => r.path === '/api/v1/auth/token');
    expect(tokens).toHaveLength(1);
    const after = flow.requests.slice(flow.requests.indexOf(tokens[0]!) + 1);
    expect(after.every((r) => r.headers['x-api-key'] !== 'tml-contract-key')).toBe(true);
    const loads = flow.requests.filter((r) => r.path === '/api/v1/load_weights');
    expect(JSON.parse(new TextDecoder().decode(loads[0]!.body))).toMatchObject({ model_seq_id: 1, optimizer: true });
    expect(flow.requests.some((r) => r.path === '/api/v1/weights_info' && r.method === 'POST')).toBe(true); // REST
  });

  it('fails on a dropped required field, an unknown field, a missing default and an extra protobuf field', () => {
    const pick = (path: string) => plain.requests.find((r) => r.path === path)!;
    const withBody = (r: RecordedWireRequest, edit: (b: Record<string, unknown>) => void): RecordedWireRequest => {
      const b = JSON.parse(new TextDecoder().decode(r.body)) as Record<string, unknown>;
      edit(b);
      return { ...r, body: new TextEncoder().encode(JSON.stringify(b)) };
    };
    const session = pick('/api/v1/create_session');
    expect(checkRequest(session)).toEqual([]);
    expect(checkRequest(withBody(session, (b) => delete b.user_metadata)).join('\n')).toMatch(/user_metadata/);
    const optim = pick('/api/v1/optim_step');
    expect(checkRequest(withBody(optim, (b) => (b.extra = 1))).join('\n')).toMatch(/extra/);
    expect(
      checkRequest(withBody(optim, (b) => delete (b.adam_params as Record<string, unknown>).grad_clip_norm)).join('\n'),
    ).toMatch(/grad_clip_norm/);
    const sample = pick('/api/v1/asample');
    expect(checkRequest(withBody(sample, (b) => delete b.topk_prompt_logprobs)).join('\n')).toMatch(/topk_prompt/);
    const noKey = { ...optim, headers: { ...optim.headers, 'x-idempotency-key': undefined } };
    expect(checkRequest(noKey).join('\n')).toMatch(/X-Idempotency-Key/);
    const fwd = jwtFlow.requests.find((r) => r.path === '/api/v1/forward_backward')!;
    expect(fwd.headers['content-encoding']).toBeUndefined();
    const raw = fwd.body;
    const plainFwd = fwd;
    expect(checkRequest(plainFwd)).toEqual([]);
    // Field 15, varint 1: a field ForwardBackwardRequest does not define.
    const extra = new Uint8Array([...raw, 0x78, 0x01]);
    expect(checkRequest({ ...plainFwd, body: extra }).join('\n')).toMatch(/does not define/);
    const json = { ...plainFwd, headers: { ...fwd.headers, 'content-type': 'application/json' } };
    expect(checkRequest(json).join('\n')).toMatch(/Content-Type/);
  });
});
