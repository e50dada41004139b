/**
 * The dashboard's HTTP server: `node:http` on loopback, read-only (GET and HEAD only), serving the page from this
 * package's `static/` folder, the JSON API over the runs folder (`run-api.ts`), the metrics as binary columns and the
 * live updates as server-sent events (`live-runs.ts`). Every request's `Host` must name loopback with this port (DNS
 * rebinding); every run is named by its path relative to the runs folder and resolved inside it (real paths,
 * symlinks followed: `run-states.ts`).
 */
import { createReadStream, realpathSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '@cookbook/core';
import { isLoopbackHost } from './host-check.js';
import { HttpError } from './http-error.js';
import { LiveRuns } from './live-runs.js';
import { metricKeysOf, RunApi } from './run-api.js';
import { RunStates } from './run-states.js';

/** Options of {@link startDashboard}. */
export interface DashboardOptions {
  /** The runs folder. */
  dir: string;
  /** TCP port; 0 = any free port. Default 0. */
  port?: number;
  /** Numbers (metric cells) the server keeps cached over all runs before dropping the least recently used. */
  maxCachedCells?: number;
  /** Poll interval of the fallback stat watcher, ms. Default 1000. */
  pollMs?: number;
}

/** A running dashboard. */
export interface Dashboard {
  url: string;
  port: number;
  /** The runs folder (real path). */
  root: string;
  close(): Promise<void>;
}

const STATIC_DIR = fileURLToPath(new URL('../static/', import.meta.url));
const require = createRequire(import.meta.url);
const STATIC: Record<string, { path: () => string; type: string }> = {
  '/': { path: () => join(STATIC_DIR, 'index.html'), type: 'text/html; charset=utf-8' },
  '/app.js': { path: () => join(STATIC_DIR, 'app.js'), type: 'text/javascript; charset=utf-8' },
  '/app.css': { path: () => join(STATIC_DIR, 'app.css'), type: 'text/css; charset=utf-8' },
  '/vendor/uplot.js': {
    path: () => require.resolve('uplot/dist/uPlot.iife.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  '/vendor/uplot.css': { path: () => require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
};

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

/** Starts the dashboard on 127.0.0.1 over the runs folder `options.dir`. */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  let root: string;
  try {
    root = realpathSync(options.dir);
  } catch {
    throw new ConfigError(`dir: runs folder ${options.dir} does not exist`, { key: 'dir' });
  }
  const states = new RunStates(root, options.maxCachedCells ?? 50_000_000);
  const live = new LiveRuns(states, options.pollMs ?? 1000);
  const api = new RunApi(states, live);
  let port = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!isLoopbackHost(req.headers.host, port)) {
      res.writeHead(403, { 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
      res.end('refused: the Host header must be 127.0.0.1, localhost or [::1] with this port (DNS rebinding guard)\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS });
      res.end('the dashboard is read-only\n');
      return;
    }
    let url: URL;
    try {
      url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);
    } catch {
      res.writeHead(400, SECURITY_HEADERS);
      res.end();
      return;
    }
    const asset = STATIC[url.pathname];
    if (asset !== undefined) {
      res.writeHead(200, { 'Content-Type': asset.type, ...SECURITY_HEADERS });
      if (req.method === 'HEAD') res.end();
      else createReadStream(asset.path()).pipe(res);
      return;
    }
    if (url.pathname === '/api/events') {
      const ids = url.searchParams.getAll('id').slice(0, 16);
      try {
        for (const id of ids) states.dir(id);
      } catch (err) {
        fail(res, err);
        return;
      }
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        Connection: 'keep-alive',
        ...SECURITY_HEADERS,
      });
      res.flushHeaders();
      for (const id of ids) await live.subscribe(id, res);
      const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
      res.on('close', () => clearInterval(keepAlive));
      return;
    }
    if (url.pathname === '/api/metrics.bin') {
      try {
        const s = await api.metricsOf(url.searchParams);
        const body = s.metrics.encode(metricKeysOf(url.searchParams));
        res.writeHead(200, { 'Content-Type': 'application/octet-stream', ...SECURITY_HEADERS });
        res.end(req.method === 'HEAD' ? undefined : body);
      } catch (err) {
        fail(res, err);
      }
      return;
    }
    if (!url.pathname.startsWith('/api/')) {
      fail(res, new HttpError(404, `not found: ${url.pathname}`));
      return;
    }
    try {
      const body = JSON.stringify(await api.answer(url));
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', ...SECURITY_HEADERS });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (err) {
      fail(res, err);
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => fail(res, err));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    port,
    root,
    close: async () => {
      live.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function fail(res: ServerResponse, err: unknown): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const status = err instanceof HttpError ? err.status : 500;
  const message = err instanceof Error ? err.message : String(err);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...SECURITY_HEADERS });
  res.end(JSON.stringify({ error: message }));
}
