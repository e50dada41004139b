/**
 * Every client of a ServiceClient starts after the handshake (regression: `getServerCapabilities` and
 * `createRestClient` skipped it, so in JWT mode their first call carried the raw key and got a 401 "Invalid JWT").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalTinker, startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const KEY = 'k-handshake';
let served: LocalTinker;
let root: string;
const clients: ServiceClient[] = [];
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'handshake-first-'));
  served = await startLocalTinker({
    root,
    apiKey: KEY,
    log: () => {},
    protocol: { clientFlags: { pjwt_auth_enabled: true } },
  });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await served.close({ graceMs: 0 });
  rmSync(root, { recursive: true, force: true });
});

function client(): ServiceClient {
  const c = new ServiceClient({ baseURL: served.baseURL, apiKey: KEY, warn: () => {} });
  clients.push(c);
  return c;
}

describe('in JWT mode, the first call of a new ServiceClient', () => {
  it('getServerCapabilities answers', async () => {
    const caps = await client().getServerCapabilities();
    expect(caps.supportedModels.map((m) => m.modelName)).toContain('local/qwen3-tiny');
  });

  it("a RestClient's first call answers", async () => {
    const rest = await client().createRestClient();
    expect((await rest.listUserCheckpoints()).checkpoints).toEqual([]);
  });
});
