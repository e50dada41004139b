/**
 * The dashboard in a real browser (the system Chromium driven by playwright-core; one browser for every test here):
 * the runs list, a run whose chart grows while `rl_basic` trains on the embedded service, the rollout view with a
 * filter, an upstream-format run with its logged conversations, and the comparison of two eval folders. The tests
 * take the screenshots the README shows: into a temp folder, or, with `UPDATE_SCREENSHOTS=1`, over the committed ones
 * in `packages/dashboard/screenshots/` (so a test run never rewrites files of the checkout by itself).
 *
 * Tests say `[chromium]`: without a Chromium they skip locally; under CI=true they run and fail (`.ci/run` installs
 * Debian's `chromium`).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getTextContent, type Message, type TokenCompleter } from '@cookbook/core';
import { type Dashboard, startDashboard } from '@cookbook/dashboard';
import { type LocalTinker, startLocalTinker } from '@cookbook/local-tinker';
import { getRenderer } from '@cookbook/renderers';
import { doGroupRollout, LookupToolDataset, rolloutSummaries, writeRolloutSummaries } from '@cookbook/rl';
import { getTokenizer } from '@cookbook/tokenizers';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import { recipes } from '../recipes.js';

const CHROMIUM = ['chromium', 'chromium-browser', 'google-chrome']
  .map((name) => spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim())
  .find((p) => p !== '');
const run = CHROMIUM !== undefined || process.env.CI === 'true';
const PKG = fileURLToPath(new URL('../../../../packages/dashboard/', import.meta.url));
const FIXTURES = join(PKG, 'src', '__fixtures__');
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(PKG, 'screenshots') : undefined;

/** Chromium flags: no sandbox (containers), no GPU, and no background network traffic of its own. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

const jsonl = (rows: unknown[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join('');

describe.runIf(run)('dashboard in Chromium [chromium]', () => {
  let browser: BrowserContext;
  let page: Page;
  let dashboard: Dashboard;
  let service: LocalTinker;
  let runs: string;
  const errors: string[] = [];

  beforeAll(async () => {
    if (CHROMIUM === undefined) throw new Error('no chromium on PATH (CI=true needs it: apt-get install -y chromium)');
    const base = mkdtempSync(join(tmpdir(), 'dash-browser-'));
    runs = join(base, 'runs');
    mkdirSync(runs);
    cpSync(join(FIXTURES, 'upstream-run'), join(runs, 'upstream_math_rl'), { recursive: true });
    cpSync(join(FIXTURES, 'upstream-evals'), join(runs, 'evals'), { recursive: true });
    service = await startLocalTinker({ root: join(base, 'service') });
    dashboard = await startDashboard({ dir: runs, pollMs: 250 });
    // A fresh profile folder per run (playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(join(base, 'profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1280, height: 860 },
    });
    page = await browser.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    // Any dialog means page content ran as script.
    page.on('dialog', (d) => {
      errors.push(`dialog opened: ${d.message()}`);
      void d.dismiss();
    });
  });

  beforeEach(() => {
    errors.length = 0;
  });

  afterAll(async () => {
    await browser?.close();
    await dashboard?.close();
    await service?.close();
  });

  /** Navigates to a view and waits until the page has rendered it (hash changes do not reload the page). */
  const open = async (hash: string) => {
    await page.goto(`${dashboard.url}${hash}`);
    await page.locator(`body[data-hash="${hash}"]`).waitFor({ state: 'attached' });
  };

  const shot = async (name: string) => {
    const dir = SHOTS ?? join(runs, '..', 'screenshots');
    mkdirSync(dir, { recursive: true });
    // The header names the runs folder: show the default name, not this test's temp path.
    await page.locator('#root').evaluate((el) => {
      el.textContent = '.cookbook-runs';
    });
    await page.screenshot({ path: join(dir, `${name}.png`) });
  };

  it('shows a live run whose chart grows while rl_basic trains, then the runs list', async () => {
    const logPath = join(runs, 'rl_basic');
    const io = { out: () => {}, err: () => {} };
    const training = runCli(
      [
        'rl_basic',
        `log_path=${logPath}`,
        `base_url=${service.baseURL}`,
        'max_steps=4',
        'groups_per_batch=1',
        'group_size=4',
        'warm_start=off',
      ],
      recipes,
      io,
    );
    // Open the run as soon as its first metrics row is written.
    await expect.poll(() => existsSync(join(logPath, 'metrics.jsonl')), { timeout: 120_000, interval: 100 }).toBe(true);
    await open('#/run?id=rl_basic');
    const charts = page.locator('#charts');
    await charts.waitFor();
    const first = Number(await charts.getAttribute('data-points'));
    // The chart's point count grows with the rows the run appends (pushed by the server, not re-fetched).
    await expect
      .poll(async () => Number(await charts.getAttribute('data-points')), { timeout: 120_000, interval: 200 })
      .toBeGreaterThan(first);
    expect(await training).toBe(0);
    const rows = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8').trim().split('\n').length;
    await expect.poll(async () => Number(await charts.getAttribute('data-points')), { timeout: 10_000 }).toBe(rows);
    await shot('run-live');
    // Where each step's time went, from the timing_spans.jsonl the loop wrote: a line per span name, one row each.
    const timing = page.locator('#timing');
    await expect.poll(async () => Number(await timing.getAttribute('data-steps')), { timeout: 15_000 }).toBe(rows);
    const spanNames = await page
      .locator('#timing-table tr[data-span]')
      .evaluateAll((trs) => trs.map((t) => t.getAttribute('data-span')));
    expect(spanNames).toEqual(expect.arrayContaining(['sample', 'train', 'save']));
    expect(await page.locator('#timing-chart canvas').count()).toBeGreaterThan(0);
    await timing.scrollIntoViewIfNeeded();
    await shot('run-timing');

    await open('#/');
    await page.locator('#runs tr[data-run="rl_basic"]').waitFor();
    const ids = await page
      .locator('#runs tr[data-run]')
      .evaluateAll((trs) => trs.map((t) => t.getAttribute('data-run')));
    expect(ids).toEqual(expect.arrayContaining(['rl_basic', 'upstream_math_rl', 'evals/base', 'evals/trained']));
    await shot('runs');
    await page.fill('#runs-filter', 'upstream');
    await expect.poll(() => page.locator('#runs tr[data-run]').count()).toBe(1);

    // The run's rollouts as the RL loop logged them: text, and each action token coloured by the advantage.
    await open('#/rollouts?id=rl_basic');
    await page.locator('#rollouts tr[data-n]').first().waitFor();
    const logged = readFileSync(join(logPath, 'iteration_000000', 'train_rollout_summaries.jsonl'), 'utf8');
    const line0 = JSON.parse(logged.split('\n')[0]!) as { advantage: number; steps: { ac_token_texts: string[] }[] };
    await page.locator('#rollouts tr[data-n="0"]').click();
    const tokens = page.locator('#rollout-detail .tokens .tok');
    await tokens.first().waitFor();
    expect(await tokens.count()).toBe(line0.steps[0]!.ac_token_texts.length);
    const bg = await tokens
      .first()
      .evaluate((el) => (el as unknown as { style: { background: string } }).style.background);
    expect(bg).toMatch(
      line0.advantage > 0 ? /rgba\(26, 127, 55/ : line0.advantage < 0 ? /rgba\(207, 34, 46/ : /^$|transparent/,
    );
    await shot('rollouts');
    expect(errors).toEqual([]);
  });

  it("shows a tool-using trajectory as turns: each call's name and arguments, then its result, as text", async () => {
    // A rollout of the tool_use recipe's env (its lookup task, renderer and tool), logged by the RL loop's writer; the
    // policy replies with fixed text (the offline model rarely makes a well-formed call): a call with a key holding
    // HTML (the tool refuses it and says why), a call with the asked key, then the value.
    const renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));
    const [builder] = new LookupToolDataset(renderer, 1, 1, 1, 3, { declareTools: false }).getBatch(0);
    const [demo] = (await builder!.demonstrations!()) as Message[][];
    const key = JSON.parse(demo!.find((m) => m.tool_calls)!.tool_calls![0]!.function.arguments).key as string;
    const value = getTextContent(demo!.find((m) => m.role === 'tool')!);
    const call = (k: string) => `<tool_call>\n{"name": "lookup", "arguments": {"key": "${k}"}}\n</tool_call><|im_end|>`;
    const texts = [call('<b>bold</b>'), call(key), `${value}<|im_end|>`];
    let turn = 0;
    const policy: TokenCompleter = {
      complete: async () => ({ tokens: renderer.tokenizer.encode(texts[turn++]!), maybeLogprobs: [] }),
    };
    const group = await doGroupRollout(builder!, policy);
    const summaries = rolloutSummaries([group], { split: 'train', iteration: 0, tags_P: ['lookup'] });
    const dir = join(runs, 'tool_use');
    writeRolloutSummaries(join(dir, 'iteration_000000', 'train_rollout_summaries.jsonl'), summaries);
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_name: 'local/qwen3-tiny' }));

    await open('#/rollouts?id=tool_use');
    await page.locator('#rollouts tr[data-n="0"]').click();
    await page.locator('#rollout-detail .trajectory').waitFor();
    const calls = page.locator('#rollout-detail .tool-call');
    expect(await calls.locator('.tool-name').allTextContents()).toEqual(['lookup', 'lookup']);
    expect(JSON.parse((await calls.nth(0).locator('.tool-args').textContent()) ?? '')).toEqual({ key: '<b>bold</b>' });
    expect(JSON.parse((await calls.nth(1).locator('.tool-args').textContent()) ?? '')).toEqual({ key });
    const results = page.locator('#rollout-detail .tool-result');
    expect(await results.count()).toBe(2);
    expect(await results.nth(0).textContent()).toContain('<b>bold</b>');
    expect(await results.nth(1).locator('.text').textContent()).toBe(value);
    // The turns in order: prompt, call, result, call, result, answer.
    const order = await page
      .locator('#rollout-detail .conversation .turn')
      .evaluateAll((els) => els.map((e) => e.className.replace('turn ', '')));
    expect(order).toEqual([
      'role-user',
      'role-assistant',
      'tool-call',
      'role-tool tool-result',
      'role-assistant',
      'tool-call',
      'role-tool tool-result',
      'role-assistant',
    ]);
    expect(await page.locator('#rollout-detail b').count()).toBe(0);
    await shot('rollout-tool-turns');
    expect(errors).toEqual([]);
  });

  it('filters rollouts and shows a trajectory', async () => {
    await open('#/rollouts?id=upstream_math_rl');
    await page.locator('#rollouts tr[data-n]').first().waitFor();
    const all = await page.locator('#rollouts tr[data-n]').count();
    expect(all).toBe(96);
    await page.selectOption('#rollout-filter select[name=truncation]', 'length');
    await page.fill('#rollout-filter input[name=step_min]', '6');
    await page.click('#rollout-filter button[type=submit]');
    // The expected count, from the fixture's files: steps ≥ 6 whose rollout stopped at the length limit.
    let want = 0;
    for (let it = 6; it < 12; it++) {
      const file = join(
        FIXTURES,
        'upstream-run',
        `iteration_${String(it).padStart(6, '0')}`,
        'train_rollout_summaries.jsonl',
      );
      for (const line of readFileSync(file, 'utf8').trim().split('\n')) {
        if (
          (JSON.parse(line) as { steps: { logs: { stop_reason: string } }[] }).steps[0]!.logs.stop_reason === 'length'
        )
          want++;
      }
    }
    expect(want).toBeGreaterThan(0);
    await expect
      .poll(() => page.locator('#rollout-count').textContent())
      .toMatch(new RegExp(`^${want} of 96 rollouts match`));
    const cells = await page
      .locator('#rollouts tr[data-n]')
      .evaluateAll((trs) => trs.map((t) => [Number(t.children[0]!.textContent), t.children[6]!.textContent]));
    expect(cells.length).toBeGreaterThan(0);
    for (const [step, trunc] of cells) {
      expect(step).toBeGreaterThanOrEqual(6);
      expect(trunc).toBe('length');
    }
    await page.locator('#rollouts tr[data-n]').first().click();
    await page.locator('#rollout-detail .trajectory').waitFor();
    expect(await page.locator('#rollout-detail').textContent()).toContain('stop_reason');
    expect(errors).toEqual([]);
  });

  it("opens an upstream run: charts, checkpoints with commands, two steps side by side with the logtree's conversations as text", async () => {
    await open('#/run?id=upstream_math_rl');
    await page.locator('#charts .chart[data-key="env/all/reward/total"]').waitFor();
    expect(await page.locator('#charts').getAttribute('data-points')).toBe('12');
    await open('#/checkpoints?id=upstream_math_rl');
    await page.locator('#checkpoints').waitFor();
    const text = await page.locator('#checkpoints').textContent();
    expect(text).toContain('pnpm cookbook chat model=tinker://5f2c7a1e-upstream-run:train:0/sampler_weights/final');
    await open('#/rollouts?id=upstream_math_rl');
    await page.locator('#step-a').waitFor();
    await page.selectOption('#step-a', '0');
    await page.selectOption('#step-b', '11');
    await page.click('#show-side');
    await page.locator('#side-by-side .panel h3').nth(1).waitFor();
    const side = (await page.locator('#side-by-side').textContent()) ?? '';
    expect(side).toContain('step 0');
    expect(side).toContain('step 11');
    // The model's markup and escapes are shown as text, never run or rendered.
    expect(side).toContain("<script>alert('x')</script>");
    expect(side).toContain('␛[31mred');
    expect(await page.locator('#side-by-side script').count()).toBe(0);
    expect(side).toContain('tool call · calculator · call_0');
    await page.locator('#side-by-side').scrollIntoViewIfNeeded();
    await shot('side-by-side');
    expect(errors).toEqual([]);
  });

  it('compares two eval folders: scores, pass@k and the examples that flipped', async () => {
    await open('#/evals?id=evals/trained');
    await page.locator('#benchmarks').waitFor();
    expect(await page.locator('#benchmarks').textContent()).toContain('pass@1');
    await open('#/compare?a=evals/base&b=evals/trained');
    await page.locator('#compare-summary').waitFor();
    const want = expectedFlips();
    expect(await page.locator('#compare-summary').textContent()).toContain(
      `gsm8k: 20 examples in both · ${want.fixed} fixed · ${want.broken} broken`,
    );
    await shot('eval-compare');
    expect(errors).toEqual([]);
  });

  it('shows 1 MB lines and HTML in model output as text, and a deleted run as gone', async () => {
    const dir = join(runs, 'hostile');
    mkdirSync(join(dir, 'iteration_000000'), { recursive: true });
    writeFileSync(join(dir, 'metrics.jsonl'), jsonl([{ step: 0, loss: 1 }]));
    const big = `${'A'.repeat(1024 * 1024)}<img src=x onerror=alert(1)>`;
    writeFileSync(
      join(dir, 'iteration_000000', 'train_rollout_summaries.jsonl'),
      jsonl([
        {
          schema_version: 1,
          split: 'train',
          iteration: 0,
          group_idx: 0,
          traj_idx: 0,
          tags: [],
          total_reward: 0,
          steps: [{ step_idx: 0, ob_len: 1, ac_len: 1, reward: 0, episode_done: true, ac_text: big, logs: {} }],
        },
      ]),
    );
    await open('#/rollouts?id=hostile');
    await page.locator('#rollouts tr[data-n]').first().click();
    await page.locator('#rollout-detail .trajectory').waitFor();
    expect(await page.locator('#rollout-detail img').count()).toBe(0);
    await page.locator('#rollout-detail button', { hasText: 'show all' }).click();
    expect(await page.locator('#rollout-detail').textContent()).toContain('<img src=x onerror=alert(1)>');
    await open('#/run?id=hostile');
    await page.locator('#charts').waitFor();
    const { rmSync } = await import('node:fs');
    rmSync(dir, { recursive: true });
    await page.locator('#gone [data-gone]').waitFor({ timeout: 10_000 });
    expect(errors).toEqual([]);
  });
});

/** Fixed / broken counts of the eval fixtures, from their files. */
function expectedFlips(): { fixed: number; broken: number } {
  const read = (name: string) =>
    new Map(
      readFileSync(join(FIXTURES, 'upstream-evals', name, 'gsm8k', 'trajectories.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { example_id: string; reward: number })
        .map((r) => [r.example_id, r.reward > 0]),
    );
  const a = read('base');
  const b = read('trained');
  let fixed = 0;
  let broken = 0;
  for (const [k, v] of a) {
    if (!v && b.get(k)) fixed++;
    if (v && b.get(k) === false) broken++;
  }
  return { fixed, broken };
}
