import { describe, expect, it } from 'vitest';
import { type Json, json, MODEL, post, result, servicesClosedAfterEach } from './__tests__/direct.js';
import type { LocalTinkerService } from './service.js';

const service = servicesClosedAfterEach();

async function submit(s: LocalTinkerService, body: unknown): Promise<string> {
  const r = await post(s, 'asample', body);
  if (r.status !== 200) throw new Error(`asample → ${r.status}: ${JSON.stringify(r.json)}`);
  return json(r).request_id as string;
}

describe('batched sampling across requests', () => {
  it('decodes concurrent requests for one sampler together, each with exactly its one-by-one result', async () => {
    const s = await service();
    const session = json(await post(s, 'create_session', {})).session_id;
    const sampler = json(
      await post(s, 'create_sampling_session', { session_id: session, sampling_session_seq_id: 0, base_model: MODEL }),
    ).sampling_session_id;
    const body = (i: number) => ({
      prompt: { chunks: [{ tokens: Array.from({ length: 3 + (i % 4) }, (_, j) => 100 + i * 13 + j) }] },
      num_samples: 1 + (i % 2),
      sampling_params: {
        max_tokens: 4 + (i % 5),
        seed: 1000 + i,
        temperature: i % 3 === 0 ? 0.8 : 1,
        stop: i % 2 === 0 ? [] : [(i * 37) % 500],
      },
      ...(i % 4 === 0 ? { prompt_logprobs: true } : {}),
      sampling_session_id: sampler,
    });
    // Warm up (load the sampler), so the concurrent requests below find it ready.
    await result(s, await submit(s, body(99)));
    const n = 12;
    const before = s.samplesJoined;
    const ids = await Promise.all(Array.from({ length: n }, (_, i) => submit(s, body(i))));
    const together = await Promise.all(ids.map((id) => result(s, id)));
    expect(s.samplesJoined - before).toBeGreaterThan(0);
    const alone: Json[] = [];
    for (let i = 0; i < n; i++) alone.push(await result(s, await submit(s, body(i))));
    expect(together).toEqual(alone);
    for (const r of together) expect(r.type).toBe('sample');
  });
});
