/**
 * The embedded default: a ServiceClient with neither TINKER_BASE_URL nor TINKER_API_KEY starts (or reuses) one
 * in-process service on 127.0.0.1 and says so once. Invariant: the service runs while at least one client holds it
 * (`acquireEmbeddedService`); the last `release()` stops it, so a script ends as soon as its clients are closed.
 */
import { formatBytes, pruneCache } from './cache.js';
import { defaultRoot, type LocalTinker, startLocalTinker } from './local-tinker.js';

/** The default size cap of the embedded service's data, in GB (`COOKBOOK_LOCAL_TINKER_MAX_GB` overrides it). */
export const DEFAULT_CACHE_MAX_GB = 20;

/** Keeps the embedded root under its cap, removing least recently used runs, and says what it removed. */
async function enforceCap(root: string): Promise<void> {
  const raw = process.env.COOKBOOK_LOCAL_TINKER_MAX_GB;
  const gb = raw === undefined || raw === '' ? DEFAULT_CACHE_MAX_GB : Number(raw);
  if (!(gb > 0)) return; // 0 or an invalid value: no cap
  const { removed, freedBytes } = await pruneCache(root, { maxBytes: gb * 1e9 });
  if (removed.length > 0) {
    console.error(
      `cookbook: the embedded service's data in ${root} was over its ${gb} GB cap (COOKBOOK_LOCAL_TINKER_MAX_GB): ` +
        `removed the ${removed.length} least recently used runs (${formatBytes(freedBytes)}); \`cookbook cache\` shows the rest`,
    );
  }
}

let embedded: Promise<LocalTinker> | undefined;
let holders = 0;

/** Start the embedded service once per process and return its URL. */
export function ensureEmbeddedService(): Promise<{ baseURL: string }> {
  embedded ??= enforceCap(defaultRoot())
    .then(() => startLocalTinker({}))
    .then((t) => {
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
