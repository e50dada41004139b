/**
 * The dashboard server over real run folders: the runs list and status rule, metrics columns and live rows pushed
 * by server-sent events, rollouts through the index, and each safety rule (Host, path containment, malformed lines,
 * a run deleted while open).
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Dashboard, startDashboard } from './server.js';

const jsonl = (rows: unknown[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join('');

function get(
  d: Dashboard,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; type: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: d.port, path, headers: { Host: `127.0.0.1:${d.port}`, ...headers } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

async function getJson<T = Record<string, unknown>>(d: Dashboard, path: string): Promise<T> {
  const r = await get(d, path);
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.body}`);
  return JSON.parse(r.body) as T;
}

/** Opens the event stream of `ids` and collects its events until `until` says stop. */
function events(
  d: Dashboard,
  ids: string[],
  until: (evs: { event: string; data: Record<string, unknown> }[]) => boolean,
): Promise<{ event: string; data: Record<string, unknown> }[]> {
  return new Promise((resolve, reject) => {
    const evs: { event: string; data: Record<string, unknown> }[] = [];
    const qs = ids.map((id) => `id=${encodeURIComponent(id)}`).join('&');
    const req = request({ host: '127.0.0.1', port: d.port, path: `/api/events?${qs}` }, (res) => {
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        buf += c;
        let i = buf.indexOf('\n\n');
        while (i >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          const ev = /^event: (.*)$/m.exec(block)?.[1];
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (ev !== undefined && data !== undefined) evs.push({ event: ev, data: JSON.parse(data) });
          i = buf.indexOf('\n\n');
        }
        if (until(evs)) {
          req.destroy();
          resolve(evs);
        }
      });
      res.on('end', () => resolve(evs));
    });
    req.setHeader('Host', `127.0.0.1:${d.port}`);
    req.on('error', (e) => (evs.length > 0 ? resolve(evs) : reject(e)));
    req.end();
  });
}

