/**
 * `timing_spans.jsonl` as upstream writes it (`{"step", "spans": [{"name", "duration", "wall_start", "wall_end"}]}`,
 * seconds, wall times from the step's earliest span), with our `depth` and bound, appended a line per step, and
 * the lines of re-run steps dropped on resume.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TraceSpan } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { appendTimingSpans, timingSpansRecord, truncateTimingSpansFrom } from './timing-spans.js';

/** A span from `start` to `end` seconds after an arbitrary origin (as the tracer holds it: µs since the epoch). */
const span = (name: string, start: number, end: number, depth = 0): TraceSpan => ({
  name,
  ts: 1.7e15 + start * 1e6,
  dur: (end - start) * 1e6,
  depth,
});

describe('timing spans', () => {
  it("writes a step's spans in upstream's line format, by start, times relative to the earliest", () => {
    const record = timingSpansRecord(3, [span('train', 1.25, 2), span('sample', 0.5, 1.25), span('fb', 1.25, 1.5, 1)]);
    expect(record).toEqual({
      step: 3,
      spans: [
        { name: 'sample', duration: 0.75, wall_start: 0, wall_end: 0.75 },
        { name: 'train', duration: 0.75, wall_start: 0.75, wall_end: 1.5 },
        { name: 'fb', duration: 0.25, wall_start: 0.75, wall_end: 1, depth: 1 },
      ],
    });
    expect(timingSpansRecord(0, [])).toBeUndefined();
  });

  it('keeps at most the bound per step, the first by start, and counts the rest with the ones dropped before', () => {
    const spans = Array.from({ length: 10 }, (_, i) => span(`s${i}`, 9 - i, 10 - i));
    const record = timingSpansRecord(0, spans, 2, 4)!;
    expect(record.spans.map((s) => s.name)).toEqual(['s9', 's8', 's7', 's6']);
    expect(record.spans_dropped).toBe(6 + 2);
  });

  it('appends one line per step, and a resumed run drops the lines of the steps it runs again', () => {
    const dir = mkdtempSync(join(tmpdir(), 'timing-'));
    for (let step = 0; step < 4; step++) appendTimingSpans(dir, step, [span('sample', 0, 1 + step)]);
    expect(appendTimingSpans(dir, 4, [])).toBeUndefined();
    const path = join(dir, 'timing_spans.jsonl');
    const steps = () =>
      readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { step: number }).step);
    expect(steps()).toEqual([0, 1, 2, 3]);
    // A process killed mid-append left half a line: it goes too.
    writeFileSync(path, `${readFileSync(path, 'utf8')}{"step": 4, "spa`);
    expect(truncateTimingSpansFrom(dir, 2)).toBe(2);
    expect(steps()).toEqual([0, 1]);
    expect(truncateTimingSpansFrom(join(dir, 'none'), 0)).toBe(0);
  });
});
