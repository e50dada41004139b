import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecodeTask } from './body-decode.js';
import { BodyDecoderPool } from './body-decoder-pool.js';
import { createHttpServer, listen } from './http-server.js';
import { DEFAULT_LIMITS } from './limits.js';
import { type LocalTinker, startLocalTinker } from './local-tinker.js';
import { costlyRequests } from './testing.js';

// One service behind two servers: `inline` decodes every body on the HTTP thread, `pooled` sends bodies of 64 KiB
// and more to a one-worker pool.
let t: LocalTinker;
let pool: BodyDecoderPool;
const servers: Server[] = [];
let inlineURL = '';
let pooledURL = '';
let pooled: Server;
beforeAll(async () => {
  t = await startLocalTinker({ root: mkdtempSync(join(tmpdir(), 'lt-decode-')), log: () => {} });
  pool = new BodyDecoderPool({ threads: 1, maxQueued: 4 });
  const inline = createHttpServer(t.service, { decodeThresholdBytes: Number.POSITIVE_INFINITY });
  pooled = createHttpServer(t.service, { decodeThresholdBytes: 64 * 1024, decodePool: pool });
  servers.push(inline, pooled);
  inlineURL = await listen(inline, '127.0.0.1', 0);
  pooledURL = await listen(pooled, '127.0.0.1', 0);
});
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await pool.close();
  await t.close({ graceMs: 0 });
});

async function post(base: string, path: string, body: Uint8Array, headers: Record<string, string>) {
  const r = await fetch(new URL(path, `${base}/api/v1/`), { method: 'POST', headers, body });
  return { status: r.status, text: await r.text() };
}

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('large request bodies are decoded in the decoder pool', () => {
  it('answers every shape with the status and message of the HTTP thread, refused or accepted', async () => {
    const tokens = Array.from({ length: 50_000 }, (_, i) => i % 100).join(',');
    const accepted = {
      name: 'forward_backward of 50000 valid tokens for an unknown model',
      path: 'forward_backward',
      body: utf8(
        `{"model_id":"no-such-model","seq_id":1,"forward_backward_input":{"loss_fn":"cross_entropy","data":[{"model_input":{"chunks":[{"type":"encoded_text","tokens":[${tokens}]}]},"loss_fn_inputs":{}}]}}`,
      ),
      headers: { 'Content-Type': 'application/json' },
    };
    const badJson = { ...accepted, name: 'bad JSON', body: utf8(`[${'1,'.repeat(40_000)}`) };
    const shapes = [...costlyRequests(100_000), accepted, badJson];
    const started = pool.stats.started;
    for (const c of shapes) {
      expect(c.body.length, c.name).toBeGreaterThanOrEqual(64 * 1024);
      const want = await post(inlineURL, c.path, c.body, c.headers);
      const got = await post(pooledURL, c.path, c.body, c.headers);
      expect(want.status, c.name).toBeGreaterThanOrEqual(400);
      expect(want.status, c.name).toBeLessThan(500);
      expect(got, c.name).toEqual(want);
    }
    expect(pool.stats.started - started).toBe(shapes.length);
  });

  it('healthz is answered while a large body decodes (before the large request completes)', async () => {
    const big = costlyRequests(1_000_000).find((c) => c.name.includes('tokens'))!;
    let received: () => void = () => {};
    const bodyReceived = new Promise<void>((r) => {
      received = r;
    });
    const onRequest = (req: { url?: string; once(e: 'end', f: () => void): void }) => {
      if (req.url?.endsWith('/forward_backward')) req.once('end', received);
    };
    pooled.on('request', onRequest);
    const order: string[] = [];
    const started = pool.stats.started;
    try {
      const bigDone = post(pooledURL, big.path, big.body, big.headers).then((r) => {
        order.push('large');
        return r;
      });
      await bodyReceived;
      const health = await fetch(`${pooledURL}/api/v1/healthz`);
      order.push(`healthz ${health.status}`);
      const r = await bigDone;
      expect(r.status).toBe(400);
      expect(r.text).toContain('forward_backward: field \\"forward_backward_input.data[0].model_input.chunks[0]');
      expect(order).toEqual(['healthz 200', 'large']);
      expect(pool.stats.started - started).toBe(1);
    } finally {
      pooled.off('request', onRequest);
    }
  });

  it('a client that disconnects while its body decodes has its decode stopped', async () => {
    const big = costlyRequests(1_000_000).find((c) => c.name.includes('tokens'))!;
    const { started, abandoned } = pool.stats;
    const client = new AbortController();
    const sent = fetch(new URL(big.path, `${pooledURL}/api/v1/`), {
      method: 'POST',
      headers: big.headers,
      body: big.body,
      signal: client.signal,
    }).catch((err: unknown) => err);
    const turn = () => new Promise((r) => setTimeout(r, 5));
    while (pool.stats.started === started) await turn();
    client.abort();
    await sent;
    while (pool.stats.abandoned === abandoned && pool.running > 0) await turn();
    expect(pool.stats.abandoned - abandoned).toBe(1);
    // The pool goes on with a new worker.
    const next = costlyRequests(100_000)[0]!;
    expect((await post(pooledURL, next.path, next.body, next.headers)).status).toBe(400);
  });

  it('a decoding worker keeps the process alive, an idle one does not (regression: the CLI did not exit)', async () => {
    const handles = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort' || r === 'Worker');
    const own = new BodyDecoderPool({ threads: 1 });
    try {
      const before = handles().length;
      const decoding = own.decode({
        bytes: utf8('{"model_id":"m","seq_id":2}'),
        zstd: false,
        proto: false,
        method: 'POST',
        path: '/api/v1/forward_backward',
        mounted: false,
        limits: DEFAULT_LIMITS,
      });
      const during = handles().length;
      await decoding;
      expect([during - before, handles().length - before]).toEqual([1, 0]);
    } finally {
      await own.close();
    }
  });

  it('a full queue is a 503; a decode whose client goes away is stopped and the pool goes on', async () => {
    const small = new BodyDecoderPool({ threads: 1, maxQueued: 1 });
    try {
      const task = (body: Uint8Array): DecodeTask => ({
        bytes: body,
        zstd: false,
        proto: false,
        method: 'POST',
        path: '/api/v1/forward_backward',
        mounted: false,
        limits: DEFAULT_LIMITS,
      });
      const big = () => costlyRequests(1_000_000).find((c) => c.name.includes('tokens'))!.body;
      const running = new AbortController();
      const queued = new AbortController();
      const first = small.decode(task(big()), running.signal);
      const second = small.decode(task(big()), queued.signal);
      await expect(small.decode(task(big()))).rejects.toMatchObject({
        status: 503,
        message: expect.stringContaining('already decoding 1 large request bodies with 1 more waiting'),
      });
      queued.abort(new Error('client gone (queued)'));
      await expect(second).rejects.toThrow('client gone (queued)');
      running.abort(new Error('client gone (running)'));
      await expect(first).rejects.toThrow('client gone (running)');
      expect(small.stats).toEqual({ started: 1, refused: 1, abandoned: 2 });
      // A new worker takes the next body.
      const next = await small.decode(task(utf8('{"model_id":"m","seq_id":3}')));
      expect(next).toMatchObject({ ok: true, checked: 'POST /api/v1/forward_backward', body: { model_id: 'm' } });
      expect(small.stats.started).toBe(2);
    } finally {
      await small.close();
    }
  });
});
