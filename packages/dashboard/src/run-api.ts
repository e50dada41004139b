/**
 * The dashboard's JSON API over the runs folder (`/api/runs`, `/api/run`, `/api/metrics`, the rollouts, timing and
 * logtree of a run, and the eval folders' benchmarks, examples and comparisons): each endpoint reads the run's files
 * through the run states (metrics, rollout index, timing) or the eval readers and answers a JSON-able value.
 */
import { join } from 'node:path';
import { BoundedMap } from '@cookbook/core';
import { compareExamples, type EvalExample, readBenchmarks, readExample, readExamples } from './eval-folders.js';
import { HttpError } from './http-error.js';
import type { LiveRuns } from './live-runs.js';
import { RolloutIndex, type RolloutQuery } from './rollout-index.js';
import { describeRun, findRuns, readSmallJson, readSmallJsonl } from './run-folders.js';
import type { RunState, RunStates } from './run-states.js';
import { realInside } from './safe-path.js';
import { TimingStore } from './timing-store.js';

/** The metric keys a request names (`?keys=a,b`), at most 64. */
export const metricKeysOf = (q: URLSearchParams): string[] =>
  (q.get('keys') ?? '')
    .split(',')
    .filter((k) => k !== '')
    .slice(0, 64);

/** The rollout filter a request names (`step_min`, `reward_max`, `env`, `offset`, …); a 400 for a non-number. */
function rolloutQueryOf(q: URLSearchParams): RolloutQuery {
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
  return query;
}

/** The JSON API of one runs folder. */
export class RunApi {
  private readonly root: string;
  private readonly evalCache = new BoundedMap<string, { examples: EvalExample[]; skipped: number; at: number }>(16);

  constructor(
    private readonly states: RunStates,
    private readonly live: LiveRuns,
  ) {
    this.root = states.root;
  }

  /** The answer to `url` (a path under `/api/`); an {@link HttpError} for an unknown endpoint or a bad query. */
  async answer(url: URL): Promise<unknown> {
    const q = url.searchParams;
    switch (url.pathname) {
      case '/api/runs': {
        const now = Date.now();
        const ids = await findRuns(this.root);
        const out = [];
        for (const id of ids) {
          const dir = id === '.' ? this.root : join(this.root, id);
          const entry = await describeRun(this.root, dir, id, now);
          if (entry.kind === 'eval') {
            // An eval folder: its first benchmark's score is the headline.
            const first = (await readBenchmarks(this.root, dir))[0];
            entry.recipe = 'eval';
            if (first?.score != null) entry.headline = { key: `${first.name} score`, value: first.score };
          }
          out.push(entry);
        }
        return { root: this.root, runs: out };
      }
      case '/api/run': {
        const id = q.get('id') ?? '';
        const s = await this.metricsOf(q);
        const entry = await describeRun(this.root, s.dir, id, Date.now());
        const config = realInside(this.root, join(s.dir, 'config.json'))
          ? ((await readSmallJson(join(s.dir, 'config.json'))) ?? null)
          : null;
        const ck = realInside(this.root, join(s.dir, 'checkpoints.jsonl'))
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
        const s = await this.metricsOf(q);
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
        const s = this.states.state(q.get('id') ?? '');
        s.rollouts ??= new RolloutIndex(s.dir, this.root);
        await s.rollouts.update();
        return { ...s.rollouts.query(rolloutQueryOf(q)), facets: s.rollouts.facets(), skipped: s.rollouts.skipped };
      }
      case '/api/rollout': {
        const s = this.states.state(q.get('id') ?? '');
        s.rollouts ??= new RolloutIndex(s.dir, this.root);
        await s.rollouts.update();
        const d = await s.rollouts.detail(Number(q.get('n')));
        if (d === undefined) throw new HttpError(404, `no rollout n=${q.get('n')}`);
        return d;
      }
      case '/api/timing': {
        // The run's timing_spans.jsonl as seconds per step and span name (read incrementally).
        const s = this.states.state(q.get('id') ?? '');
        s.timing ??= new TimingStore(s.dir);
        if (realInside(this.root, join(s.dir, 'timing_spans.jsonl'))) await s.timing.update();
        return s.timing.breakdown();
      }
      case '/api/logtree': {
        const s = this.states.state(q.get('id') ?? '');
        s.rollouts ??= new RolloutIndex(s.dir, this.root);
        const it = Number(q.get('iteration'));
        const out: { file: string; conversations: unknown[] }[] = [];
        for (const path of await s.rollouts.logtrees(it)) {
          if (!realInside(this.root, path)) continue;
          const tree = await readSmallJson(path);
          out.push({ file: path.slice(s.dir.length + 1), conversations: conversationsOf(tree) });
        }
        return { iteration: it, logtrees: out };
      }
      case '/api/evals': {
        const dir = this.states.dir(q.get('id'));
        return { benchmarks: await readBenchmarks(this.root, dir) };
      }
      case '/api/eval-examples': {
        const { examples, skipped } = await this.examplesOf(this.states.dir(q.get('id')), q.get('benchmark') ?? '');
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
        const { examples } = await this.examplesOf(this.states.dir(q.get('id')), q.get('benchmark') ?? '');
        const ex = examples[Number(q.get('i'))];
        if (ex === undefined) throw new HttpError(404, `no example i=${q.get('i')}`);
        return { key: ex.key, sample: ex.sample, record: await readExample(ex) };
      }
      case '/api/eval-compare': {
        const benchmark = q.get('benchmark') ?? '';
        const a = await this.examplesOf(this.states.dir(q.get('a')), benchmark);
        const b = await this.examplesOf(this.states.dir(q.get('b')), benchmark);
        return compareExamples(a.examples, b.examples);
      }
      default:
        throw new HttpError(404, `no such endpoint: ${url.pathname}`);
    }
  }

  /** The run of `?id=` with its metrics read up to now (bounding the cache after). */
  async metricsOf(q: URLSearchParams): Promise<RunState> {
    const id = q.get('id') ?? '';
    const s = this.states.state(id);
    await this.live.updateMetrics(id, s);
    this.states.evict((held) => this.live.has(held));
    return s;
  }

  private async examplesOf(dir: string, benchmark: string) {
    const key = `${dir}\0${benchmark}`;
    const hit = this.evalCache.get(key);
    if (hit !== undefined && Date.now() - hit.at < 5000) return hit;
    const v = { ...(await readExamples(this.root, dir, benchmark)), at: Date.now() };
    this.evalCache.set(key, v);
    return v;
  }
}

/** The conversations in a logtree JSON (upstream's nodes with `data.type === 'conversation'`), in document order. */
function conversationsOf(tree: unknown, limit = 200): unknown[] {
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
