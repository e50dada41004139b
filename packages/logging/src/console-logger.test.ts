import { describe, expect, it } from 'vitest';
import { collector } from './__fixtures__/test-utils.js';
import { formatMetricsTable, formatMetricValue } from './console-logger.js';
import { progressBar } from './progress-bar.js';

describe('formatMetricValue', () => {
  it('prints integers as is, floats with 6 decimals, tiny/huge in exponent form', () => {
    expect(formatMetricValue(42)).toBe('42');
    expect(formatMetricValue(0.123456789)).toBe('0.123457');
    expect(formatMetricValue(-1.5)).toBe('-1.500000');
    expect(formatMetricValue(2e-5)).toBe('2.00000e-5');
    expect(formatMetricValue(Number.NaN)).toBe('NaN');
    expect(formatMetricValue('final')).toBe('final');
  });
});

describe('formatMetricsTable', () => {
  it('renders a titled, sorted table and hides :total/:count keys', () => {
    const table = formatMetricsTable(
      { 'train/loss': 0.5, lr: 0.0001, 'reward:total': 10, 'reward:count': 4, ckpt: '000010' },
      3,
    );
    expect(table).toBe(
      [
        '         Step 3',
        '┌────────────┬──────────┐',
        '│ metric     │ value    │',
        '├────────────┼──────────┤',
        '│ ckpt       │   000010 │',
        '│ lr         │ 0.000100 │',
        '│ train/loss │ 0.500000 │',
        '└────────────┴──────────┘',
        '',
      ].join('\n'),
    );
  });

  it('titles a table without a step "Metrics"', () => {
    expect(formatMetricsTable({ a: 1 }).split('\n')[0]?.trim()).toBe('Metrics');
  });
});

describe('progressBar', () => {
  it('prints a line per 10% milestone and one at the end when not a TTY', () => {
    const out = collector(false);
    let t = 0;
    const bar = progressBar(100, { label: 'eval', stream: out, now: () => t });
    for (let i = 0; i < 100; i++) {
      t += 10;
      bar.tick();
    }
    bar.finish();
    bar.finish();
    const lines = out.text().trimEnd().split('\n');
    expect(lines).toHaveLength(10);
    expect(lines[0]).toMatch(/^eval 10\/100 {2}10% \[0:00</);
    expect(lines[9]).toMatch(/^eval 100\/100 100% \[0:01<0:00, 100 it\/s\]$/);
    expect(out.text()).not.toContain('\r');
  });

  it('redraws in place on a TTY, throttled', () => {
    const out = collector(true);
    let t = 0;
    const bar = progressBar(10, { stream: out, now: () => t, minIntervalMs: 100 });
    for (let i = 0; i < 10; i++) {
      t += 50;
      bar.tick();
    }
    bar.finish();
    const text = out.text();
    const draws = text.split('\r').length - 1;
    expect(draws).toBeGreaterThan(2);
    expect(draws).toBeLessThan(10);
    expect(text.endsWith('\n')).toBe(true);
    expect(text).toContain('10/10 100%');
  });
});
