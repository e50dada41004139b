import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@cookbook/core';
import { DEFAULT_BASE_URL } from '@cookbook/tinker-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { embeddedServerFrom } from './embedded-server.js';
import { serviceClientFor } from './loop-service.js';

const VARS = ['TINKER_BASE_URL', 'TINKER_API_KEY', 'COOKBOOK_LOCAL_TINKER_ROOT'] as const;
let saved: Partial<Record<(typeof VARS)[number], string>> = {};
let root = '';

beforeEach(() => {
  saved = {};
  for (const v of VARS) {
    if (process.env[v] !== undefined) saved[v] = process.env[v];
    delete process.env[v];
  }
  root = mkdtempSync(join(tmpdir(), 'cookbook-resolver-'));
});

afterEach(() => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
  rmSync(root, { recursive: true, force: true });
});

describe('serviceClientFor: the one place that picks the service', () => {
  it('takes base_url first, then TINKER_BASE_URL, then the hosted service with TINKER_API_KEY', async () => {
    process.env.COOKBOOK_LOCAL_TINKER_ROOT = root; // were the embedded service started by mistake
    process.env.TINKER_BASE_URL = 'http://127.0.0.1:9/from-env';
    await using fromEnv = serviceClientFor({ baseUrl: null });
    expect(await fromEnv.baseURL()).toBe('http://127.0.0.1:9/from-env');
    process.env.TINKER_API_KEY = 'tml-key';
    await using given = serviceClientFor({ baseUrl: 'http://127.0.0.1:9/given' });
    expect(await given.baseURL()).toBe('http://127.0.0.1:9/given');
    delete process.env.TINKER_BASE_URL;
    await using hosted = serviceClientFor();
    expect(await hosted.baseURL()).toBe(DEFAULT_BASE_URL);
  });

  it('with nothing configured starts the embedded service on loopback at first contact, shared and released', async () => {
    process.env.COOKBOOK_LOCAL_TINKER_ROOT = root;
    const a = serviceClientFor();
    const b = serviceClientFor({}, { warn: () => undefined });
    const url = await a.baseURL();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await b.baseURL()).toBe(url);
    const caps = await a.getServerCapabilities();
    expect(caps.supportedModels.map((m) => m.modelName)).toContain('local/qwen3-tiny');
    await a.close();
    await b.close();
    // The last close stopped it: nothing answers there any more.
    await expect(fetch(`${url}/api/v1/healthz`)).rejects.toThrow();
  });

  it('names the package to install when the embedded service is missing, and passes other load failures on', async () => {
    const missing = Object.assign(
      new Error("Cannot find package '@cookbook/local-tinker' imported from /app/node_modules/@cookbook/training"),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
    const err = await embeddedServerFrom(() => Promise.reject(missing))().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String(err)).toContain('npm install @cookbook/local-tinker');
    expect(String(err)).toContain('TINKER_BASE_URL');
    // A package local-tinker itself imports is missing: that error, not an advice to install local-tinker.
    const inner = Object.assign(
      new Error(
        "Cannot find package '@cookbook/engine' imported from /app/node_modules/@cookbook/local-tinker/dist/x.js",
      ),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
    await expect(embeddedServerFrom(() => Promise.reject(inner))()).rejects.toBe(inner);
  });
});
