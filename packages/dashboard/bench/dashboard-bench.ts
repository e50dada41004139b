/**
 * The dashboard at scale, measured in the system Chromium: a run with BENCH_ROWS metric rows (default 100,000, ten
 * metrics a row) and BENCH_ROLLOUTS rollout lines (default 50,000: 500 steps of 100, about 1 KB of text each).
 * Reports: the time from navigation to the run page showing every row in its charts (a fresh server: nothing cached);
 * the time the rollout view takes to list them the first time (the index is built then); the time from appending a
 * metrics row to the chart holding it (median and max of BENCH_LIVE samples); the server's heap and RSS; the page's
 * JS heap. Run: pnpm --filter @cookbook/dashboard bench (env: BENCH_ROWS, BENCH_ROLLOUTS, BENCH_LIVE, CHROMIUM).
 */
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startDashboard } from '../src/server.js';

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000);
const ROLLOUTS = Number(process.env.BENCH_ROLLOUTS ?? 50_000);
const LIVE = Number(process.env.BENCH_LIVE ?? 20);
const PER_STEP = 100;
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** The page's document, as far as these checks read it (the functions run in the page). */
declare const document: {
  querySelector(s: string): { getAttribute(a: string): string | null; textContent: string | null } | null;
};
/** In the page: the run's charts hold `n` rows. */
const points = (n: number) => document.querySelector('#charts')?.getAttribute('data-points') === String(n);

const base = mkdtempSync(join(tmpdir(), 'dash-bench-'));
const runs = join(base, 'runs');
const run = join(runs, 'big');
mkdirSync(run, { recursive: true });
writeFileSync(join(run, 'config.json'), JSON.stringify({ model_name: 'local/qwen3-tiny' }));

const row = (step: number) =>
  JSON.stringify({
    step,
    'env/all/reward/total': Math.sin(step / 500) * 0.5 + 0.5,
    'optim/lr': 1e-4,
    'optim/entropy': 1 / (1 + step / 1000),
    'env/all/ac_tokens_per_turn': 40 + (step % 7),
    'time/total': 1.5,
    'time/sample': 1.0,
    'time/train': 0.5,
    'progress/done_frac': step / ROWS,
    'optim/kl_sample_train_v1': 1e-4 * (step % 13),
  });
{
  const lines: string[] = [];
  for (let s = 0; s < ROWS; s++) lines.push(row(s));
  writeFileSync(join(run, 'metrics.jsonl'), `${lines.join('\n')}\n`);
}
const text = 'The answer is 42 because six times seven is forty-two. '.repeat(16);
for (let it = 0; it < Math.ceil(ROLLOUTS / PER_STEP); it++) {
  const dir = join(run, `iteration_${String(it).padStart(6, '0')}`);
  mkdirSync(dir);
  const lines: string[] = [];
  for (let i = 0; i < PER_STEP && it * PER_STEP + i < ROLLOUTS; i++) {
    lines.push(
      JSON.stringify({
        schema_version: 1,
        split: 'train',
        iteration: it,
        group_idx: Math.floor(i / 8),
        traj_idx: i % 8,
        tags: [i % 3 === 0 ? 'arithmetic' : 'gsm8k'],
        total_reward: (i * 7919) % 2,
        final_reward: 0,
        trajectory_metrics: {},
        final_ob_len: 60,
        steps: [
          {
            step_idx: 0,
            ob_len: 60,
            ac_len: 200,
            reward: (i * 7919) % 2,
            episode_done: true,
            metrics: {},
            logs: { stop_reason: i % 10 === 0 ? 'length' : 'stop' },
            ac_text: text,
          },
        ],
      }),
    );
  }
  writeFileSync(join(dir, 'train_rollout_summaries.jsonl'), `${lines.join('\n')}\n`);
}
const metricsBytes = statSync(join(run, 'metrics.jsonl')).size;

