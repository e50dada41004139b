/**
 * The embedded default: a ServiceClient with neither TINKER_BASE_URL nor TINKER_API_KEY starts (or reuses) one
 * in-process service on 127.0.0.1 and says so once. Invariant: the service runs while at least one client holds it
 * (`acquireEmbeddedService`); the last `release()` stops it, so a script ends as soon as its clients are closed.
 */
import { ConfigError } from '@cookbook/core';
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

/**
 * The clock-cycle options of the embedded service from the environment: `COOKBOOK_LOCAL_TINKER_CLOCK_CYCLE_MS`
 * (cycle length, ms; unset or 0 = off) and `COOKBOOK_LOCAL_TINKER_CLOCK_CYCLE_LOG` (a file for per-cycle lines).
 */
export function clockOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): {
  clockCycleMs?: number;
  clockCycleLogPath?: string;
} {
  const raw = env.COOKBOOK_LOCAL_TINKER_CLOCK_CYCLE_MS;
  if (raw === undefined || raw.trim() === '') return {};
  const ms = Number(raw);
  if (!Number.isFinite(ms) || ms < 0) {
    throw new ConfigError(`COOKBOOK_LOCAL_TINKER_CLOCK_CYCLE_MS must be a cycle length in ms (0 = off), got "${raw}"`, {
      key: 'COOKBOOK_LOCAL_TINKER_CLOCK_CYCLE_MS',
    });
  }
  if (ms === 0) return {};
  const log = env.COOKBOOK_LOCAL_TINKER_CLOCK_CYCLE_LOG;
  return { clockCycleMs: ms, ...(log ? { clockCycleLogPath: log } : {}) };
}

let embedded: Promise<LocalTinker> | undefined;
let holders = 0;

/** Start the embedded service once per process and return its URL. */
export function ensureEmbeddedService(): Promise<{ baseURL: string }> {
  embedded ??= Promise.resolve()
    .then(() => clockOptionsFromEnv())
    .then(async (clock) => {
      await enforceCap(defaultRoot());
      return { clock, t: await startLocalTinker(clock) };
    })
    .then(({ clock, t }) => {
      t.unref();
      console.error(
        `cookbook: TINKER_BASE_URL and TINKER_API_KEY are not set; using the embedded local Tinker service at ${t.baseURL} (data in ${t.root})` +
          (clock.clockCycleMs
            ? `, in ${clock.clockCycleMs} ms clock cycles (COOKBOOK_LOCAL_TINKER_CLOCK_CYCLE_MS)`
            : ''),
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
