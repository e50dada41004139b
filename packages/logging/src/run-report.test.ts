import { appendFileSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDir } from './__fixtures__/test-utils.js';
import { buildSeries, chartGroupOf, yAxisLabel } from './internal/report-data.js';
import type { MetricsRow } from './jsonl.js';
import { Transcript } from './logtree.js';
import { setupLogging } from './metrics-logger.js';
import { writeRunReport } from './run-report.js';

const tmp = useTempDir();

function reportData(html: string): ReturnType<typeof buildSeries> {
  const m = html.match(/<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/);
  return JSON.parse(m?.[1] ?? 'null');
}

describe('chart grouping', () => {
  it('puts train/test variants on one chart and time/* together', () => {
    expect(chartGroupOf('train/loss')).toBe('loss');
    expect(chartGroupOf('test/loss')).toBe('loss');
    expect(chartGroupOf('eval_loss')).toBe('loss');
    expect(chartGroupOf('test/env/all/reward')).toBe('env/all/reward');
    expect(chartGroupOf('time/step')).toBe('time');
    expect(chartGroupOf('train')).toBe('train');
  });

  it('merges rows by step and leaves gaps as null', () => {
    const data = buildSeries([
      { step: 0, 'train/loss': 2, lr: 1e-4 },
      { step: 1, 'train/loss': 1.5, lr: 1e-4, 'time/step': 0.5 },
      { step: 1, 'test/loss': 1.7 },
      { step: 2, 'train/loss': 1.2, 'x:count': 3, tag: 'str' },
    ]);
    expect(data.x).toEqual([0, 1, 2]);
    expect(data.series['test/loss']).toEqual([null, 1.7, null]);
    expect(data.series['x:count']).toBeUndefined();
    expect(data.series.tag).toBeUndefined();
    expect(data.charts.map((c) => ({ title: c.title, keys: c.keys }))).toEqual([
      { title: 'loss', keys: ['train/loss', 'test/loss'] },
      { title: 'time/step', keys: ['time/step'] },
    ]);
    expect(data.constants).toEqual([['lr', 1e-4]]);
  });
});

