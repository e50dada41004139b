/**
 * The embedded default: a ServiceClient with neither TINKER_BASE_URL nor TINKER_API_KEY starts (or reuses) one
 * in-process service on 127.0.0.1 and says so once. Invariant: the service runs while at least one client holds it
 * (`acquireEmbeddedService`); the last `release()` stops it, so a script ends as soon as its clients are closed.
 */
import { type LocalTinker, startLocalTinker } from './local-tinker.js';

let embedded: Promise<LocalTinker> | undefined;
let holders = 0;

/** Start the embedded service once per process and return its URL. */
export function ensureEmbeddedService(): Promise<{ baseURL: string }> {
  embedded ??= startLocalTinker({}).then((t) => {
    t.unref();
    console.error(
      `cookbook: TINKER_BASE_URL and TINKER_API_KEY are not set; using the embedded local Tinker service at ${t.baseURL} (data in ${t.root})`,
    );
    return t;
  });
  embedded.catch(() => {
    embedded = undefined;
  });
  return embedded.then((t) => ({ baseURL: t.baseURL }));
}

/**
 * Hold the embedded service (starting it if needed) until `release()`; when the last holder releases it, the
 * service stops (its saved checkpoints stay on disk for the next start).
 */
export async function acquireEmbeddedService(): Promise<{ baseURL: string; release: () => Promise<void> }> {
  holders++;
  let baseURL: string;
  try {
    ({ baseURL } = await ensureEmbeddedService());
  } catch (err) {
    holders--;
    throw err;
  }
  let released = false;
  return {
    baseURL,
    release: async () => {
      if (released) return;
      released = true;
      holders--;
      if (holders === 0) await stopEmbeddedService({ graceMs: 0 });
    },
  };
}

/**
 * Stop the embedded service if it was started. `graceMs` (default 300) lets pollers of other processes collect
 * finished results first; the last client of this process needs none.
 */
export async function stopEmbeddedService(options: { graceMs?: number } = {}): Promise<void> {
  const e = embedded;
  embedded = undefined;
  if (e) await (await e).close(options);
}