describe('dashboard server', () => {
  let base: string;
  let root: string;
  let d: Dashboard;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'dash-'));
    root = join(base, 'runs');
    // A finished run: final checkpoint, metrics written long ago.
    const done = join(root, 'sl_basic');
    mkdirSync(done, { recursive: true });
    writeFileSync(join(done, 'config.json'), JSON.stringify({ model_name: 'local/qwen3-tiny', learning_rate: 1e-4 }));
    writeFileSync(join(done, 'metrics.jsonl'), jsonl([0, 1, 2].map((step) => ({ step, train_mean_nll: 3 - step }))));
    writeFileSync(join(done, 'checkpoints.jsonl'), jsonl([{ name: 'final', final: true, step: 3 }]));
    const old = new Date(Date.now() - 3600_000);
    utimesSync(join(done, 'metrics.jsonl'), old, old);
    // An idle run (old metrics, no final checkpoint) with a malformed line and a truncated last line.
    const idle = join(root, 'nested', 'rl_basic');
    mkdirSync(idle, { recursive: true });
    writeFileSync(
      join(idle, 'metrics.jsonl'),
      `${jsonl([{ step: 0, 'env/all/reward/total': 0.1 }])}{not json\n${jsonl([{ step: 1, 'env/all/reward/total': 0.4 }])}{"step": 2, "env/all/re`,
    );
    utimesSync(join(idle, 'metrics.jsonl'), old, old);
    const it = join(idle, 'iteration_000001');
    mkdirSync(it);
    const summaries = [0, 1, 2, 3].map((g) => ({
      schema_version: 1,
      split: 'train',
      iteration: 1,
      group_idx: g,
      traj_idx: 0,
      tags: [g % 2 === 0 ? 'arith' : 'letters'],
      total_reward: g / 4,
      final_reward: 0,
      trajectory_metrics: {},
      final_ob_len: 3,
      steps: [
        {
          step_idx: 0,
          ob_len: 3,
          ac_len: 2,
          reward: g / 4,
          episode_done: true,
          metrics: {},
          logs: g === 3 ? { stop_reason: 'length' } : {},
        },
      ],
    }));
    writeFileSync(join(it, 'train_rollout_summaries.jsonl'), `${jsonl(summaries)}garbage line\n`);
    // A file outside the runs folder, and a run folder whose metrics is a symlink to it.
    writeFileSync(join(base, 'secret.txt'), 'TOP-SECRET-CONTENT');
    writeFileSync(join(base, 'outside.jsonl'), jsonl([{ step: 0, stolen: 1 }]));
    mkdirSync(join(root, 'linked'));
    writeFileSync(join(root, 'linked', 'config.json'), '{}');
    symlinkSync(join(base, 'outside.jsonl'), join(root, 'linked', 'metrics.jsonl'));
    symlinkSync(base, join(root, 'escape'));
    d = await startDashboard({ dir: root, pollMs: 200 });
  });

  afterAll(async () => {
    await d.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('lists runs with upstream status rule, recipe, model, step and headline', async () => {
    const { runs } = await getJson<{ runs: Record<string, unknown>[] }>(d, '/api/runs');
    const byId = Object.fromEntries(runs.map((r) => [r.id, r]));
    expect(Object.keys(byId).sort()).toEqual(['linked', 'nested/rl_basic', 'sl_basic']);
    expect(byId.sl_basic).toMatchObject({
      status: 'completed',
      model: 'local/qwen3-tiny',
      step: 2,
      recipe: 'sl_basic',
    });
    expect(byId.sl_basic!.headline).toEqual({ key: 'train_mean_nll', value: 1 });
    expect(byId['nested/rl_basic']).toMatchObject({ status: 'idle', step: 1, hasRollouts: true });
  });

  it('serves metric columns, skipping and counting a malformed line and holding a truncated last line', async () => {
    const run = await getJson(d, '/api/run?id=nested%2Frl_basic');
    expect(run).toMatchObject({ rowCount: 2, skipped: 1, metricKeys: ['env/all/reward/total'] });
    expect(run.pendingBytes).toBeGreaterThan(0);
    const m = await getJson(d, '/api/metrics?id=nested/rl_basic&keys=env/all/reward/total');
    expect(m).toMatchObject({ steps: [0, 1], columns: { 'env/all/reward/total': [0.1, 0.4] } });
  });

  it('refuses a Host that is not loopback with this port (DNS rebinding)', async () => {
    for (const host of ['evil.example:80', `evil.example:${d.port}`, '127.0.0.1:1', 'localhost']) {
      const r = await get(d, '/api/runs', { Host: host });
      expect(r.status, host).toBe(403);
      expect(r.body).toContain('DNS rebinding');
    }
    expect((await get(d, '/api/runs', { Host: `localhost:${d.port}` })).status).toBe(200);
  });

  it('refuses paths outside the runs folder: .., absolute, encoded, symlinks leading out', async () => {
    const cases = [
      '..',
      '../runs/sl_basic',
      '%2e%2e',
      '%2E%2E%2Fsecret.txt',
      encodeURIComponent(join(base, 'secret.txt')),
      'sl_basic/../../',
      'escape',
      'escape/secret.txt',
      'sl_basic%00',
    ];
    for (const c of cases) {
      const r = await get(d, `/api/run?id=${c}`);
      expect(r.status, c).toBe(403);
      expect(r.body).not.toContain('TOP-SECRET-CONTENT');
    }
    // A run folder inside whose metrics.jsonl links out: listed, its metrics not read.
    const linked = await getJson(d, '/api/run?id=linked');
    expect(linked).toMatchObject({ rowCount: 0, metricKeys: [] });
    expect((await get(d, '/api/run?id=no-such-run')).status).toBe(404);
    expect((await get(d, '/app.js/../../package.json')).status).toBe(404);
  });

  it('is read-only', async () => {
    const r = await new Promise<number>((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: d.port,
          path: '/api/runs',
          method: 'POST',
          headers: { Host: `127.0.0.1:${d.port}` },
        },
        (res) => resolve(res.statusCode ?? 0),
      );
      req.end();
    });
    expect(r).toBe(405);
  });

  it('filters rollouts through the index and reads one by its byte range', async () => {
    const all = await getJson<{ matched: number; skipped: number; facets: Record<string, unknown> }>(
      d,
      '/api/rollouts?id=nested/rl_basic',
    );
    expect(all).toMatchObject({ matched: 4, skipped: 1 });
    expect(all.facets).toMatchObject({ envs: ['arith', 'letters'], truncations: ['', 'length'], iterations: [1] });
    const f = await getJson<{ matched: number; rows: { group: number }[] }>(
      d,
      '/api/rollouts?id=nested/rl_basic&env=arith&reward_min=0.25',
    );
    expect(f.matched).toBe(1);
    expect(f.rows.map((r) => r.group)).toEqual([2]);
    const t = await getJson<{ rows: { group: number }[] }>(d, '/api/rollouts?id=nested/rl_basic&truncation=length');
    expect(t.rows.map((r) => r.group)).toEqual([3]);
    const one = await getJson<{ record: { group_idx: number } }>(d, '/api/rollout?id=nested/rl_basic&n=2');
    expect(one.record.group_idx).toBe(2);
  });

  it('indexes no rollout file or iteration folder whose symlink leads out of the runs folder', async () => {
    const run = join(root, 'linkrun');
    const line = (it: number) => jsonl([{ iteration: it, group_idx: 0, traj_idx: 0, total_reward: 1, steps: [] }]);
    mkdirSync(join(run, 'iteration_000000'), { recursive: true });
    writeFileSync(join(run, 'config.json'), '{}');
    writeFileSync(join(base, 'out-rollouts.jsonl'), line(0));
    symlinkSync(join(base, 'out-rollouts.jsonl'), join(run, 'iteration_000000', 'train_rollout_summaries.jsonl'));
    mkdirSync(join(base, 'out-iteration'));
    writeFileSync(join(base, 'out-iteration', 'train_rollout_summaries.jsonl'), line(1));
    symlinkSync(join(base, 'out-iteration'), join(run, 'iteration_000001'));
    // Links that stay inside are followed.
    mkdirSync(join(run, 'kept'));
    writeFileSync(join(run, 'kept', 'rollouts.jsonl'), line(2));
    mkdirSync(join(run, 'iteration_000002'));
    symlinkSync(join(run, 'kept', 'rollouts.jsonl'), join(run, 'iteration_000002', 'train_rollout_summaries.jsonl'));
    symlinkSync(join(run, 'kept'), join(run, 'iteration_000003'));
    writeFileSync(join(run, 'kept', 'eval_rollout_summaries.jsonl'), line(3));
    const r = await getJson<{ rows: { iteration: number }[] }>(d, '/api/rollouts?id=linkrun');
    expect(r.rows.map((x) => x.iteration).sort()).toEqual([2, 3]);
  });

  it("breaks a run's timing_spans.jsonl down per step: top-level spans by name, lines of one step added up", async () => {
    const dir = join(root, 'sl_basic');
    const spans = (names: [string, number, number?][]) =>
      names.map(([name, duration, depth]) => ({
        name,
        duration,
        wall_start: 0,
        wall_end: duration,
        ...(depth ? { depth } : {}),
      }));
    writeFileSync(
      join(dir, 'timing_spans.jsonl'),
      `${jsonl([
        {
          step: 1,
          spans: spans([
            ['sample', 2],
            ['train', 1],
            ['forward_backward', 0.5, 1],
          ]),
        },
        {
          step: 0,
          spans: spans([
            ['sample', 3],
            ['sample', 1],
            ['train', 2],
          ]),
        },
        { step: 'x', spans: [] },
      ])}{broken
${jsonl([{ step: 1, spans: spans([['checkpoint', 0.25]]) }])}`,
    );
    type Timing = { steps: number[]; names: string[]; seconds: Record<string, (number | null)[]>; skipped: number };
    const t = await getJson<Timing>(d, '/api/timing?id=sl_basic');
    expect(t.steps).toEqual([0, 1]);
    expect(t.names).toEqual(['sample', 'train', 'checkpoint']);
    expect(t.seconds).toEqual({ sample: [4, 2], train: [2, 1], checkpoint: [null, 0.25] });
    expect(t.skipped).toBe(2);
    // Appended lines are read on the next request; a run without the file has no steps.
    appendFileSync(join(dir, 'timing_spans.jsonl'), jsonl([{ step: 2, spans: spans([['sample', 5]]) }]));
    const more = await getJson<Timing>(d, '/api/timing?id=sl_basic');
    expect(more.seconds.sample).toEqual([4, 2, 5]);
    expect(more.seconds.train).toEqual([2, 1, null]);
    expect((await getJson<Timing>(d, '/api/timing?id=nested/rl_basic')).steps).toEqual([]);
  });

  it('pushes appended metric rows as events, and says when the run folder is deleted', async () => {
    const live = join(root, 'live');
    mkdirSync(live);
    writeFileSync(join(live, 'metrics.jsonl'), jsonl([{ step: 0, loss: 1 }]));
    const got = events(d, ['live'], (evs) => evs.some((e) => e.event === 'gone'));
    await new Promise((r) => setTimeout(r, 100));
    appendFileSync(join(live, 'metrics.jsonl'), jsonl([{ step: 1, loss: 0.5 }]));
    await new Promise((r) => setTimeout(r, 500));
    appendFileSync(join(live, 'metrics.jsonl'), jsonl([{ step: 2, loss: 0.25 }]));
    await new Promise((r) => setTimeout(r, 500));
    rmSync(live, { recursive: true });
    const evs = await got;
    const rows = evs.filter((e) => e.event === 'metrics').flatMap((e) => e.data.rows as { step: number }[]);
    expect(rows.map((r) => r.step)).toEqual([1, 2]);
    expect(evs.at(-1)).toMatchObject({ event: 'gone', data: { id: 'live' } });
    expect((await get(d, '/api/run?id=live')).status).toBe(404);
  });

  it("reads this project's eval folders (results.json, results.jsonl) and compares two per example", async () => {
    const evalDir = (name: string, correct: (ex: number, sample: number) => boolean) => {
      const dir = join(root, 'evals', name);
      mkdirSync(dir, { recursive: true });
      const lines = [];
      for (let ex = 0; ex < 4; ex++) {
        for (let sample = 0; sample < 2; sample++) {
          const ok = correct(ex, sample);
          lines.push({
            id: `gsm8k/q${ex}`,
            sample_index: sample,
            prompt: [],
            response: '<b>x</b>',
            answer: '1',
            correct: ok,
            score: ok ? 1 : 0,
            stop_reason: 'stop',
          });
        }
      }
      writeFileSync(join(dir, 'results.jsonl'), jsonl(lines));
      writeFileSync(
        join(dir, 'results.json'),
        JSON.stringify({
          gsm8k: {
            score: 0.5,
            num_examples: 4,
            num_correct: 2,
            num_errors: 0,
            num_truncated: 0,
            'pass@1': 0.5,
            'pass@2': 0.75,
          },
        }),
      );
    };
    // a: q0 right twice, q1 right once, q2 wrong, q3 right. b: q0 right once (broken), q1 right twice (fixed),
    // q2 wrong (same), q3 right (same).
    evalDir('a', (ex, s) => ex === 0 || (ex === 1 && s === 0) || ex === 3);
    evalDir('b', (ex, s) => (ex === 0 && s === 0) || ex === 1 || ex === 3);
    const { runs } = await getJson<{ runs: { id: string; kind: string; headline: unknown }[] }>(d, '/api/runs');
    expect(runs.find((r) => r.id === 'evals/a')).toMatchObject({
      kind: 'eval',
      headline: { key: 'gsm8k score', value: 0.5 },
    });
    const ev = await getJson<{ benchmarks: unknown[] }>(d, '/api/evals?id=evals/a');
    expect(ev.benchmarks).toEqual([
      expect.objectContaining({ name: 'gsm8k', numExamples: 4, passAtK: { 'pass@1': 0.5, 'pass@2': 0.75 } }),
    ]);
    const ex = await getJson<{ total: number }>(d, '/api/eval-examples?id=evals/a&benchmark=gsm8k&only=wrong');
    expect(ex.total).toBe(3);
    const c = await getJson(d, '/api/eval-compare?a=evals/a&b=evals/b&benchmark=gsm8k');
    expect(c).toMatchObject({ common: 4, fixedCount: 1, brokenCount: 1, same: 2 });
    expect(c.fixed).toEqual([{ key: 'q1', a: 0.5, b: 1 }]);
    expect(c.broken).toEqual([{ key: 'q0', a: 1, b: 0.5 }]);
  });

  it('serves the page with a content security policy', async () => {
    const r = await get(d, '/');
    expect(r.status).toBe(200);
    expect(r.type).toContain('text/html');
    const csp = await new Promise<string>((resolve) => {
      request({ host: '127.0.0.1', port: d.port, path: '/', headers: { Host: `127.0.0.1:${d.port}` } }, (res) => {
        res.resume();
        resolve(String(res.headers['content-security-policy']));
      }).end();
    });
    expect(csp).toContain("script-src 'self'");
  });
});
