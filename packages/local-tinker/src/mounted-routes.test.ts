import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MountedRoutes } from './http-server.js';
import { type LocalTinker, startLocalTinker } from './local-tinker.js';

let t: LocalTinker;
const seen: { path: string; body: unknown }[] = [];
const mount: MountedRoutes = {
  prefix: '/x',
  async handle(request, res) {
    seen.push({ path: request.path, body: request.body });
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.end(`ok ${request.path}`);
  },
  errorBody: (status, message) => ({ error: { status, message } }),
};

beforeAll(async () => {
  t = await startLocalTinker({
    root: mkdtempSync(join(tmpdir(), 'lt-mount-')),
    apiKey: 'k',
    mounts: [mount],
    limits: { maxBodyBytes: 1024, maxJsonDepth: 8 },
  });
});
afterAll(async () => {
  await t.close({ graceMs: 0 });
});

const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${t.baseURL}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body });

describe('routes mounted beside the Tinker routes', () => {
  it('get their prefix with the JSON body parsed; the Tinker routes keep theirs (and their auth)', async () => {
    const r = await post('/x/y/', '{"a":1}');
    expect(await r.text()).toBe('ok /x/y');
    expect(seen.at(-1)).toEqual({ path: '/x/y', body: { a: 1 } });
    expect((await post('/xy', '{}')).status).not.toBe(200);
    const tinker = await post('/api/v1/create_session', '{}');
    expect(tinker.status).toBe(401);
  });

  it("the service's body limits hold, the errors in the mount's own shape", async () => {
    const big = await post('/x/big', JSON.stringify({ s: 'x'.repeat(2000) }));
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { message: string } }).error.message).toMatch(/limit of 1024 bytes/);
    const deep = await post('/x/deep', `${'['.repeat(20)}${']'.repeat(20)}`);
    expect(deep.status).toBe(400);
    expect(((await deep.json()) as { error: { status: number } }).error.status).toBe(400);
    const proto = await post('/x/p', 'abc', { 'Content-Type': 'application/x-protobuf' });
    expect(proto.status).toBe(415);
    const bad = await post('/x/bad', '{nope');
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/not valid JSON/);
  });
});
