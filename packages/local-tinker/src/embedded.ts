/**
 * The embedded default: a ServiceClient with neither TINKER_BASE_URL nor TINKER_API_KEY starts (or reuses)
 * one in-process service on 127.0.0.1 and says so once.
 */
import { type LocalTinker, startLocalTinker } from './local-tinker.js';

let embedded: Promise<LocalTinker> | undefined;

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

/** Stop the embedded service if it was started (tests, clean shutdown). */
export async function stopEmbeddedService(): Promise<void> {
  const e = embedded;
  embedded = undefined;
  if (e) await (await e).close();
}
