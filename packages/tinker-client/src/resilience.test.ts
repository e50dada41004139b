import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeTinker } from './__tests__/fake-server.js';
import { FutureExpiredError, NotFoundError, RESUME_HINT } from './errors.js';
import { ServiceClient } from './service-client.js';

let server: FakeTinker;
let client: ServiceClient;
let warnings: string[];

beforeEach(async () => {
  server = new FakeTinker();
  await server.start();
  warnings = [];
  client = new ServiceClient({
    baseURL: server.url,
    backoffScale: 0.001,
    heartbeatIntervalMs: 60_000,
    warn: (m) => warnings.push(m),
  });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

/** Drop the connection of the first `n` calls of `route`, then answer normally. */
function dropFirst(route: string, n: number): void {
  const handler = server.routes.get(route)!;
  let seen = 0;
  server.routes.set(route, (r) => (seen++ < n ? { destroy: true } : handler(r)));
}

describe('saves and loads retry like every other submit', () => {
  it('save_state survives a reset connection, resending the same seq_id and idempotency key', async () => {
    dropFirst('POST /api/v1/save_weights', 1);
    const tc = await client.createLoraTrainingClient({ baseModel: 'm' });
    expect(await tc.saveState('ckpt')).toEqual({ path: 'tinker://sess:train:0/weights/ckpt' });
    const calls = server.calls('POST /api/v1/save_weights');
    expect(calls).toHaveLength(2);
    expect(calls[1]!.body).toEqual(calls[0]!.body);
    expect(calls[1]!.headers['x-idempotency-key']).toBe(calls[0]!.headers['x-idempotency-key']);
  });

  it('save_weights_for_sampler and load_state too', async () => {
    server.routes.set('POST /api/v1/save_weights_for_sampler', () =>
      server.future({ path: 'tinker://sess:train:0/sampler_weights/s' }),
    );
    server.routes.set('POST /api/v1/load_weights', () => server.future({ path: 'tinker://sess:train:0/weights/w' }));
    dropFirst('POST /api/v1/save_weights_for_sampler', 2);
    dropFirst('POST /api/v1/load_weights', 1);
    const tc = await client.createLoraTrainingClient({ baseModel: 'm' });
    await tc.loadState('tinker://sess:train:0/weights/w');
    expect(await tc.saveWeightsForSampler('s')).toEqual({ path: 'tinker://sess:train:0/sampler_weights/s' });
    expect(server.calls('POST /api/v1/save_weights_for_sampler')).toHaveLength(3);
    expect(server.calls('POST /api/v1/load_weights')).toHaveLength(2);
  });

  it('a 409 the server marks final (x-should-retry: false) is not retried', async () => {
    server.routes.set('POST /api/v1/save_weights', () => ({
      status: 409,
      json: { detail: 'checkpoint tinker://sess:train:0/weights/x already exists' },
      headers: { 'x-should-retry': 'false' },
    }));
    const tc = await client.createLoraTrainingClient({ baseModel: 'm' });
    await expect(tc.saveState('x')).rejects.toThrow('already exists');
    expect(server.calls('POST /api/v1/save_weights')).toHaveLength(1);
  });
});

describe('after the service lost the run (a restart)', () => {
  it('an unknown request_id says the run can be resumed with behavior_if_log_dir_exists=resume', async () => {
    const tc = await client.createLoraTrainingClient({ baseModel: 'm' });
    server.routes.set('POST /api/v1/optim_step', () => ({ json: { request_id: 'lost' } }));
    server.routes.set('POST /api/v1/retrieve_future', () => ({
      status: 404,
      json: { detail: 'unknown request_id "lost": this service has no record of it' },
    }));
    const err = await tc.optimStep().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err!.message).toContain(RESUME_HINT);
    expect(err!.message).toContain('behavior_if_log_dir_exists=resume');
  });

  it('an unknown model_id on submit, and a model the server unloaded (410), say the same', async () => {
    const tc = await client.createLoraTrainingClient({ baseModel: 'm' });
    server.routes.set('POST /api/v1/forward_backward', () => ({
      status: 404,
      json: { detail: 'unknown model_id "sess:train:0"' },
    }));
    await expect(tc.forwardBackward([], 'cross_entropy')).rejects.toThrow(RESUME_HINT);
    server.routes.set('POST /api/v1/optim_step', () => ({
      status: 410,
      json: { detail: 'model_id "sess:train:0" is gone: its session sent no heartbeat for 300 s' },
    }));
    const err = await tc.optimStep().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(FutureExpiredError);
    expect(err!.message).toContain(RESUME_HINT);
  });

  it('a 404 that is about something else (a missing checkpoint) gets no such hint', async () => {
    server.routes.set('POST /api/v1/load_weights', () => ({
      status: 404,
      json: { detail: 'checkpoint tinker://r/weights/x does not exist' },
    }));
    const tc = await client.createLoraTrainingClient({ baseModel: 'm' });
    const err = await tc.loadState('tinker://r/weights/x').then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err!.message).toContain('does not exist');
    expect(err!.message).not.toContain('resume');
  });

  it('a heartbeat the server refuses for an unknown session warns at once, with the hint', async () => {
    server.routes.set('POST /api/v1/session_heartbeat', () => ({
      status: 404,
      json: { detail: 'unknown session_id "sess"' },
    }));
    const c = new ServiceClient({ baseURL: server.url, heartbeatIntervalMs: 20, warn: (m) => warnings.push(m) });
    try {
      await c.sessionId();
      // The refusal's own warning (not the one after 12 silent intervals), once: five more refusals add none.
      const hinted = () => warnings.filter((w) => w.includes('behavior_if_log_dir_exists=resume'));
      await vi.waitFor(() => expect(hinted()).toHaveLength(1), { timeout: 20_000 });
      const seen = server.calls('POST /api/v1/session_heartbeat').length;
      await vi.waitFor(() => expect(server.calls('POST /api/v1/session_heartbeat').length).toBeGreaterThan(seen + 5), {
        timeout: 20_000,
      });
      expect(hinted()).toHaveLength(1);
    } finally {
      await c.close();
    }
  });
});
