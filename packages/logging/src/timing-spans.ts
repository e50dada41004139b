/**
 * `timing_spans.jsonl`: where each training step's time went, one line per step (upstream's file and line format,
 * `IterationWindow.write_spans_jsonl` / `TrainingRunStore.write_timing_spans`):
 *
 * `{"step": N, "spans": [{"name": "sample", "duration": 1.2, "wall_start": 0.0, "wall_end": 1.2}, …]}`
 *
 * `duration` is seconds; `wall_start` / `wall_end` are seconds from the step's earliest span. Ours, absent upstream:
 * `depth` on a span nested in another (omitted at 0: top-level spans add up without double counting) and
 * `spans_dropped` when a step had more than {@link MAX_SPANS_PER_STEP} spans (the first ones by start are kept).
 * A step without spans writes no line (as upstream). Each line is appended with one write, so a reader never sees
 * half of two lines; a resumed run drops the lines of the steps it runs again (as for `metrics.jsonl`).
 */
import { join } from 'node:path';
import type { TraceSpan } from '@cookbook/core';
import { appendJsonLine, truncateStepsFrom } from './jsonl.js';

/** The file name, in the run's log dir. */
export const TIMING_SPANS_FILE = 'timing_spans.jsonl';
/** Spans written per step at most. */
export const MAX_SPANS_PER_STEP = 256;

/** One span of a step, as written. */
export interface TimingSpan {
  name: string;
  /** Seconds. */
  duration: number;
  /** Seconds from the step's earliest span. */
  wall_start: number;
  wall_end: number;
  /** Ours: nesting depth, when above 0. */
  depth?: number;
}

/** One line of `timing_spans.jsonl`. */
export interface TimingSpansRecord {
  step: number;
  spans: TimingSpan[];
  /** Ours: spans left out past {@link MAX_SPANS_PER_STEP} (or dropped before writing). */
  spans_dropped?: number;
}

/**
 * The line of step `step` from the spans a tracer collected (`ts` / `dur` in microseconds, as
 * `@cookbook/core`'s `Tracer` holds them), or undefined when there are none. `dropped`: spans the tracer did not keep.
 */
export function timingSpansRecord(
  step: number,
  spans: readonly TraceSpan[],
  dropped = 0,
  max: number = MAX_SPANS_PER_STEP,
): TimingSpansRecord | undefined {
  if (spans.length === 0) return undefined;
  // By start; a span and one nested in it starting together: the outer first.
  const sorted = [...spans].sort((a, b) => a.ts - b.ts || a.depth - b.depth);
  const kept = sorted.slice(0, max);
  const t0 = sorted[0]!.ts;
  const round = (us: number) => Math.round(us) / 1e6;
  const out: TimingSpansRecord = {
    step,
    spans: kept.map((s) => {
      const span: TimingSpan = {
        name: s.name,
        duration: round(s.dur),
        wall_start: round(s.ts - t0),
        wall_end: round(s.ts - t0 + s.dur),
      };
      if (s.depth > 0) span.depth = s.depth;
      return span;
    }),
  };
  const left = sorted.length - kept.length + dropped;
  if (left > 0) out.spans_dropped = left;
  return out;
}

/** Appends step `step`'s spans to `<logDir>/timing_spans.jsonl` (nothing when there are none). Returns the line. */
export function appendTimingSpans(
  logDir: string,
  step: number,
  spans: readonly TraceSpan[],
  dropped = 0,
): TimingSpansRecord | undefined {
  const record = timingSpansRecord(step, spans, dropped);
  if (record !== undefined) appendJsonLine(join(logDir, TIMING_SPANS_FILE), record);
  return record;
}

/** Drops the lines of steps `fromStep` and later from `<logDir>/timing_spans.jsonl` (a resumed run writes them again). */
export function truncateTimingSpansFrom(logDir: string, fromStep: number): number {
  return truncateStepsFrom(join(logDir, TIMING_SPANS_FILE), fromStep);
}
