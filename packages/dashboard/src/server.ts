/**
 * The dashboard's HTTP server: `node:http` on loopback, read-only (GET and HEAD only), serving the page from this
 * package's `static/` folder and a JSON API over the runs folder. Every request's `Host` must name loopback with this
 * port (DNS rebinding); every run is named by its path relative to the runs folder and resolved inside it (real
 * paths, symlinks followed). Live updates go out as server-sent events: a watcher on each open run folder (inotify,
 * with a 1 s stat poll as a fallback) reads the bytes appended to `metrics.jsonl` and pushes the new rows.
 */
import { createReadStream, type FSWatcher, realpathSync, watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BoundedMap, ConfigError } from '@cookbook/core';
import { compareExamples, type EvalExample, readBenchmarks, readExample, readExamples } from './eval-folders.js';
import { isLoopbackHost } from './host-check.js';
import { MetricsStore } from './metrics-store.js';
import { RolloutIndex, type RolloutQuery } from './rollout-index.js';
import { describeRun, findRuns, readSmallJson, readSmallJsonl } from './run-folders.js';
import { realInside, resolveInside } from './safe-path.js';
import { TimingStore } from './timing-store.js';

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

interface RunState {
  dir: string;
  metrics: MetricsStore;
  rollouts: RolloutIndex | undefined;
  timing: TimingStore | undefined;
  lastUsed: number;
}