const dashboard = await startDashboard({ dir: runs, pollMs: 1000 });
const context = await chromium.launchPersistentContext(join(base, 'profile'), {
  executablePath: CHROMIUM,
  headless: true,
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--enable-precise-memory-info',
  ],
  viewport: { width: 1280, height: 900 },
});
const page = await context.newPage();
// The page's main-thread busy time (Chromium's TaskDuration, s): its CPU, beside the server's.
const cdp = await context.newCDPSession(page);
await cdp.send('Performance.enable');
const taskSeconds = async () =>
  (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')?.value ?? Number.NaN;
try {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const task0 = await taskSeconds();
  await page.goto(`${dashboard.url}#/run?id=big`);
  await page.waitForFunction(points, ROWS, { polling: 'raf', timeout: 60_000 });
  const openMs = performance.now() - t0;
  const openCpu = process.cpuUsage(c0);
  const openTask = (await taskSeconds()) - task0;

  // Live: append one row, wait for the chart to hold it.
  const live: number[] = [];
  const liveTask: number[] = [];
  for (let i = 0; i < LIVE; i++) {
    const n = ROWS + i + 1;
    const a = performance.now();
    const ta = await taskSeconds();
    appendFileSync(join(run, 'metrics.jsonl'), `${row(ROWS + i)}\n`);
    await page.waitForFunction(points, n, { polling: 'raf', timeout: 10_000 });
    live.push(performance.now() - a);
    liveTask.push(((await taskSeconds()) - ta) * 1000);
    await page.waitForTimeout(50);
  }
  live.sort((x, y) => x - y);
  liveTask.sort((x, y) => x - y);
  const pageHeap = await page.evaluate(
    () => (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? Number.NaN,
  );

  const r0 = performance.now();
  const rc0 = process.cpuUsage();
  await page.goto(`${dashboard.url}#/rollouts?id=big`);
  await page.locator('#rollout-count').waitFor({ timeout: 60_000 });
  const rolloutsMs = performance.now() - r0;
  const rolloutsCpu = process.cpuUsage(rc0);
  const f0 = performance.now();
  await page.goto(`${dashboard.url}#/rollouts?id=big&truncation=length&step_min=100`);
  await page.waitForFunction(
    () => !/^50,000 of/.test(document.querySelector('#rollout-count')?.textContent ?? '50,000 of'),
  );
  const filterMs = performance.now() - f0;
  const count = await page.locator('#rollout-count').textContent();
  const mem = process.memoryUsage();
  const mb = (b: number) => (b / 1024 / 1024).toFixed(0);
  console.log(
    `metrics: ${ROWS.toLocaleString()} rows (${mb(metricsBytes)} MB); rollouts: ${ROLLOUTS.toLocaleString()} lines in ${Math.ceil(ROLLOUTS / PER_STEP)} step files`,
  );
  const cpu = (u: NodeJS.CpuUsage) => ((u.user + u.system) / 1000).toFixed(0);
  console.log(
    `open the run page until every row is charted: ${openMs.toFixed(0)} ms wall (fresh server; this process's CPU, the server's work: ${cpu(openCpu)} ms; the page's main thread busy ${(openTask * 1000).toFixed(0)} ms)`,
  );
  console.log(
    `new metric row to chart: median ${live[Math.floor(live.length / 2)]!.toFixed(0)} ms, max ${live.at(-1)!.toFixed(0)} ms wall (${LIVE} rows; page main thread busy per row: median ${liveTask[Math.floor(liveTask.length / 2)]!.toFixed(0)} ms)`,
  );
  console.log(
    `rollout view, first open (index built): ${rolloutsMs.toFixed(0)} ms wall (server CPU ${cpu(rolloutsCpu)} ms); a filtered query: ${filterMs.toFixed(0)} ms`,
  );
  console.log(`  ${count}`);
  console.log(
    `load average while measured: ${(await import('node:os')).loadavg()[0]!.toFixed(1)} on ${(await import('node:os')).availableParallelism()} cores`,
  );
  console.log(`server: heap ${mb(mem.heapUsed)} MB, rss ${mb(mem.rss)} MB; page JS heap ${mb(pageHeap)} MB`);
} finally {
  await context.close();
  await dashboard.close();
  rmSync(base, { recursive: true, force: true });
}
