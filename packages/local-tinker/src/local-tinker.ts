/**
 * Starting the embedded service: `startLocalTinker({ port, root, apiKey })` returns its base URL and a
 * `close()` that finishes in-flight work first. It refuses a non-loopback address without an API key.
 */
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@cookbook/core';
import { createHttpServer, listen, type MountedRoutes } from './http-server.js';
import type { ServiceLimits } from './limits.js';
import { LocalTinkerService, type ProtocolOptions } from './service.js';

/** Options of {@link startLocalTinker}. */
export interface LocalTinkerOptions {
  /** TCP port; 0 (default) picks a free one. */
  port?: number;
  /** Address to bind. Default 127.0.0.1. Anything but loopback requires `apiKey`. */
  host?: string;
  /** Folder for runs and checkpoints. Default: `COOKBOOK_LOCAL_TINKER_ROOT`, else ~/.cache/cookbook/local-tinker. */
  root?: string;
  /** Require this key in `X-API-Key`. */
  apiKey?: string;
  /** Long-poll hold of `retrieve_future`, ms. Default 20 000. */
  longPollMs?: number;
  /** How long a completed future stays retrievable, ms. Default 30 min. */
  futureTtlMs?: number;
  /** Largest request body, bytes (shorthand for `limits.maxBodyBytes`). Default 64 MiB. */
  maxBodyBytes?: number;
  /** Bounds on one request (`DEFAULT_LIMITS` for the rest). */
  limits?: Partial<ServiceLimits>;
  /** Unload the models and samplers of a session silent for this long, ms; 0 = never. Default 5 minutes. */
  sessionTimeoutMs?: number;
  /** Engine worker threads. Default 1. */
  engineThreads?: number;
  /** Keep the root under this many bytes (least recently used runs are removed, never a loaded one). */
  maxRootBytes?: number | null;
  /** Remove runs unused for this many days. */
  maxRunAgeDays?: number | null;
  /** Where notices go. Default: nowhere. */
  log?: (message: string) => void;
  /** Run training and sampling in lock-step cycles of this many ms, like the hosted service; 0 (default) = off. */
  clockCycleMs?: number;
  /** With a clock: append one JSON line per cycle to this file. */
  clockCycleLogPath?: string;
  /**
   * Folders a `base_model` folder may lie in; `'any'` accepts every folder. Default: `'any'` on loopback, none (only
   * registered names) when bound beyond it, so a remote key holder cannot make the service read arbitrary folders.
   */
  modelRoots?: readonly string[] | 'any';
  /** What `client/config` answers and JWT mode (`protocol-config.ts`). Default: the SDK's default flags. */
  protocol?: ProtocolOptions;
  /**
   * Routes served beside the Tinker routes on the same port, under their own prefix (`cookbook serve` mounts its
   * OpenAI-compatible `/v1` routes here). They get the same body limits; they check auth themselves.
   */
  mounts?: readonly MountedRoutes[];
}

/** A running embedded service. */
export interface LocalTinker {
  baseURL: string;
  root: string;
  service: LocalTinkerService;
  /**
   * Stop accepting requests, finish queued work (or, with `abort`, fail every unfinished request with "the service
   * is stopping"), close connections. `graceMs` (default 300) is how long results stay collectable by pollers
   * before connections close.
   */
  close(options?: { graceMs?: number; abort?: boolean }): Promise<void>;
  /** Let the process exit while the server is idle (for the embedded default service). */
  unref(): void;
}

/** The default folder of the embedded service. */
export function defaultRoot(): string {
  return process.env.COOKBOOK_LOCAL_TINKER_ROOT || join(homedir(), '.cache', 'cookbook', 'local-tinker');
}

/** True for `localhost` and loopback IP literals only (a name such as `127.evil.example` is not one). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./i.test(h);
  return false;
}

/**
 * The folders a `base_model` folder may lie in when the operator names none: any on loopback (only this machine's
 * users reach it, and they can read its files anyway), none when bound beyond it.
 */
export function defaultModelRoots(host: string): readonly string[] | 'any' {
  return isLoopback(host) ? 'any' : [];
}

/** Start the service on loopback (or `host` with an API key). */
export async function startLocalTinker(options: LocalTinkerOptions = {}): Promise<LocalTinker> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopback(host) && !options.apiKey) {
    throw new ConfigError(`refusing to bind ${host} without an API key: set api_key (or bind 127.0.0.1)`, {
      key: 'host',
    });
  }
  const root = options.root ?? defaultRoot();
  const limits = {
    ...options.limits,
    ...(options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {}),
  };
  const service = new LocalTinkerService({
    root,
    apiKey: options.apiKey,
    limits,
    ...(options.longPollMs !== undefined ? { longPollMs: options.longPollMs } : {}),
    ...(options.futureTtlMs !== undefined ? { futureTtlMs: options.futureTtlMs } : {}),
    ...(options.sessionTimeoutMs !== undefined ? { sessionTimeoutMs: options.sessionTimeoutMs } : {}),
    ...(options.engineThreads !== undefined ? { engineThreads: options.engineThreads } : {}),
    ...(options.maxRootBytes !== undefined ? { maxRootBytes: options.maxRootBytes } : {}),
    ...(options.maxRunAgeDays !== undefined ? { maxRunAgeDays: options.maxRunAgeDays } : {}),
    ...(options.log ? { log: options.log } : {}),
    ...(options.clockCycleMs ? { clockCycleMs: options.clockCycleMs } : {}),
    ...(options.clockCycleLogPath !== undefined ? { clockCycleLogPath: options.clockCycleLogPath } : {}),
    modelRoots: options.modelRoots ?? defaultModelRoots(host),
    ...(options.protocol ? { protocol: options.protocol } : {}),
  });
  await service.init();
  const server = createHttpServer(service, options.mounts ? { mounts: options.mounts } : {});
  let baseURL: string;
  try {
    baseURL = await listen(server, host, options.port ?? 0);
  } catch (err) {
    await service.close();
    throw err;
  }
  let closed: Promise<void> | undefined;
  return {
    baseURL,
    root,
    service,
    unref: () => server.unref(),
    close: (closeOptions = {}) => {
      // Stopping at once while a draining stop runs: fail what is left now; the draining stop then completes.
      if (closed !== undefined && closeOptions.abort === true) void service.close({ abort: true });
      closed ??= (async () => {
        const grace = closeOptions.graceMs ?? 300;
        // New work is refused (503) from here; queued work finishes (or fails, with abort), and pollers may still
        // collect results.
        await service.close({ abort: closeOptions.abort === true });
        if (grace > 0) await new Promise((r) => setTimeout(r, grace));
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // Anything still open now is a finished long-poll's keep-alive socket.
        if (grace > 0) setTimeout(() => server.closeAllConnections(), 1000).unref();
        else server.closeAllConnections();
        await stopped;
      })();
      return closed;
    },
  };
}
