import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ceDatum, MODEL } from './__tests__/direct.js';
import { type LocalTinker, startLocalTinker } from './local-tinker.js';

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

async function call(t: LocalTinker, path: string, body: unknown): Promise<Record<string, unknown>> {
  const r = await fetch(`${t.baseURL}/api/v1/${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await r.json()) as Record<string, unknown>;
}

async function wait(t: LocalTinker, requestId: unknown): Promise<Record<string, unknown>> {
  for (;;) {
    const r = await call(t, 'retrieve_future', { request_id: requestId });
    if (r.type !== 'try_again') return r;
  }
}

describe('stopping at once (SIGTERM; regression: serve waited ≈190 s for a queued sample)', () => {
  it('fails running, queued and parked requests with "the service is stopping", answers pollers, and stops', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lt-stop-'));
    roots.push(root);
    const t = await startLocalTinker({ root, longPollMs: 60_000, sessionTimeoutMs: 0 });
    const session = (await call(t, 'create_session', {})).session_id;
    const model = (
      await wait(
        t,
        (
          await call(t, 'create_model', {
            session_id: session,
            model_seq_id: 0,
            base_model: MODEL,
            lora_config: { rank: 2 },
          })
        ).request_id,
      )
    ).model_id as string;
    // A sample far longer than any test (64 × the whole context), a forward_backward behind it on the same worker,
    // and one parked behind a missing seq_id.
    const sample = await call(t, 'asample', {
      base_model: MODEL,
      prompt: { chunks: [{ tokens: [1, 2, 3] }] },
      num_samples: 64,
      sampling_params: { max_tokens: 30_000 },
    });
    const input = { data: [ceDatum([5, 6, 7, 8])], loss_fn: 'cross_entropy' };
    const queued = await call(t, 'forward_backward', { model_id: model, seq_id: 1, forward_backward_input: input });
    const parked = await call(t, 'forward_backward', { model_id: model, seq_id: 5, forward_backward_input: input });
    // A poller is waiting on the sample when the stop comes.
    const polling = wait(t, sample.request_id);
    await t.close({ abort: true, graceMs: 1000 });
    const answered = await polling;
    expect(answered.category).toBe('server');
    expect(String(answered.error)).toMatch(/^the service is stopping/);
    for (const r of [queued, parked]) {
      const found = t.service.futures.lookup(r.request_id as string);
      expect(found.kind).toBe('failed');
      if (found.kind === 'failed') expect(found.failure.error).toMatch(/^the service is stopping/);
    }
    await expect(fetch(`${t.baseURL}/api/v1/healthz`)).rejects.toThrow();
  });

  it('stopping at once while a draining stop waits for queued work still stops', async () => {
    const root = mkdtempSync(join(tmpdir(), 'lt-stop-'));
    roots.push(root);
    const t = await startLocalTinker({ root, sessionTimeoutMs: 0 });
    const sample = await call(t, 'asample', {
      base_model: MODEL,
      prompt: { chunks: [{ tokens: [1, 2, 3] }] },
      num_samples: 64,
      sampling_params: { max_tokens: 30_000 },
    });
    expect(sample.request_id).toBeDefined();
    const draining = t.close({ graceMs: 0 });
    await t.close({ abort: true, graceMs: 0 });
    await draining;
  });
});
