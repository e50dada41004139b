import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  json,
  MODEL,
  post,
  result,
  servicesClosedAfterEach,
  sessionAndModel,
  submitAndWait,
} from './__tests__/direct.js';
import { MAX_TTL_SECONDS } from './limits.js';
import { defaultModelRoots } from './local-tinker.js';
import type { LocalTinkerService } from './service.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const service = servicesClosedAfterEach();

/** A folder holding a `config.json` that is not a model config but a secret. */
function secretFolder(): { parent: string; folder: string } {
  const parent = mkdtempSync(join(tmpdir(), 'lt-secret-'));
  dirs.push(parent);
  const folder = join(parent, 'creds');
  mkdirSync(folder);
  writeFileSync(join(folder, 'config.json'), 'hunter2-cafe-babe secret token');
  return { parent, folder };
}

const createModel = (s: LocalTinkerService, session: string, base: string, seq = 0) =>
  post(s, 'create_model', { session_id: session, model_seq_id: seq, base_model: base, lora_config: { rank: 2 } });

describe('base_model folders (regression: any folder on the server, and the error quoted its config.json)', () => {
  it('by default any folder on loopback, none for a service bound beyond it', () => {
    expect(defaultModelRoots('127.0.0.1')).toBe('any');
    expect(defaultModelRoots('localhost')).toBe('any');
    expect(defaultModelRoots('0.0.0.0')).toEqual([]);
    expect(defaultModelRoots('192.168.1.5')).toEqual([]);
  });

  it('with no model roots, a folder is refused alike whether it exists or not, quoting nothing', async () => {
    const s = await service({ modelRoots: [] });
    const session = json(await post(s, 'create_session', {})).session_id as string;
    const { folder } = secretFolder();
    const there = await createModel(s, session, folder);
    const absent = await createModel(s, session, `${folder}-absent`);
    expect(there.status).toBe(400);
    expect(absent.status).toBe(400);
    expect(String(json(there).detail).replace(folder, 'X')).toBe(
      String(json(absent).detail).replace(`${folder}-absent`, 'X'),
    );
    expect(String(json(there).detail)).toMatch(/model_roots=/);
    expect(String(json(there).detail)).not.toContain('hunter2');
    // Registered names still work.
    expect((await createModel(s, session, MODEL, 1)).status).toBe(200);
  });

  it('a folder outside the allowed roots is refused; one inside is read, and its bad config is never quoted', async () => {
    const { parent, folder } = secretFolder();
    const s = await service({ modelRoots: [join(parent, 'models')] });
    const session = json(await post(s, 'create_session', {})).session_id as string;
    expect((await createModel(s, session, folder)).status).toBe(400);
    // `models/../creds` is outside once resolved.
    mkdirSync(join(parent, 'models'));
    expect((await createModel(s, session, join(parent, 'models', '..', 'creds'))).status).toBe(400);
    const inside = join(parent, 'models', 'bad');
    mkdirSync(inside);
    writeFileSync(join(inside, 'config.json'), 'hunter2-cafe-babe secret token');
    const r = await createModel(s, session, inside, 1);
    expect(r.status).toBe(200);
    const failed = await result(s, json(r).request_id);
    expect(failed.category).toBe('user');
    expect(String(failed.error)).toMatch(/config\.json: it is not valid JSON/);
    expect(String(failed.error)).not.toContain('hunter2');
  });

  for (const how of ['absolute', 'relative'] as const) {
    it(`a storage error (a file where the service expects a folder) does not quote the service root (${how})`, async () => {
      const abs = mkdtempSync(join(tmpdir(), 'lt-scrub-'));
      dirs.push(abs);
      const root = how === 'absolute' ? abs : relative(process.cwd(), abs);
      const s = await service({ root });
      const { model } = await sessionAndModel(s, 2);
      writeFileSync(join(s.storage.root, 'runs', encodeURIComponent(model), 'weights'), 'not a folder');
      const r = await post(s, 'save_weights', { model_id: model, path: 'c1' });
      const text = r.status === 200 ? JSON.stringify(await result(s, json(r).request_id)) : JSON.stringify(json(r));
      expect(text).not.toContain(abs);
      expect(text).not.toContain(root);
      expect(text).toContain('<service root>/runs/');
    });
  }
});

describe('sampling_session_seq_id reuse (regression: another base model returned the old sampler)', () => {
  it('the same arguments replay; other arguments are a 409', async () => {
    const s = await service();
    const session = json(await post(s, 'create_session', {})).session_id as string;
    const create = (base: string) =>
      post(s, 'create_sampling_session', { session_id: session, sampling_session_seq_id: 0, base_model: base });
    const first = await create('local/qwen3-tiny');
    expect(first.status).toBe(200);
    expect(json(await create('local/qwen3-tiny'))).toEqual(json(first));
    const other = await create('local/llama3-tiny');
    expect(other.status).toBe(409);
    expect(String(json(other).detail)).toMatch(
      /sampling_session_seq_id 0 was already used .* base_model "local\/qwen3-tiny"/,
    );
  });
});

describe('out-of-range numbers and stop strings are 400s', () => {
  it('ttl_seconds 9e15 is a 400 naming the bound (regression: a 500 "Invalid time value")', async () => {
    const s = await service();
    const { model } = await sessionAndModel(s, 2);
    for (const route of ['save_weights', 'save_weights_for_sampler']) {
      const r = await post(s, route, { model_id: model, path: `t-${route}`, ttl_seconds: 9e15 });
      expect(r.status, route).toBe(400);
      expect(String(json(r).detail)).toContain(
        `ttl_seconds = 9000000000000000 is out of range: at most ${MAX_TTL_SECONDS}`,
      );
    }
    await submitAndWait(s, 'save_weights', { model_id: model, path: 'keep' });
    const rest = await s.handle({
      method: 'PUT',
      path: `/api/v1/training_runs/${encodeURIComponent(model)}/checkpoints/weights/keep/ttl`,
      query: new URLSearchParams(),
      headers: {},
      body: { ttl_seconds: 9e15 },
    });
    expect(rest.status).toBe(400);
  });

  it('stop sequences are bounded in count and total length (regression: 1,000,000 stops slowed the worker 16×)', async () => {
    const s = await service({ limits: { maxStopSequences: 4, maxStopChars: 20 } });
    const sample = (stop: unknown) =>
      post(s, 'asample', {
        base_model: MODEL,
        prompt: { chunks: [{ tokens: [1, 2, 3] }] },
        sampling_params: { max_tokens: 2, stop },
      });
    const many = await sample(['a', 'b', 'c', 'd', 'e']);
    expect(many.status).toBe(400);
    expect(String(json(many).detail)).toMatch(
      /number of stop sequences = 5 exceeds this service's limit of 4.*max_stop_sequences=/,
    );
    const long = await sample(['x'.repeat(15), 'y'.repeat(6)]);
    expect(long.status).toBe(400);
    expect(String(json(long).detail)).toMatch(/total length of the stop strings = 21 .* limit of 20.*max_stop_chars=/);
    const tokens = await sample([1, 2, 3, 4, 5]);
    expect(tokens.status).toBe(400);
    const fine = await sample(['x'.repeat(15), 'y']);
    expect(fine.status).toBe(200);
    expect(await result(s, json(fine).request_id)).toHaveProperty('sequences');
  });
});
