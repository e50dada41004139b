/**
 * Test helper: the embedded service on a temp root with the OpenAI routes mounted, their backend a Tinker client of
 * that same service, started before the calling file's tests and stopped (in-flight work aborted, root removed)
 * after them; plus a POST to its `/v1` routes and a wait on a condition.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalTinker, startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { afterAll, beforeAll } from 'vitest';
import { createOpenAIRoutes } from '../routes.js';

export const MODEL = 'local/qwen3-tiny';

/** The running service; read only inside tests (it is started by `beforeAll`). */
export interface ServedRoutes {
  readonly served: LocalTinker;
  /** POSTs `body` (with `model: MODEL` unless it names one) to `/v1/<path>`. */
  post(
    path: 'chat/completions' | 'completions',
    body: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Response>;
}

/** Registers `beforeAll` / `afterAll` in the calling test file; the root is named `<prefix>…` in the temp dir. */
export function serveOpenAIRoutes(prefix: string): ServedRoutes {
  let served: LocalTinker | undefined;
  let root: string | undefined;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), prefix));
    let baseURL = '';
    const routes = createOpenAIRoutes({
      log: () => {},
      backend: async () => new ServiceClient({ baseURL, warn: () => {} }),
    });
    served = await startLocalTinker({ root, mounts: [routes], log: () => {} });
    baseURL = served.baseURL;
  });
  afterAll(async () => {
    await served?.close({ abort: true, graceMs: 0 });
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
  });
  const current = (): LocalTinker => {
    if (served === undefined) throw new Error('the service is started by beforeAll: use it inside a test');
    return served;
  };
  return {
    get served() {
      return current();
    },
    post: (path, body, signal) =>
      fetch(`${current().baseURL}/v1/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ model: MODEL, ...body }),
        ...(signal ? { signal } : {}),
      }),
  };
}

/** Resolves once `ok()` holds (checked every few ms; the test's own timeout bounds the wait). */
export async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 5));
}
