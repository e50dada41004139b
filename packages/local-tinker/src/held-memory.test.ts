import { describe, expect, it } from 'vitest';
import { ceDatum, json, MODEL, post, result, servicesClosedAfterEach, sessionAndModel } from './__tests__/direct.js';
import { QUEUED_BYTES_PER_ELEMENT } from './limits.js';
import type { LocalTinkerService } from './service.js';

const service = servicesClosedAfterEach();

const tokens = (n: number) => Array.from({ length: n }, (_, i) => 10 + i);
const fb = (model: string, seqId: number | undefined, n = 11) => ({
  model_id: model,
  ...(seqId !== undefined ? { seq_id: seqId } : {}),
  forward_backward_input: { data: [ceDatum(tokens(n))], loss_fn: 'cross_entropy' },
});
/** Bytes a forward_backward of `fb(…, n)` is counted for while it waits: 3 arrays of n - 1 numbers. */
const bytesOf = (n: number) => 3 * (n - 1) * QUEUED_BYTES_PER_ELEMENT;

describe('requests parked behind a missing seq_id are bounded (regression: they held their payload forever)', () => {
  it('a seq_id too far ahead is a 400 naming the limit, and the model goes on with its next seq_id', async () => {
    const s = await service({ limits: { maxSeqAhead: 8 } });
    const { model } = await sessionAndModel(s);
    const far = await post(s, 'forward_backward', fb(model, 1_000_000));
    expect(far.status).toBe(400);
    expect(String(json(far).detail)).toMatch(/seq_id 1000000.*exceeds this service's limit of 8.*max_seq_ahead=/);
    expect((await post(s, 'forward_backward', fb(model, 9))).status).toBe(400);
    expect(s.held.queuedBytes).toBe(0);
    // Seq ids 1..8 are still free, and a request without one is not placed after the refused one.
    const next = await post(s, 'forward_backward', fb(model, undefined));
    expect(next.status).toBe(200);
    expect(await result(s, json(next).request_id)).toHaveProperty('metrics');
    expect((await post(s, 'forward_backward', fb(model, 2))).status).toBe(200);
  });

  it('the payload waiting in one model’s queue is bounded: past it a 400 naming the limit; it frees as they run', async () => {
    const s = await service({ limits: { maxQueuedBytesPerModel: 2 * bytesOf(11) } });
    const { model } = await sessionAndModel(s);
    // Seq 1 is missing: 2..3 park.
    const parked = [await post(s, 'forward_backward', fb(model, 2)), await post(s, 'forward_backward', fb(model, 3))];
    for (const r of parked) expect(r.status).toBe(200);
    expect(s.held.queuedBytes).toBe(2 * bytesOf(11));
    const over = await post(s, 'forward_backward', fb(model, 4));
    expect(over.status).toBe(400);
    expect(String(json(over).detail)).toMatch(
      new RegExp(
        `queue.*= ${3 * bytesOf(11)} bytes exceeds this service's limit of ${2 * bytesOf(11)} bytes.*max_queued_mb_per_model=`,
      ),
    );
    // The missing one arrives: everything runs, and the queue is empty again.
    const first = await post(s, 'forward_backward', fb(model, 1));
    for (const r of [first, ...parked]) expect(await result(s, json(r).request_id)).toHaveProperty('metrics');
    expect(s.held.queuedBytes).toBe(0);
    expect((await post(s, 'forward_backward', fb(model, 5))).status).toBe(200);
  });
});

describe('the payload parked in all models together is bounded too (many small models cannot add up)', () => {
  it('past the service-wide limit a 400 naming it; each model’s next seq_id still runs', async () => {
    const s = await service({ limits: { maxQueuedBytes: 3 * bytesOf(11) } });
    const a = await sessionAndModel(s);
    const b = await sessionAndModel(s);
    for (const [model, seq] of [
      [a.model, 2],
      [a.model, 3],
      [b.model, 2],
    ] as const) {
      expect((await post(s, 'forward_backward', fb(model, seq))).status).toBe(200);
    }
    const over = await post(s, 'forward_backward', fb(b.model, 3));
    expect(over.status).toBe(400);
    expect(String(json(over).detail)).toMatch(/all models' queues.*max_queued_mb=/);
    const first = await post(s, 'forward_backward', fb(b.model, 1));
    expect(await result(s, json(first).request_id)).toHaveProperty('metrics');
  });
});

describe('loaded models stay within a memory budget (regression: 8 rank-256 models grew until the kernel killed it)', () => {
  async function oneModelBytes(): Promise<number> {
    const s = await service();
    await sessionAndModel(s, 8);
    const { modelBytes } = s.held;
    expect(modelBytes).toBeGreaterThan(0);
    return modelBytes;
  }
  const create = (s: LocalTinkerService, session: string, seq: number) =>
    post(s, 'create_model', { session_id: session, model_seq_id: seq, base_model: MODEL, lora_config: { rank: 8 } });

  it('refuses a model past the budget, naming the limit; room made by unload_model is used', async () => {
    const bytes = await oneModelBytes();
    const s = await service({ limits: { maxModelBytes: Math.floor(1.5 * bytes) } });
    const { session, model } = await sessionAndModel(s, 8);
    const second = await result(s, json(await create(s, session, 1)).request_id);
    expect(second.category).toBe('user');
    expect(String(second.error)).toMatch(
      /the models' memory = \d+ MB exceeds this service's limit of \d+ MB.*max_model_mb=/,
    );
    expect(s.held.models).toBe(1);
    expect(s.held.modelBytes).toBeLessThanOrEqual(Math.floor(1.5 * bytes));
    // The first model still trains.
    expect(await result(s, json(await post(s, 'forward_backward', fb(model, undefined))).request_id)).toHaveProperty(
      'metrics',
    );
    await result(s, json(await post(s, 'unload_model', { model_id: model })).request_id);
    expect((await result(s, json(await create(s, session, 2)).request_id)).model_id).toBeDefined();
  });

  it('once at the budget, a new model is a 400 at submission', async () => {
    const bytes = await oneModelBytes();
    const s = await service({ limits: { maxModelBytes: bytes } });
    const { session } = await sessionAndModel(s, 8);
    const r = await create(s, session, 1);
    expect(r.status).toBe(400);
    expect(String(json(r).detail)).toMatch(/max_model_mb=/);
  });

  it('unloads idle models (least recently used first) to make room, with a 410 saying why', async () => {
    const bytes = await oneModelBytes();
    const s = await service({ limits: { maxModelBytes: Math.floor(1.5 * bytes), idleModelUnloadMs: 0 } });
    const { session, model } = await sessionAndModel(s, 8);
    const second = await result(s, json(await create(s, session, 1)).request_id);
    expect(second.model_id).toBeDefined();
    expect(s.held.models).toBe(1);
    const gone = await post(s, 'forward_backward', fb(model, undefined));
    expect(gone.status).toBe(410);
    expect(String(json(gone).detail)).toMatch(/memory budget/);
  });
});
