import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceReply, ServiceRequest } from './http-errors.js';
import { LocalTinkerService } from './service.js';

const services: LocalTinkerService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
});

async function service(apiKey?: string): Promise<LocalTinkerService> {
  const s = new LocalTinkerService({ root: mkdtempSync(join(tmpdir(), 'svc-core-')), apiKey, longPollMs: 5_000 });
  await s.init();
  services.push(s);
  return s;
}

function req(method: string, path: string, body?: unknown, headers: ServiceRequest['headers'] = {}): ServiceRequest {
  return { method, path: `/api/v1/${path}`, query: new URLSearchParams(), headers, body };
}

const json = (r: ServiceReply) => r.json as Record<string, unknown>;

async function result(s: LocalTinkerService, requestId: unknown): Promise<Record<string, unknown>> {
  for (;;) {
    const r = json(await s.handle(req('POST', 'retrieve_future', { request_id: requestId })));
    if (r.type !== 'try_again') return r;
  }
}

describe('the service core, called directly', () => {
  it('routes by method and path; healthz needs no key, everything else does', async () => {
    const s = await service('secret');
    expect(await s.handle(req('GET', 'healthz'))).toEqual({ status: 200, json: { status: 'ok' } });
    expect(await s.handle(req('POST', 'create_session', { tags: [] }))).toEqual({
      status: 401,
      json: { detail: 'missing or invalid X-API-Key' },
    });
    const created = await s.handle(req('POST', 'create_session', { tags: [] }, { 'x-api-key': 'secret' }));
    expect(created.status).toBe(200);
    expect(await s.handle(req('GET', 'nope', undefined, { 'x-api-key': 'secret' }))).toEqual({
      status: 404,
      json: { detail: 'no route GET /api/v1/nope' },
    });
  });

  it('creates a model, refuses a bad batch at submission naming the field, and trains a good one', async () => {
    const s = await service();
    const session = json(await s.handle(req('POST', 'create_session', { tags: [] }))).session_id;
    const create = json(
      await s.handle(
        req('POST', 'create_model', { session_id: session, model_seq_id: 0, base_model: 'local/qwen3-tiny' }),
      ),
    );
    expect(await result(s, create.request_id)).toMatchObject({ type: 'create_model' });
    const datum = (target: number) => ({
      model_input: { chunks: [{ type: 'encoded_text', tokens: [1, 2] }] },
      loss_fn_inputs: { target_tokens: { data: [2, target], dtype: 'int64' } },
    });
    const fb = (target: number, seq: number) =>
      req('POST', 'forward_backward', {
        forward_backward_input: { data: [datum(target)], loss_fn: 'cross_entropy' },
        model_id: create.model_id,
        seq_id: seq,
      });
    const bad = await s.handle(fb(10_000_000, 1));
    expect(bad.status).toBe(400);
    expect(json(bad).detail).toMatch(
      /^data\[0\]\.loss_fn_inputs\.target_tokens: token id 10000000 is outside the vocabulary \[0, \d+\)$/,
    );
    // The rejected request used up seq_id 1: seq_id 2 runs instead of waiting for it.
    const good = json(await s.handle(fb(3, 2)));
    expect(await result(s, good.request_id)).toMatchObject({ loss_fn_output_type: 'ArrayRecord' });
  });

  it('answers a retried request (same idempotency key) with the original reply, and 409 for another body', async () => {
    const s = await service();
    const headers = { 'x-idempotency-key': 'k1' };
    const first = await s.handle(req('POST', 'create_session', { tags: ['a'] }, headers));
    expect(await s.handle(req('POST', 'create_session', { tags: ['a'] }, headers))).toEqual(first);
    const other = await s.handle(req('POST', 'create_session', { tags: ['b'] }, headers));
    expect(other.status).toBe(409);
    expect(json(other).detail).toBe('X-Idempotency-Key k1 was used for a different request');
  });
});
