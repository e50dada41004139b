/**
 * The OpenAI routes hold the Tinker routes' promises: a folder outside the service's model roots is refused before
 * anything of it is read, alike whether it exists or not; in JWT mode the first request with the right key works.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalTinker, startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { afterAll, describe, expect, it } from 'vitest';
import { createOpenAIRoutes } from './routes.js';

const KEY = 'k-47';
const started: { service: LocalTinker; root: string }[] = [];
afterAll(async () => {
  for (const { service, root } of started) {
    await service.close({ graceMs: 0 });
    rmSync(root, { recursive: true, force: true });
  }
});

async function serve(options: { modelRoots?: readonly string[]; jwt?: boolean }) {
  const root = mkdtempSync(join(tmpdir(), 'openai-promises-'));
  let baseURL = '';
  const routes = createOpenAIRoutes({
    apiKey: KEY,
    log: () => {},
    backend: async () => new ServiceClient({ baseURL, apiKey: KEY, warn: () => {} }),
  });
  const service = await startLocalTinker({
    root,
    apiKey: KEY,
    mounts: [routes],
    log: () => {},
    ...(options.modelRoots ? { modelRoots: options.modelRoots } : {}),
    ...(options.jwt ? { protocol: { clientFlags: { pjwt_auth_enabled: true } } } : {}),
  });
  baseURL = service.baseURL;
  started.push({ service, root });
  return service;
}

async function chat(baseURL: string, model: string) {
  const r = await fetch(`${baseURL}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${KEY}` },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }),
  });
  return { status: r.status, message: ((await r.json()) as { error: { message: string } }).error.message };
}

describe('the OpenAI routes hold the Tinker routes’ promises', () => {
  it('a model folder outside model_roots: refused before it is read, the same answer whether it exists or not (regression: the 404 quoted its tokenizer.json)', async () => {
    const allowed = mkdtempSync(join(tmpdir(), 'openai-allowed-'));
    const outside = mkdtempSync(join(tmpdir(), 'openai-outside-'));
    try {
      const folder = join(outside, 'model');
      mkdirSync(folder);
      writeFileSync(join(folder, 'config.json'), '{"secret": "hunter2-config"}');
      writeFileSync(join(folder, 'tokenizer.json'), 'hunter2-tokenizer secret bytes');
      writeFileSync(join(folder, 'tokenizer_config.json'), '{"secret": "hunter2-tokcfg"}');
      const service = await serve({ modelRoots: [allowed] });
      const there = await chat(service.baseURL, folder);
      const absent = await chat(service.baseURL, `${folder}-absent`);
      expect(there.status).toBe(404);
      expect(absent.status).toBe(404);
      expect(there.message).not.toContain('hunter2');
      expect(there.message).toContain('model_roots=');
      expect(there.message.replaceAll(folder, 'X')).toBe(absent.message.replaceAll(`${folder}-absent`, 'X'));
    } finally {
      rmSync(allowed, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('under JWT mode, the first request with the right key is answered (regression: 401 "Invalid JWT")', async () => {
    const service = await serve({ jwt: true });
    const r = await fetch(`${service.baseURL}/v1/models`, { headers: { Authorization: `Bearer ${KEY}` } });
    expect(r.status).toBe(200);
    const ids = ((await r.json()) as { data: { id: string }[] }).data.map((m) => m.id);
    expect(ids).toContain('local/qwen3-tiny');
  });
});
