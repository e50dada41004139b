import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeTerminal } from './__fixtures__/terminal.js';
import { collector } from './__fixtures__/test-utils.js';
import { printAboveProgress, progressBar } from './progress-bar.js';

const here = dirname(fileURLToPath(import.meta.url));

afterEach(() => {
  vi.useRealTimers();
});

describe('progressBar on a terminal', () => {
  it('shows the detail as soon as it changes, at most one redraw per interval', () => {
    vi.useFakeTimers();
    const term = fakeTerminal();
    let t = 0;
    const bar = progressBar(8, { stream: term, unit: 'step', now: () => t, refreshMs: 0 });
    t = 500;
    bar.setDetail('rollouts 1/8');
    expect(term.screen().at(-1)).toContain('step 0/8');
    expect(term.screen().at(-1)).toMatch(/rollouts 1\/8$/);
    const before = term.writes();
    t = 520;
    bar.setDetail('rollouts 2/8');
    t = 540;
    bar.setDetail('rollouts 3/8');
    expect(term.writes()).toBe(before); // throttled…
    t = 600;
    vi.advanceTimersByTime(100);
    expect(term.writes()).toBe(before + 1); // …then drawn once, with the latest text
    expect(term.screen().at(-1)).toMatch(/rollouts 3\/8$/);
    bar.finish();
  });

  it('redraws on a timer so elapsed and ETA move during a long step, and stops the timer at finish', () => {
    vi.useFakeTimers();
    const term = fakeTerminal();
    let t = 0;
    const bar = progressBar(10, { stream: term, unit: 'step', now: () => t });
    t = 2000;
    bar.update(1);
    expect(term.screen().at(-1)).toMatch(/step 1\/10 .*\[0:02<0:18, /);
    for (let i = 0; i < 5; i++) {
      t += 1000;
      vi.advanceTimersByTime(1000);
    }
    expect(term.screen().at(-1)).toMatch(/step 1\/10 .*\[0:07<1:03, /);
    expect(vi.getTimerCount()).toBe(1);
    bar.finish();
    expect(vi.getTimerCount()).toBe(0);
    expect(term.screen()).toHaveLength(1);
  });

  it('keeps lines printed above it intact and stays the last line', () => {
    const term = fakeTerminal();
    const bar = progressBar(4, { stream: term, unit: 'step', refreshMs: 0, minIntervalMs: 0 });
    bar.update(1);
    bar.above(() => term.write('step 0  loss 1.23\n'));
    bar.setDetail('rollouts 2/8');
    printAboveProgress(() => term.write('a notice\n'));
    expect(term.screen()).toEqual([
      'step 0  loss 1.23',
      'a notice',
      expect.stringMatching(/^\|█+ +\| step 1\/4 .* rollouts 2\/8$/),
    ]);
    bar.finish();
    printAboveProgress(() => term.write('after\n'));
    expect(term.screen().at(-1)).toBe('after');
    expect(term.screen().at(-2)).toMatch(/step 1\/4/);
  });

  it('lets a bar started inside another (a warm start in a run) take the line until it finishes', () => {
    const term = fakeTerminal();
    const outer = progressBar(10, { stream: term, unit: 'step', refreshMs: 0, minIntervalMs: 0 });
    const inner = progressBar(4, { stream: term, label: 'warm start', unit: 'step', refreshMs: 0, minIntervalMs: 0 });
    inner.update(2);
    outer.setDetail('rollouts 1/8');
    printAboveProgress(() => term.write('a notice\n'));
    expect(term.screen()).toEqual(['a notice', expect.stringMatching(/^warm start \|.*step 2\/4 /)]);
    inner.update(4);
    inner.finish();
    outer.update(1);
    expect(term.screen()).toEqual([
      'a notice',
      expect.stringMatching(/^warm start \|.*step 4\/4 100%/),
      expect.stringMatching(/^\|.*step 1\/10 .*rollouts 1\/8$/),
    ]);
    outer.finish();
  });

  it('draws a whole line on a terminal that reports no width', () => {
    const term = { ...fakeTerminal(), columns: 0 };
    const bar = progressBar(4, { stream: term, unit: 'step', refreshMs: 0 });
    bar.update(1);
    bar.finish();
    expect(term.screen()[0]).toMatch(/^\|█+ +\| step 1\/4 {2}25% \[/);
  });

  it('never keeps the process alive', async () => {
    const started = performance.now();
    await promisify(execFile)(
      process.execPath,
      ['--conditions=@cookbook/source', '--import', 'tsx', join(here, '__fixtures__', 'unfinished-bar.ts')],
      { timeout: 20_000 },
    );
    expect(performance.now() - started).toBeLessThan(20_000);
  });
});

describe('progressBar elsewhere', () => {
  it('prints plain lines: no carriage returns, escapes or timer', () => {
    vi.useFakeTimers();
    const out = collector(false);
    let t = 0;
    const bar = progressBar(4, { stream: out, unit: 'step', now: () => t });
    expect(vi.getTimerCount()).toBe(0);
    for (let i = 0; i < 4; i++) {
      t += 1000;
      bar.setDetail(`rollouts ${i}/4`);
      bar.above(() => out.write(`line ${i}\n`));
      bar.tick();
    }
    bar.finish();
    expect(out.text()).not.toContain('\r');
    expect(out.text()).not.toContain('\x1b');
    expect(out.text().split('\n')).toContain('line 2');
    expect(out.text().trimEnd().split('\n').at(-1)).toMatch(
      /^step 4\/4 100% \[0:04<0:00, 1\.00 step\/s\] rollouts 3\/4$/,
    );
  });
});