describe('writeRunReport', () => {
  it('writes a self-contained report with chart data, config, and the latest transcripts', async () => {
    const logger = setupLogging({
      logDir: tmp(),
      console: false,
      config: { model: 'tiny<qwen>', optim: { lr: 0.001 } },
    });
    for (let step = 0; step < 10; step++) {
      logger.logMetrics({ 'train/loss': 2 / (step + 1), 'time/step': 0.1 * step }, step);
      if (step % 5 === 4) logger.logMetrics({ 'test/loss': 2.5 / (step + 1) }, step);
    }
    await logger.close();
    appendFileSync(join(tmp(), 'metrics.jsonl'), '{"step":10,"train/lo');
    for (let i = 0; i < 5; i++) {
      const t = new Transcript(`iteration ${i}`);
      t.text(`sample from iteration ${i} <b>`);
      const path = join(tmp(), `iteration_00000${i}`, 'train.html');
      await t.write(path);
      utimesSync(path, 1_700_000_000 + i, 1_700_000_000 + i);
    }
    mkdirSync(join(tmp(), 'transcripts'));
    writeFileSync(join(tmp(), 'transcripts', 'old.html'), '<p>old</p>');
    utimesSync(join(tmp(), 'transcripts', 'old.html'), 1_600_000_000, 1_600_000_000);

    const path = await writeRunReport(tmp(), { maxTranscripts: 2 });
    expect(path).toBe(join(tmp(), 'report.html'));
    expect(readdirSync(tmp()).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const html = readFileSync(path, 'utf8');

    const data = reportData(html);
    expect(data.x).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(data.series['train/loss']?.[1]).toBe(1);
    expect(data.series['test/loss']?.[4]).toBe(0.5);
    expect(data.charts.map((c) => c.title)).toEqual(['loss', 'time/step']);

    // Headline charts first, the rest folded; final values readable without JavaScript (static view, print).
    const headline = html.indexOf('id="plot-0"');
    const more = html.indexOf('<summary>More metrics (1 charts)</summary>');
    expect(headline).toBeGreaterThan(0);
    expect(more).toBeGreaterThan(headline);
    expect(html.indexOf('id="plot-1"')).toBeGreaterThan(more);
    expect(html).toContain('final: <span class="final"><span class="key">train/loss</span> 0.200000</span>');
    expect(html).toContain('id="smooth"');
    expect(html).toContain('id="logy"');

    // Chart library inlined; nothing loaded from the network.
    expect(html).toContain('var uPlot=');
    expect(html).toContain('.uplot');
    expect(html).not.toMatch(/<(script|link|img|iframe)\b[^>]*\s(src|href)\s*=\s*["']?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import|url\(\s*["']?https?:/i);

    // Config and truncated-line notice.
    expect(html).toContain('<th>optim.lr</th><td>0.001</td>');
    expect(html).toContain('tiny&lt;qwen&gt;');
    expect(html).toMatch(/truncated line \(line \d+, skipped\)/);

    // The two newest transcripts embedded, all linked.
    expect(html).toContain('sample from iteration 4 &amp;lt;b&amp;gt;');
    expect(html).toContain('sample from iteration 3');
    expect(html).not.toContain('sample from iteration 2');
    expect(html).toContain('href="iteration_000000/train.html"');
    expect(html).toContain('href="transcripts/old.html"');
    expect(html).toContain('All transcripts (6)');
  });

  it('works on an empty log dir', async () => {
    const html = readFileSync(await writeRunReport(tmp()), 'utf8');
    expect(html).toContain('No numeric metrics yet.');
    expect(html).toContain('No transcripts yet.');
  });
});

describe('chart order', () => {
  it('puts loss-like charts first, counts and schedules after, timings last', () => {
    const rows: MetricsRow[] = [
      {
        step: 0,
        'time/step': 1,
        num_loss_tokens: 5,
        learning_rate: 1e-3,
        train_mean_nll: 3,
        'test/nll': 3.5,
        progress: 0,
      },
      { step: 1, 'time/step': 1, num_loss_tokens: 6, learning_rate: 9e-4, train_mean_nll: 2, progress: 0.5 },
    ];
    const titles = buildSeries(rows).charts.map((c) => c.title);
    // progress is bookkeeping and time/step never changed: neither gets a chart.
    expect(titles).toEqual(['nll', 'num_loss_tokens', 'learning_rate']);
    expect(buildSeries(rows).charts[0]!.keys).toEqual(['train_mean_nll', 'test/nll']);
    expect(buildSeries(rows).constants).toEqual([['time/step', 1]]);
  });

  it('marks headline charts, labels the y axis with units, and keeps each series final value', () => {
    const rows: MetricsRow[] = [
      { step: 0, train_mean_nll: 3, 'env/all/reward/total': 0.1, 'time/total': 1, epoch: 0, 'step:max': 0 },
      { step: 1, train_mean_nll: 2, 'env/all/reward/total': 0.4, 'time/total': 2, epoch: 0, 'step:max': 1 },
      { step: 2, train_mean_nll: 1.5, learning_rate: 1e-4, 'learning_rate:mean': 1e-4 },
      { step: 3, learning_rate: 5e-5, 'learning_rate:mean': 5e-5 },
    ];
    const data = buildSeries(rows);
    expect(data.charts.map((c) => [c.title, c.headline, c.yLabel])).toEqual([
      ['train_mean_nll', true, 'nats/token'], // 'train_mean_nll (nats/token)' would not fit along the axis
      ['env/all/reward/total', true, 'env/all/reward/total'],
      ['learning_rate', false, 'learning_rate'],
      ['time/total', false, 'seconds'],
    ]);
    expect(data.charts[0]!.final).toEqual({ train_mean_nll: 1.5 });
    expect(['nll', 'test/bpb', 'samples/mean_tokens', 'env/all/frac_groups_with_signal'].map(yAxisLabel)).toEqual([
      'nll (nats/token)',
      'test/bpb (bits/byte)',
      'tokens',
      'fraction',
    ]);
    expect(data.series['learning_rate:mean']).toBeUndefined();
    expect(data.series['step:max']).toBeUndefined();
    expect(data.constants).toEqual([['epoch', 0]]);
    expect(data.headlineConstants).toEqual([]);
  });

  it('names a flat headline metric first instead of hiding it', async () => {
    const logger = setupLogging({ logDir: tmp(), console: false });
    for (let step = 0; step < 3; step++) logger.logMetrics({ 'env/all/reward/total': -0.1, entropy: 3 - step }, step);
    await logger.close();
    const html = readFileSync(await writeRunReport(tmp()), 'utf8');
    expect(html).toContain('Flat at every step (not charted): <code>env/all/reward/total</code> = -0.100000');
    expect(html.indexOf('Flat at every step')).toBeLessThan(html.indexOf('More metrics'));
  });
});
