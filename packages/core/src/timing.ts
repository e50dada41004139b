/**
 * Timing and tracing (upstream `misc_utils.timed` and `utils/trace.py` scopes).
 * `timed` records `time/<name>` in a metrics dict; `traceScope` records nested spans that a tracer can
 * export as Perfetto/Chrome trace events; `recordTime` turns an interval a loop measured itself into both.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';

/** A finished span. `ts`/`dur` are in microseconds, as Chrome trace events expect. */
export interface TraceSpan {
  name: string;
  ts: number;
  dur: number;
  depth: number;
  args?: Record<string, unknown>;
}

/** Collects spans; attach one with {@link withTracer}. */
export class Tracer {
  readonly spans: TraceSpan[] = [];
  /** Spans not kept because {@link Tracer.spans} held `maxSpans` already (until the holder takes them). */
  dropped = 0;

  /** `maxSpans`: most spans held at once (default: no bound); later ones are counted in {@link Tracer.dropped}. */
  constructor(readonly maxSpans: number = Number.POSITIVE_INFINITY) {}

  /** Keeps `span` (or counts it as dropped past `maxSpans`). */
  add(span: TraceSpan): void {
    if (this.spans.length < this.maxSpans) this.spans.push(span);
    else this.dropped++;
  }

  /** The spans held and the count dropped since the last call; both start over. */
  take(): { spans: TraceSpan[]; dropped: number } {
    const out = { spans: this.spans.splice(0), dropped: this.dropped };
    this.dropped = 0;
    return out;
  }

  /** Spans as Chrome/Perfetto complete events (`ph: "X"`). */
  toTraceEvents(pid = 1): { name: string; ph: 'X'; ts: number; dur: number; pid: number; tid: number }[] {
    return this.spans.map((s) => ({ name: s.name, ph: 'X', ts: s.ts, dur: s.dur, pid, tid: s.depth }));
  }

  /** Total seconds spent per span name (for `time/<name>` metrics). */
  totals(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const s of this.spans) out[`time/${s.name}`] = (out[`time/${s.name}`] ?? 0) + s.dur / 1e6;
    return out;
  }
}

const current = new AsyncLocalStorage<{ tracer: Tracer; depth: number }>();

/** Run `fn` with `tracer` collecting every {@link traceScope} inside it (across awaits). */
export function withTracer<T>(tracer: Tracer, fn: () => T): T {
  return current.run({ tracer, depth: 0 }, fn);
}

/** Record a span named `name` around `fn` when a tracer is active; otherwise just run `fn`. */
export async function traceScope<T>(
  name: string,
  fn: () => Promise<T> | T,
  args?: Record<string, unknown>,
): Promise<T> {
  const ctx = current.getStore();
  if (ctx === undefined) return await fn();
  const start = performance.now();
  try {
    return await current.run({ tracer: ctx.tracer, depth: ctx.depth + 1 }, async () => await fn());
  } finally {
    const end = performance.now();
    const span: TraceSpan = {
      name,
      ts: (performance.timeOrigin + start) * 1000,
      dur: (end - start) * 1000,
      depth: ctx.depth,
    };
    if (args !== undefined) span.args = args;
    ctx.tracer.add(span);
  }
}

/**
 * Stores `metrics["time/" + name]` = the seconds from `startMs` to `endMs` (`performance.now()` values; `endMs`
 * defaults to now) and records the same interval as a span `name` in the active tracer, if any: one measurement
 * behind both the metric and the run's `timing_spans.jsonl`. Returns the seconds.
 */
export function recordTime(
  metrics: Record<string, number>,
  name: string,
  startMs: number,
  endMs: number = performance.now(),
): number {
  const seconds = (endMs - startMs) / 1000;
  metrics[`time/${name}`] = seconds;
  const ctx = current.getStore();
  if (ctx !== undefined) {
    ctx.tracer.add({
      name,
      ts: (performance.timeOrigin + startMs) * 1000,
      dur: (endMs - startMs) * 1000,
      depth: ctx.depth,
    });
  }
  return seconds;
}

/**
 * Time `fn` and store its duration in seconds as `metrics["time/" + name]` (added to any earlier value).
 */
export async function timed<T>(name: string, metrics: Record<string, number>, fn: () => Promise<T> | T): Promise<T> {
  const start = performance.now();
  try {
    return await traceScope(name, fn);
  } finally {
    const key = `time/${name}`;
    metrics[key] = (metrics[key] ?? 0) + (performance.now() - start) / 1000;
  }
}
