/**
 * Perfetto / Chrome trace events (upstream `utils/trace.py`: `trace_events.jsonl`, converted to a JSON trace for
 * ui.perfetto.dev). One complete event (`ph: "X"`) per line; {@link convertTraceEvents} writes the JSON file the
 * viewers load. Timing metrics (`time/*`) are `timed()` in `@cookbook/core`, not here.
 */
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from './atomic-write.js';
import { appendJsonLine, parseJsonl } from './jsonl.js';

/** A complete trace event, timestamps and durations in microseconds. */
export interface TraceEvent {
  name: string;
  ph: 'X';
  ts: number;
  dur: number;
  pid: number;
  tid: number;
  cat?: string;
  args?: Record<string, unknown>;
}

/** Options of {@link TraceEventWriter}. */
export interface TraceEventWriterOptions {
  /** Process id written in events. Default: `process.pid`. */
  pid?: number;
  /** Clock in microseconds. Default: `performance.timeOrigin + performance.now()` in µs. */
  nowUs?: () => number;
}

/** Appends complete events to a `trace_events.jsonl` file. */
export class TraceEventWriter {
  /** The JSONL file written to. */
  readonly path: string;
  readonly #pid: number;
  readonly #nowUs: () => number;

  constructor(path: string, options: TraceEventWriterOptions = {}) {
    this.path = path;
    this.#pid = options.pid ?? process.pid;
    this.#nowUs = options.nowUs ?? (() => Math.round((performance.timeOrigin + performance.now()) * 1000));
  }

  /** Records a finished span. `tid` names the track (e.g. a worker index). */
  complete(
    name: string,
    tsUs: number,
    durUs: number,
    options: { tid?: number; cat?: string; args?: Record<string, unknown> } = {},
  ): void {
    const event: TraceEvent = { name, ph: 'X', ts: tsUs, dur: durUs, pid: this.#pid, tid: options.tid ?? 0 };
    if (options.cat !== undefined) event.cat = options.cat;
    if (options.args !== undefined) event.args = options.args;
    appendJsonLine(this.path, event);
  }

  /** Runs `fn` and records its duration as a span (also when it throws). Returns what `fn` returns. */
  async span<T>(
    name: string,
    fn: () => T | Promise<T>,
    options: { tid?: number; cat?: string; args?: Record<string, unknown> } = {},
  ): Promise<T> {
    const start = this.#nowUs();
    try {
      return await fn();
    } finally {
      this.complete(name, start, this.#nowUs() - start, options);
    }
  }
}

/** Converts `trace_events.jsonl` into a `{"traceEvents": [...]}` JSON file that Perfetto and chrome://tracing open. */
export async function convertTraceEvents(jsonlPath: string, jsonPath: string): Promise<number> {
  const { records } = parseJsonl<TraceEvent>(await readFile(jsonlPath, 'utf8'), jsonlPath);
  await writeFileAtomic(jsonPath, JSON.stringify({ traceEvents: records, displayTimeUnit: 'ms' }));
  return records.length;
}
