/**
 * Starting the embedded service: `startLocalTinker({ port, root, apiKey })` returns its base URL and a
 * `close()` that finishes in-flight work first. It refuses a non-loopback address without an API key.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@cookbook/core';
import { createHttpServer, listen } from './http-server.js';
import { LocalTinkerService } from './service.js';

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
  /** Largest request body, bytes. Default 256 MiB. */
  maxBodyBytes?: number;
  /** Where notices go. Default: nowhere. */
  log?: (message: string) => void;
}

/** A running embedded service. */
export interface LocalTinker {
  baseURL: string;
  root: string;
  service: LocalTinkerService;
  /**
   * Stop accepting requests, finish queued work, close connections. `graceMs` (default 300) is how long finished
   * results stay collectable by pollers before connections close.
   */
  close(options?: { graceMs?: number }): Promise<void>;
  /** Let the process exit while the server is idle (for the embedded default service). */
  unref(): void;
}

/** The default folder of the embedded service. */
export function defaultRoot(): string {
  return process.env.COOKBOOK_LOCAL_TINKER_ROOT || join(homedir(), '.cache', 'cookbook', 'local-tinker');
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\./.test(host);
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
  const service = new LocalTinkerService({
    root,
    apiKey: options.apiKey,
    ...(options.longPollMs !== undefined ? { longPollMs: options.longPollMs } : {}),
    ...(options.futureTtlMs !== undefined ? { futureTtlMs: options.futureTtlMs } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  await service.init();
  const server = createHttpServer(
    service,
    options.maxBodyBytes !== undefined ? { maxBodyBytes: options.maxBodyBytes } : {},
  );
  const baseURL = await listen(server, host, options.port ?? 0);
  let closed: Promise<void> | undefined;
  return {
    baseURL,
    root,
    service,
    unref: () => server.unref(),
    close: (closeOptions = {}) => {
      closed ??= (async () => {
        const grace = closeOptions.graceMs ?? 300;
        // New work is refused (503) from here; queued work finishes, and pollers may still collect results.
        await service.close();
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
