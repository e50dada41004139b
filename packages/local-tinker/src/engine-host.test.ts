import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { directService, json, MODEL, post, request, result, sessionAndModel } from './__tests__/direct.js';
import { type LocalTinker, startLocalTinker } from './local-tinker.js';
import type { LocalTinkerService } from './service.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

async function service(...args: Parameters<typeof directService>): Promise<LocalTinkerService> {
  const s = await directService(...args);
  closers.push(() => s.close());
  return s;
}

async function http(options: Parameters<typeof startLocalTinker>[0] = {}): Promise<LocalTinker> {
  const t = await startLocalTinker({ root: mkdtempSync(join(tmpdir(), 'lt-host-')), longPollMs: 500, ...options });
  closers.push(() => t.close({ graceMs: 0 }));
  return t;
}

async function call(t: LocalTinker, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(`${t.baseURL}/api/v1/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { ...((await r.json()) as Record<string, unknown>), code: r.status };
}

describe('the engine runs off the HTTP event loop', () => {
  it('healthz answers while a long sample runs; the sample is cancelled when its session expires', async () => {
    // A timeout well above the gap between two calls on a loaded machine, well below the long sample's length.
    const t = await http({ sessionTimeoutMs: 5_000 });
    const session = (await call(t, 'create_session', {})).session_id;
    const sampler = (
      await call(t, 'create_sampling_session', { session_id: session, sampling_session_seq_id: 0, base_model: MODEL })
    ).sampling_session_id;
    // A first, tiny sample: the worker and the sampler are loaded before the long one is sent.
    const warm = await call(t, 'asample', {
      prompt: { chunks: [{ tokens: [1] }] },
      sampling_params: { max_tokens: 1 },
      sampling_session_id: sampler,
    });
    for (;;) {
      await call(t, 'session_heartbeat', { session_id: session });
      const r = await call(t, 'retrieve_future', { request_id: warm.request_id });
      if (r.type !== 'try_again') break;
    }
    const submitted = await call(t, 'asample', {
      num_samples: 4,
      prompt: { chunks: [{ tokens: [1, 2, 3] }] },
      sampling_params: { max_tokens: 4000, stop: [] },
      sampling_session_id: sampler,
    });
    expect(submitted.code).toBe(200);
    // While the sample runs (it would take a minute), health checks keep being answered: six while the session
    // heartbeats (the sample is still running: its result is not out), then the session goes silent.
    let answered = 0;
    let outcome: Record<string, unknown> | undefined;
    const poll = (async () => {
      for (;;) {
        const r = await call(t, 'retrieve_future', { request_id: submitted.request_id });
        if (r.type !== 'try_again') return r;
      }
    })().then((r) => {
      outcome = r;
    });
    while (answered < 6) {
      expect((await call(t, 'healthz')).code).toBe(200);
      answered++;
      await call(t, 'session_heartbeat', { session_id: session });
      expect(outcome, 'the long sample ended while its session was heartbeating').toBeUndefined();
    }
    // Nobody heartbeats now; health checks are still answered until the session expires and the sample stops.
    while (outcome === undefined) {
      expect((await call(t, 'healthz')).code).toBe(200);
      await new Promise((r) => setTimeout(r, 50));
    }
    await poll;
    // Nobody heartbeats: the session expires and its running sample stops at its next decode step.
    expect(outcome, JSON.stringify(outcome)).toMatchObject({ category: 'user' });
    expect(String(outcome!.error)).toMatch(/^cancelled: its session s[0-9a-f]+ sent no heartbeat/);
    const again = await call(t, 'asample', {
      prompt: { chunks: [{ tokens: [1] }] },
      sampling_params: { max_tokens: 1 },
      sampling_session_id: sampler,
    });
    expect(again.code).toBe(410);
    expect(again.detail).toMatch(/is gone: its session .* was unloaded \(saved checkpoints remain/);
  });

  it('a sampler whose allocation failed works for the next request (regression: it stayed broken)', async () => {
    const s = await service({ limits: { maxNumSamples: 10_000_000, maxSampleBytes: 1e18 } });
    const sample = (n: number, maxTokens: number) =>
      post(s, 'asample', {
        num_samples: n,
        prompt: { chunks: [{ tokens: [1, 2, 3] }] },
        sampling_params: { max_tokens: maxTokens, stop: [] },
        base_model: MODEL,
      }).then((r) => result(s, json(r).request_id));
    const failed = await sample(5_000_000, 4000);
    expect(failed).toMatchObject({ category: 'server' });
    expect(String(failed.error)).toMatch(/RangeError/);
    const ok = await sample(2, 3);
    expect((ok.sequences as { tokens: number[] }[]).map((q) => q.tokens.length)).toEqual([3, 3]);
  });

  it('a worker that runs out of memory fails its operation, not the service', async () => {
    const s = await service({ engineHeapMb: 8 });
    const session = json(await post(s, 'create_session', {})).session_id;
    const created = await post(s, 'create_model', { session_id: session, model_seq_id: 0, base_model: MODEL });
    const out = await result(s, json(created).request_id);
    expect(out).toMatchObject({ category: 'server' });
    expect(String(out.error)).toMatch(/^the engine worker stopped \(.*memory/);
    expect((await s.handle(request('GET', 'healthz'))).status).toBe(200);
  });

  it('a session that keeps heartbeating keeps its model; one that stops loses it with a 410 naming why', async () => {
    // The sweep is called with a chosen time (the timer's own sweep, every 15 s at this timeout, does not run in the
    // test): the silent session's last sign of life is strictly before the other's last heartbeat, and the sweep
    // runs exactly one timeout after that heartbeat, so what expires depends on order, not on the machine's speed.
    const TIMEOUT_MS = 60_000;
    const s = await service({ sessionTimeoutMs: TIMEOUT_MS });
    const { session, model } = await sessionAndModel(s);
    const other = await sessionAndModel(s);
    const otherLastSeen = Date.now();
    while (Date.now() <= otherLastSeen) await new Promise((r) => setTimeout(r, 1));
    const heartbeatAt = Date.now();
    expect((await post(s, 'session_heartbeat', { session_id: session })).status).toBe(200);
    s.expireSessions(heartbeatAt + TIMEOUT_MS);
    const gone = await post(s, 'optim_step', { model_id: other.model, adam_params: {} });
    expect(gone.status).toBe(410);
    expect(json(gone).detail).toMatch(
      new RegExp(`^model_id "${other.model}" is gone: its session ${other.session} sent no heartbeat for \\d+ s`),
    );
    expect((await post(s, 'session_heartbeat', { session_id: other.session })).status).toBe(410);
    expect(json(await post(s, 'get_info', { model_id: model })).model_id).toBe(model);
    // A sweep more than one timeout after the session's last request (get_info) takes it too.
    s.expireSessions(Date.now() + TIMEOUT_MS + 1);
    expect((await post(s, 'session_heartbeat', { session_id: session })).status).toBe(410);
  });
});