interface Live {
  clients: Set<ServerResponse>;
  watcher: FSWatcher | undefined;
  timer: NodeJS.Timeout;
  busy: boolean;
  dirty: boolean;
  checkpointsSize: number;
  rolloutSize: number;
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

/** Refused or not found: the status and a message for the page. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Starts the dashboard on 127.0.0.1 over the runs folder `options.dir`. */
export async function startDashboard(options: DashboardOptions): Promise<Dashboard> {
  let root: string;
  try {
    root = realpathSync(options.dir);
  } catch {
    throw new ConfigError(`dir: runs folder ${options.dir} does not exist`, { key: 'dir' });
  }
  const maxCells = options.maxCachedCells ?? 50_000_000;
  const pollMs = options.pollMs ?? 1000;
  const runs = new Map<string, RunState>();
  const lives = new Map<string, Live>();
  const evalCache = new BoundedMap<string, { examples: EvalExample[]; skipped: number; at: number }>(16);
  let port = 0;

  const runDir = (id: string | null): string => {
    if (id === null || id === '') throw new HttpError(400, 'missing ?id= (a run folder relative to the runs folder)');
    const r = resolveInside(root, id);
    if ('refused' in r) {
      if (r.refused === 'not found') throw new HttpError(404, `run ${id} is gone (its folder does not exist)`);
      throw new HttpError(403, `refused: ${id} (${r.refused})`);
    }
    return r.path;
  };

  const stateOf = (id: string): RunState => {
    const dir = runDir(id);
    let s = runs.get(id);
    if (s === undefined || s.dir !== dir) {
      s = { dir, metrics: new MetricsStore(dir), rollouts: undefined, timing: undefined, lastUsed: Date.now() };
      runs.set(id, s);
    }
    s.lastUsed = Date.now();
    return s;
  };

  const evict = () => {
    let total = 0;
    for (const s of runs.values()) total += s.metrics.cells();
    if (total <= maxCells) return;
    const order = [...runs.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [id, s] of order) {
      if (total <= maxCells) break;
      if (lives.has(id)) continue;
      total -= s.metrics.cells();
      runs.delete(id);
    }
  };

  /** Reads the rows appended to a run's metrics; when pages follow the run live, they get them (whoever reads). */
  const updateMetrics = async (id: string, s: RunState) => {
    if (!realInside(root, join(s.dir, 'metrics.jsonl'))) return { rows: [], reset: false, missing: true };
    const live = lives.get(id);
    const r = await s.metrics.update(live !== undefined);
    if (live !== undefined) {
      if (r.reset) for (const c of live.clients) send(c, 'reset', { id });
      else if (r.rows.length > 0) for (const c of live.clients) send(c, 'metrics', { id, rows: r.rows });
    }
    return r;
  };

  const api = async (url: URL): Promise<unknown> => {
    const q = url.searchParams;
    switch (url.pathname) {
      case '/api/runs': {
        const now = Date.now();
        const ids = await findRuns(root);
        const out = [];
        for (const id of ids) {
          const dir = id === '.' ? root : join(root, id);
          const entry = await describeRun(root, dir, id, now);
          if (entry.kind === 'eval') {
            // An eval folder: its first benchmark's score is the headline.
            const first = (await readBenchmarks(root, dir))[0];
            entry.recipe = 'eval';
            if (first?.score != null) entry.headline = { key: `${first.name} score`, value: first.score };
          }
          out.push(entry);
        }
        return { root, runs: out };
      }
      case '/api/run': {
        const id = q.get('id') ?? '';
        const s = stateOf(id);
        await updateMetrics(id, s);
        evict();
        const entry = await describeRun(root, s.dir, id, Date.now());
        const config = realInside(root, join(s.dir, 'config.json'))
          ? ((await readSmallJson(join(s.dir, 'config.json'))) ?? null)
          : null;
        const ck = realInside(root, join(s.dir, 'checkpoints.jsonl'))
          ? await readSmallJsonl(join(s.dir, 'checkpoints.jsonl'))
          : { records: [], skipped: 0 };
        return {
          entry,
          config,
          checkpoints: ck.records,
          checkpointsSkipped: ck.skipped,
          metricKeys: s.metrics.keys(),
          rowCount: s.metrics.rowCount,
          skipped: s.metrics.tail.skipped,
          pendingBytes: s.metrics.tail.pendingBytes,
          droppedKeys: s.metrics.droppedKeys,
        };
      }
      case '/api/metrics': {
        const s = await metricsOf(q);
        const columns: Record<string, (number | null)[]> = {};
        for (const k of metricKeysOf(q)) {
          const col = s.metrics.column(k);
          if (col !== undefined) columns[k] = Array.from(col, (v) => (Number.isNaN(v) ? null : v));
        }
        return {
          steps: Array.from(s.metrics.steps),
          columns,
          rowCount: s.metrics.rowCount,
          skipped: s.metrics.tail.skipped,
        };
      }
      case '/api/rollouts': {
        const s = stateOf(q.get('id') ?? '');
        s.rollouts ??= new RolloutIndex(s.dir, root);
        await s.rollouts.update();
        const numQ = (k: string) => {
          const v = q.get(k);
          if (v === null || v === '') return undefined;
          const n = Number(v);
          if (!Number.isFinite(n)) throw new HttpError(400, `${k}=${v} is not a number`);
          return n;
        };
        const query: RolloutQuery = {};
        for (const [k, key] of [
          ['step_min', 'stepMin'],
          ['step_max', 'stepMax'],
          ['reward_min', 'rewardMin'],
          ['reward_max', 'rewardMax'],
          ['offset', 'offset'],
          ['limit', 'limit'],
        ] as const) {
          const v = numQ(k);
          if (v !== undefined) query[key] = v;
        }
        for (const [k, key] of [
          ['env', 'env'],
          ['truncation', 'truncation'],
          ['split', 'split'],
        ] as const) {
          const v = q.get(k);
          if (v !== null) query[key] = v;
        }
        return { ...s.rollouts.query(query), facets: s.rollouts.facets(), skipped: s.rollouts.skipped };
      }
      case '/api/rollout': {
        const s = stateOf(q.get('id') ?? '');
        s.rollouts ??= new RolloutIndex(s.dir, root);
        await s.rollouts.update();
        const d = await s.rollouts.detail(Number(q.get('n')));
        if (d === undefined) throw new HttpError(404, `no rollout n=${q.get('n')}`);
        return d;
      }
      case '/api/timing': {
        // The run's timing_spans.jsonl as seconds per step and span name (read incrementally).
        const s = stateOf(q.get('id') ?? '');
        s.timing ??= new TimingStore(s.dir);
        if (realInside(root, join(s.dir, 'timing_spans.jsonl'))) await s.timing.update();
        return s.timing.breakdown();
      }
      case '/api/logtree': {
        const s = stateOf(q.get('id') ?? '');
        s.rollouts ??= new RolloutIndex(s.dir, root);
        const it = Number(q.get('iteration'));
        const out: { file: string; conversations: unknown[] }[] = [];
        for (const path of await s.rollouts.logtrees(it)) {
          if (!realInside(root, path)) continue;
          const tree = await readSmallJson(path);
          out.push({ file: path.slice(s.dir.length + 1), conversations: conversationsOf(tree) });
        }
        return { iteration: it, logtrees: out };
      }
      case '/api/evals': {
        const dir = runDir(q.get('id'));
        return { benchmarks: await readBenchmarks(root, dir) };
      }
      case '/api/eval-examples': {
        const { examples, skipped } = await examplesOf(runDir(q.get('id')), q.get('benchmark') ?? '');
        const only = q.get('only');
        const list = examples
          .map((e, i) => ({
            i,
            key: e.key,
            sample: e.sample,
            correct: e.correct,
            score: e.score,
            truncated: e.truncated,
            error: e.error,
          }))
          .filter((e) => (only === 'correct' ? e.correct : only === 'wrong' ? !e.correct : true));
        const offset = Math.max(0, Number(q.get('offset') ?? 0) || 0);
        const limit = Math.min(500, Math.max(1, Number(q.get('limit') ?? 100) || 100));
        return { total: list.length, skipped, examples: list.slice(offset, offset + limit) };
      }
      case '/api/eval-example': {
        const { examples } = await examplesOf(runDir(q.get('id')), q.get('benchmark') ?? '');
        const ex = examples[Number(q.get('i'))];
        if (ex === undefined) throw new HttpError(404, `no example i=${q.get('i')}`);
        return { key: ex.key, sample: ex.sample, record: await readExample(ex) };
      }
      case '/api/eval-compare': {
        const benchmark = q.get('benchmark') ?? '';
        const a = await examplesOf(runDir(q.get('a')), benchmark);
        const b = await examplesOf(runDir(q.get('b')), benchmark);
        return compareExamples(a.examples, b.examples);
      }
      default:
        throw new HttpError(404, `no such endpoint: ${url.pathname}`);
    }
  };

  const metricsOf = async (q: URLSearchParams) => {
    const id = q.get('id') ?? '';
    const s = stateOf(id);
    await updateMetrics(id, s);
    evict();
    return s;
  };
  const metricKeysOf = (q: URLSearchParams) =>
    (q.get('keys') ?? '')
      .split(',')
      .filter((k) => k !== '')
      .slice(0, 64);

  const examplesOf = async (dir: string, benchmark: string) => {
    const key = `${dir}\0${benchmark}`;
    const hit = evalCache.get(key);
    if (hit !== undefined && Date.now() - hit.at < 5000) return hit;
    const v = { ...(await readExamples(root, dir, benchmark)), at: Date.now() };
    evalCache.set(key, v);
    return v;
  };

  const send = (res: ServerResponse, event: string, data: unknown) => {
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };

  const pump = async (id: string, live: Live) => {
    if (live.busy) {
      live.dirty = true;
      return;
    }
    live.busy = true;
    try {
      do {
        live.dirty = false;
        const s = runs.get(id);
        let dir: string | undefined;
        try {
          dir = runDir(id);
        } catch {
          dir = undefined;
        }
        if (dir === undefined || s === undefined) {
          for (const c of live.clients) send(c, 'gone', { id });
          stopLive(id);
          return;
        }
        await updateMetrics(id, s);
        try {
          const size = (await stat(join(dir, 'checkpoints.jsonl'))).size;
          if (size !== live.checkpointsSize) {
            live.checkpointsSize = size;
            const ck = await readSmallJsonl(join(dir, 'checkpoints.jsonl'));
            for (const c of live.clients) send(c, 'checkpoints', { id, records: ck.records });
          }
        } catch {
          // no checkpoints yet
        }
        if (s.rollouts !== undefined) {
          await s.rollouts.update();
          if (s.rollouts.size !== live.rolloutSize) {
            live.rolloutSize = s.rollouts.size;
            for (const c of live.clients) send(c, 'rollouts', { id, size: s.rollouts.size });
          }
        }
      } while (live.dirty);
    } catch {
      // a transient read error (a file replaced mid-read): the next event or poll tries again
    } finally {
      live.busy = false;
    }
  };

  const stopLive = (id: string) => {
    const live = lives.get(id);
    if (live === undefined) return;
    lives.delete(id);
    live.watcher?.close();
    clearInterval(live.timer);
    for (const c of live.clients) c.end();
  };

  const subscribe = async (id: string, res: ServerResponse) => {
    const s = stateOf(id);
    await updateMetrics(id, s);
    let live = lives.get(id);
    if (live === undefined) {
      const l: Live = {
        clients: new Set(),
        watcher: undefined,
        timer: setInterval(() => void pump(id, l), pollMs),
        busy: false,
        dirty: false,
        checkpointsSize: -1,
        rolloutSize: s.rollouts?.size ?? 0,
      };
      try {
        l.watcher = watch(s.dir, () => void pump(id, l));
        l.watcher.on('error', () => void pump(id, l));
      } catch {
        l.watcher = undefined;
      }
      live = l;
      lives.set(id, l);
    }
    live.clients.add(res);
    const l = live;
    res.on('close', () => {
      l.clients.delete(res);
      if (l.clients.size === 0) stopLive(id);
    });
    // Rows appended between the page's fetch and this subscription are sent now (the page drops steps it has).
    send(res, 'hello', { id, rowCount: s.metrics.rowCount });
  };

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
        for (const id of ids) runDir(id);
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
      for (const id of ids) await subscribe(id, res);
      const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
      res.on('close', () => clearInterval(keepAlive));
      return;
    }
    if (url.pathname === '/api/metrics.bin') {
      try {
        const s = await metricsOf(url.searchParams);
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
      const body = JSON.stringify(await api(url));
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
      for (const id of [...lives.keys()]) stopLive(id);
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

/** The conversations in a logtree JSON (upstream's nodes with `data.type === 'conversation'`), in document order. */
export function conversationsOf(tree: unknown, limit = 200): unknown[] {
  const out: unknown[] = [];
  const visit = (node: unknown, depth: number) => {
    if (out.length >= limit || depth > 64 || typeof node !== 'object' || node === null) return;
    const n = node as { data?: { type?: unknown }; children?: unknown; root?: unknown };
    if (n.data?.type === 'conversation') out.push(n.data);
    if (n.root !== undefined) visit(n.root, depth + 1);
    if (Array.isArray(n.children)) for (const c of n.children) visit(c, depth + 1);
  };
  visit(tree, 0);
  return out;
}
