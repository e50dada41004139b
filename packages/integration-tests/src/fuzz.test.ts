/**
 * The service under a bounded fuzzer: 2,400 seeded requests over every route (malformed fields and bodies, deep
 * JSON, protobuf and zstd bombs, hostile paths, wrong methods and headers, tampered signed downloads), eight at a time. It asserts no crash, no
 * 5xx, no hang (every request answered within 10 s, healthz within 2 s afterwards), and that training still works.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mulberry32 } from '@cookbook/core';
import { type LocalTinker, startLocalTinker } from '@cookbook/local-tinker';
import { extractTar } from '@cookbook/weights';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type FuzzCase, type FuzzIds, fuzzCases } from './__fixtures__/fuzz-cases.js';
import { MODEL, tempRoot } from './helpers.js';

const CASES = 2_400;
const CONCURRENCY = 8;

let service: LocalTinker;
let cleanup: () => Promise<void>;
let root: string;

beforeAll(async () => {
  const t = await tempRoot();
  cleanup = t.cleanup;
  root = t.root;
  service = await startLocalTinker({
    root: t.root,
    longPollMs: 200,
    sessionTimeoutMs: 0,
    // Tight bounds keep the valid requests among the cases cheap.
    limits: {
      maxBodyBytes: 1 << 20,
      maxNumSamples: 4,
      defaultMaxTokens: 4,
      maxTokens: 8,
      maxTopkPromptLogprobs: 4,
      maxLoraRank: 8,
      maxLossInputElements: 4096,
      maxSampleBytes: 64 << 20,
    },
    log: () => undefined,
  });
});
afterAll(async () => {
  await service.close({ graceMs: 0 });
  await cleanup();
});

async function send(c: Pick<FuzzCase, 'method' | 'path' | 'headers' | 'body'>, timeoutMs = 10_000) {
  const r = await fetch(`${service.baseURL}/api/v1/${c.path}`, {
    method: c.method,
    headers: c.headers,
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
    ...(c.body === undefined ? {} : { body: c.body }),
  });
  const text = await r.text();
  return { status: r.status, text };
}

async function json(method: string, path: string, body?: unknown) {
  const r = await send({
    method,
    path,
    headers: { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: r.status, body: JSON.parse(r.text || '{}') as Record<string, unknown> };
}

async function wait(requestId: unknown): Promise<Record<string, unknown>> {
  for (;;) {
    const r = await json('POST', 'retrieve_future', { request_id: requestId });
    if (r.body.type !== 'try_again') return r.body;
  }
}

async function setup(): Promise<FuzzIds> {
  const session = (await json('POST', 'create_session', {})).body.session_id as string;
  const created = await json('POST', 'create_model', {
    session_id: session,
    model_seq_id: 0,
    base_model: MODEL,
    lora_config: { rank: 2 },
  });
  const model = (await wait(created.body.request_id)).model_id as string;
  const saved = await json('POST', 'save_weights', { model_id: model, path: 's0' });
  const statePath = (await wait(saved.body.request_id)).path as string;
  const forSampler = await json('POST', 'save_weights_for_sampler', { model_id: model, path: 'w0' });
  const samplerPath = (await wait(forSampler.body.request_id)).path as string;
  const sampler = (
    await json('POST', 'create_sampling_session', {
      session_id: session,
      sampling_session_seq_id: 0,
      model_path: samplerPath,
    })
  ).body.sampling_session_id as string;
  const download = await archiveUrl(model, 'dl0');
  const downloadDeleted = await archiveUrl(model, 'dl1');
  const run = encodeURIComponent(model);
  expect(
    (
      await send({
        method: 'DELETE',
        path: `training_runs/${run}/checkpoints/weights/dl1`,
        headers: {},
        body: undefined,
      })
    ).status,
  ).toBe(204);
  return {
    session,
    model,
    runId: model,
    sampler,
    statePath,
    samplerPath,
    requestId: saved.body.request_id as string,
    download,
    downloadDeleted,
  };
}

/** Saves checkpoint `name` of `model` and returns its signed archive URL, relative to `/api/v1/`. */
async function archiveUrl(model: string, name: string): Promise<string> {
  await wait((await json('POST', 'save_weights', { model_id: model, path: name })).body.request_id);
  const path = `training_runs/${encodeURIComponent(model)}/checkpoints/weights/${name}/archive`;
  const r = await fetch(`${service.baseURL}/api/v1/${path}`, { redirect: 'manual' });
  await r.text();
  expect(r.status).toBe(302);
  return r.headers.get('location')!.replace(/^\/api\/v1\//, '');
}

describe('fuzzing every route', () => {
  it(`${CASES} malformed requests: 0 crashes, 0 5xx, 0 hangs; training still works afterwards`, async () => {
    const ids = await setup();
    const cases = fuzzCases(ids, 20261122, CASES);
    const byStatus = new Map<number, number>();
    const downloads = new Map<number, number>();
    const failures: string[] = [];
    const started = Date.now();
    let at = 0;
    const worker = async () => {
      for (;;) {
        const c = cases[at++];
        if (c === undefined) return;
        try {
          const r = await send(c);
          byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
          if (r.status >= 500) failures.push(`${c.label} → ${r.status} ${r.text.slice(0, 200)}`);
          if (c.mustFail === true && r.status < 300) failures.push(`${c.label} → ${r.status}: must be refused`);
          if (c.label.startsWith('GET _download')) downloads.set(r.status, (downloads.get(r.status) ?? 0) + 1);
        } catch (err) {
          failures.push(`${c.label} → ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (Date.now() - started) / 1000;
    const histogram = [...byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`);
    console.log(`fuzz: ${cases.length} cases in ${seconds.toFixed(1)} s; statuses ${histogram.join(' ')}`);
    expect(failures.slice(0, 10)).toEqual([]);
    expect([...byStatus.values()].reduce((a, b) => a + b, 0)).toBe(CASES);
    // Several routes really ran (not everything was refused).
    expect(byStatus.get(200) ?? 0).toBeGreaterThan(CASES / 10);
    // The signed download route was hit often, served the untouched URL, and refused the rest.
    expect(downloads.get(200) ?? 0).toBeGreaterThan(0);
    expect(downloads.get(403) ?? 0).toBeGreaterThan(20);
    expect(downloads.get(404) ?? 0).toBeGreaterThan(0);

    // The service is alive and still trains and samples.
    expect((await send({ method: 'GET', path: 'healthz', headers: {}, body: undefined }, 2_000)).status).toBe(200);
    const fresh = await json('POST', 'create_model', {
      session_id: ids.session,
      model_seq_id: 1,
      base_model: MODEL,
      lora_config: { rank: 2 },
    });
    const model = (await wait(fresh.body.request_id)).model_id as string;
    const datum = {
      model_input: { chunks: [{ tokens: [5, 6, 7] }] },
      loss_fn_inputs: { target_tokens: { data: [6, 7, 8] }, weights: { data: [1, 1, 1] } },
    };
    const losses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const fb = await json('POST', 'forward_backward', {
        model_id: model,
        forward_backward_input: { data: [datum], loss_fn: 'cross_entropy' },
      });
      losses.push(((await wait(fb.body.request_id)).metrics as Record<string, number>)['loss:sum']!);
      const step = await json('POST', 'optim_step', { model_id: model, adam_params: { learning_rate: 0.01 } });
      expect(await wait(step.body.request_id)).toHaveProperty('metrics');
    }
    expect(losses[3]!).toBeLessThan(losses[0]!);
    const sample = await json('POST', 'asample', {
      prompt: { chunks: [{ tokens: [1, 2] }] },
      sampling_params: { max_tokens: 2 },
      sampling_session_id: ids.sampler,
    });
    expect(((await wait(sample.body.request_id)).sequences as unknown[]).length).toBe(1);
  });
});

describe('signed archive downloads', () => {
  const get = async (path: string) => {
    const r = await fetch(`${service.baseURL}/api/v1/${path}`, { redirect: 'manual' });
    return { status: r.status, body: new Uint8Array(await r.arrayBuffer()) };
  };
  const message = (body: Uint8Array) => (JSON.parse(Buffer.from(body).toString('utf8')) as { detail?: string }).detail;

  it('serves the signed URL; refuses a tampered signature or expiry, traversal, a deleted checkpoint', async () => {
    const ids = await setup();
    const ok = await get(ids.download);
    expect(ok.status).toBe(200);
    const folder = await mkdtemp(join(tmpdir(), 'cookbook-fuzz-archive-'));
    await writeFile(join(folder, 'archive.tar'), ok.body);
    expect(extractTar(join(folder, 'archive.tar'), join(folder, 'out')).map((e) => e.name)).toContain(
      'checkpoint_complete',
    );

    const [path, query] = ids.download.split('?') as [string, string];
    const q = new URLSearchParams(query);
    const sig = q.get('sig')!;
    const expires = q.get('expires')!;
    const flipped = `${sig.slice(0, -1)}${sig.endsWith('0') ? '1' : '0'}`;
    for (const bad of [
      `${path}?expires=${expires}&sig=${flipped}`,
      `${path}?expires=${Number(expires) + 60_000}&sig=${sig}`,
      `${path}?expires=${expires}`,
      `${path.replace(/\/weights\//, '/sampler_weights/')}?expires=${expires}&sig=${sig}`,
      `_download/..%2F..%2F..%2Fetc/weights/dl0?expires=${expires}&sig=${sig}`,
      `${path}/../../checkpoint.json?expires=${expires}&sig=${sig}`,
    ]) {
      const r = await get(bad);
      expect(r.status, bad).toBe(403);
    }
    const deleted = await get(ids.downloadDeleted);
    expect(deleted.status).toBe(404);
    expect(message(deleted.body)).toMatch(/does not exist/);
  });

  it('an expired URL is refused with a message saying so', async () => {
    const ids = await setup();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 16 * 60_000);
      const r = await get(ids.download);
      expect(r.status).toBe(403);
      expect(message(r.body)).toMatch(/expired/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a checkpoint whose files are gone from the service root is a 404 naming it, not a 500', async () => {
    const ids = await setup();
    const adapter = join(root, 'runs', encodeURIComponent(ids.runId), 'weights', 'dl0', 'adapter');
    expect((await readdir(adapter)).length).toBeGreaterThan(0);
    await rm(adapter, { recursive: true });
    const r = await get(ids.download);
    expect(r.status).toBe(404);
    expect(message(r.body)).toMatch(/weights\/dl0/);
    expect(message(r.body)).not.toContain(root);
  });
});

describe('fuzzing what clients make the service hold', () => {
  /** mulberry32: a small seeded generator, so the barrage repeats exactly. */
  const rng = mulberry32;

  it('parked requests and model memory stay within their limits under 600 seeded requests; the service still trains', async () => {
    const t = await tempRoot();
    const maxQueued = 64 * 1024;
    // One rank-8 model's memory, measured, sets a budget of two and a half models.
    const probe = await startLocalTinker({ root: t.root, sessionTimeoutMs: 0, log: () => undefined });
    const base = probe.baseURL;
    const call = async (url: string, path: string, body: unknown) => {
      const r = await fetch(`${url}/api/v1/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    const settle = async (url: string, id: unknown) => {
      for (;;) {
        const r = await call(url, 'retrieve_future', { request_id: id });
        if (r.body.type !== 'try_again') return r.body;
      }
    };
    const s0 = (await call(base, 'create_session', {})).body.session_id;
    await settle(
      base,
      (
        await call(base, 'create_model', {
          session_id: s0,
          model_seq_id: 0,
          base_model: MODEL,
          lora_config: { rank: 8 },
        })
      ).body.request_id,
    );
    const oneModel = probe.service.held.modelBytes;
    await probe.close({ graceMs: 0 });
    const budget = Math.floor(2.5 * oneModel);
    const svc = await startLocalTinker({
      root: t.root,
      longPollMs: 200,
      sessionTimeoutMs: 0,
      limits: { maxSeqAhead: 32, maxQueuedBytesPerModel: maxQueued, maxModelBytes: budget, maxLoraRank: 8 },
      log: () => undefined,
    });
    try {
      const url = svc.baseURL;
      const session = (await call(url, 'create_session', {})).body.session_id;
      const first = await settle(
        url,
        (
          await call(url, 'create_model', {
            session_id: session,
            model_seq_id: 0,
            base_model: MODEL,
            lora_config: { rank: 8 },
          })
        ).body.request_id,
      );
      const model = first.model_id as string;
      const next = rng(20261126);
      const statuses = new Map<number, number>();
      const failures: string[] = [];
      let maxQueuedSeen = 0;
      let maxModelSeen = 0;
      let modelSeq = 1;
      const cases = Array.from({ length: 600 }, (_, i) => i);
      const worker = async () => {
        for (;;) {
          const i = cases.shift();
          if (i === undefined) return;
          const roll = next();
          let r: { status: number; body: Record<string, unknown> };
          if (roll < 0.1) {
            // A new model: some fit the budget, the rest must be refused.
            r = await call(url, 'create_model', {
              session_id: session,
              model_seq_id: modelSeq++,
              base_model: MODEL,
              lora_config: { rank: 1 + Math.floor(next() * 8) },
            });
            if (r.status === 200) await settle(url, r.body.request_id);
          } else {
            // A forward_backward parked behind a missing seq_id (never 1), near or absurdly far ahead.
            const n = 2 + Math.floor(next() * 300);
            const tokens = Array.from({ length: n }, (_, k) => 5 + ((k * 7 + i) % 500));
            const seq = next() < 0.6 ? 2 + Math.floor(next() * 40) : 2 + Math.floor(next() * 1e9);
            r = await call(url, 'forward_backward', {
              model_id: model,
              seq_id: seq,
              forward_backward_input: {
                data: [
                  {
                    model_input: { chunks: [{ tokens: tokens.slice(0, -1) }] },
                    loss_fn_inputs: {
                      target_tokens: { data: tokens.slice(1) },
                      weights: { data: tokens.slice(1).map(() => 1) },
                    },
                  },
                ],
                loss_fn: 'cross_entropy',
              },
            });
          }
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (r.status >= 500) failures.push(`${i} → ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
          maxQueuedSeen = Math.max(maxQueuedSeen, svc.service.held.queuedBytes);
          maxModelSeen = Math.max(maxModelSeen, svc.service.held.modelBytes);
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      const histogram = [...statuses.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`);
      console.log(
        `held-memory fuzz: statuses ${histogram.join(' ')}; most queued ${maxQueuedSeen} B of ${maxQueued}; most model memory ${maxModelSeen} B of ${budget}`,
      );
      expect(failures.slice(0, 10)).toEqual([]);
      expect(maxQueuedSeen).toBeLessThanOrEqual(maxQueued);
      expect(maxModelSeen).toBeLessThanOrEqual(budget);
      // Both limits were reached (the barrage really pressed on them) and refused with 400s.
      expect(statuses.get(400) ?? 0).toBeGreaterThan(50);
      expect(svc.service.held.models).toBeGreaterThanOrEqual(2);

      // The parked requests run once the missing seq_id arrives, and the model trains on.
      expect((await send({ method: 'GET', path: 'healthz', headers: {}, body: undefined }, 2_000)).status).toBe(200);
      const datum = {
        model_input: { chunks: [{ tokens: [5, 6, 7] }] },
        loss_fn_inputs: { target_tokens: { data: [6, 7, 8] }, weights: { data: [1, 1, 1] } },
      };
      const go = await call(url, 'forward_backward', {
        model_id: model,
        seq_id: 1,
        forward_backward_input: { data: [datum], loss_fn: 'cross_entropy' },
      });
      expect(await settle(url, go.body.request_id)).toHaveProperty('metrics');
    } finally {
      await svc.close({ graceMs: 0, abort: true });
      await t.cleanup();
    }
  }, 300_000);
});
