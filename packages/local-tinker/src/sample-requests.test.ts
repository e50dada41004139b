/**
 * The sample requests a client may hold (`max_concurrent_requests`, per session) and `cancel_future`, which stops
 * one of them; observed through replies, futures and the engine's decode-step counter.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { directService, json, MODEL, post, result } from './__tests__/direct.js';
import type { LocalTinkerService } from './service.js';

const services: LocalTinkerService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close({ abort: true });
});

const LONG = 2000;

async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 5));
}

describe('sample requests of one client', () => {
  it('past max_concurrent_requests a session gets a 429 naming the limit; cancel_future frees its place', async () => {
    const s = await directService({ limits: { maxConcurrentRequests: 2 } });
    services.push(s);
    const session = json(await post(s, 'create_session', {})).session_id as string;
    const sampler = json(
      await post(s, 'create_sampling_session', { session_id: session, sampling_session_seq_id: 0, base_model: MODEL }),
    ).sampling_session_id as string;
    const sample = (maxTokens: number) =>
      post(s, 'asample', {
        prompt: { chunks: [{ tokens: [1, 2, 3] }] },
        sampling_params: { max_tokens: maxTokens, stop: [] },
        sampling_session_id: sampler,
      });
    const first = json(await sample(LONG)).request_id;
    const second = json(await sample(LONG)).request_id;
    const third = await sample(1);
    expect(third.status).toBe(429);
    expect(String(json(third).detail)).toMatch(
      /session s\S+ has 2 sample requests queued or running, this service's limit of concurrent requests per client .*max_concurrent_requests=/,
    );
    // Another session is a different client.
    const other = await post(s, 'asample', {
      prompt: { chunks: [{ tokens: [1] }] },
      sampling_params: { max_tokens: 1 },
      base_model: MODEL,
    });
    expect(other.status).toBe(200);
    await until(() => s.decodeSteps >= 3);
    const cancelled = json(await post(s, 'cancel_future', { request_id: first }));
    expect(cancelled).toEqual({ type: 'cancel_future', request_id: first, cancelled: true });
    expect(json(await post(s, 'cancel_future', { request_id: second })).cancelled).toBe(true);
    for (const id of [first, second]) {
      expect(await result(s, id)).toMatchObject({
        category: 'user',
        error: 'cancelled: the client abandoned this sample request (cancel_future)',
      });
    }
    await until(() => s.enginePending === 0);
    expect(s.decodeSteps).toBeLessThan(LONG);
    // Settled: cancelling again does nothing, and the session has room again.
    expect(json(await post(s, 'cancel_future', { request_id: first })).cancelled).toBe(false);
    const again = await post(s, 'asample', {
      prompt: { chunks: [{ tokens: [1, 2, 3] }] },
      sampling_params: { max_tokens: 2, stop: [] },
      sampling_session_id: sampler,
    });
    expect(again.status).toBe(200);
    expect(((await result(s, json(again).request_id)).sequences as { tokens: number[] }[])[0]!.tokens).toHaveLength(2);
  });
});
