/**
 * JSONL reading and appending (upstream `ml_log` writes `metrics.jsonl`; readers there assume whole lines).
 * Difference: the reader here tolerates the truncated last line a killed process can leave behind.
 */

import {
  appendFileSync,
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from 'node:fs';
import { readFile } from 'node:fs/promises';
import { DataError } from '@cookbook/core';
import { writeFileAtomicSync } from './atomic-write.js';

/** One row of `metrics.jsonl`: an optional integer `step` plus metric values. */
export type MetricsRow = { step?: number } & Record<string, number | string | null>;

/** A line that could not be parsed and was skipped. */
export interface SkippedLine {
  /** 1-based line number. */
  line: number;
  /** The raw text of the line (cut to 200 characters). */
  text: string;
  /** Why it was skipped. */
  reason: string;
}

/** What {@link readJsonl} found. */
export interface JsonlContents<T> {
  /** Parsed records, in file order. */
  records: T[];
  /** The incomplete final line left by a process killed mid-write, if there was one; it is not in `records`. */
  truncated: SkippedLine | undefined;
}

/** Options of {@link readJsonl}. */
export interface ReadJsonlOptions {
  /** Called once when a truncated last line is skipped (e.g. to print a warning). Default: nothing. */
  onTruncated?: (skipped: SkippedLine, path: string) => void;
}

/**
 * Reads a JSONL file (one JSON value per line, blank lines ignored). A final line that has no newline and does not
 * parse is the trace of an interrupted append: it is skipped and reported in `truncated`. Any other malformed
 * line throws a {@link DataError} naming the file and line.
 */
export async function readJsonl<T = unknown>(path: string, options: ReadJsonlOptions = {}): Promise<JsonlContents<T>> {
  return parseJsonl<T>(await readFile(path, 'utf8'), path, options);
}

/** Parses JSONL text; see {@link readJsonl}. `path` is only used in messages. */
export function parseJsonl<T = unknown>(
  text: string,
  path = '<text>',
  options: ReadJsonlOptions = {},
): JsonlContents<T> {
  const lines = text.split('\n');
  const endsWithNewline = text.endsWith('\n');
  if (endsWithNewline) lines.pop();
  const records: T[] = [];
  let truncated: SkippedLine | undefined;
  lines.forEach((raw, i) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    try {
      records.push(JSON.parse(line) as T);
    } catch (error) {
      const isLast = i === lines.length - 1 && !endsWithNewline;
      const reason = error instanceof Error ? error.message : String(error);
      if (!isLast) {
        throw new DataError(`malformed JSON line (${reason}); expected one JSON value per line`, {
          file: path,
          line: i + 1,
          cause: error,
        });
      }
      truncated = { line: i + 1, text: line.slice(0, 200), reason: `truncated last line: ${reason}` };
      options.onTruncated?.(truncated, path);
    }
  });
  return { records, truncated };
}

/** What {@link readMetrics} found. */
export interface MetricsContents {
  /** One entry per logged step, in file order. */
  rows: MetricsRow[];
  /** The skipped truncated last line, if any. */
  truncated: SkippedLine | undefined;
}

/**
 * Reads a `metrics.jsonl` file written by {@link setupLogging} (or upstream `ml_log`). Tolerates a truncated last
 * line (skipped, reported in `truncated` and through `onTruncated`); throws {@link DataError} when a line is not
 * a JSON object.
 */
export async function readMetrics(path: string, options: ReadJsonlOptions = {}): Promise<MetricsContents> {
  const { records, truncated } = await readJsonl<unknown>(path, options);
  const rows = records.map((record, i) => {
    if (typeof record !== 'object' || record === null || Array.isArray(record)) {
      throw new DataError('expected a JSON object per line like {"step": 0, "loss": 1.5}', { file: path, line: i + 1 });
    }
    return record as MetricsRow;
  });
  return { rows, truncated };
}

/**
 * Appends one complete line with a single `write` in append mode, so concurrent readers and a crash can never see
 * half of two lines glued together: at worst the final line is cut short (which the readers tolerate).
 */
export function appendJsonLine(path: string, value: unknown): void {
  appendFileSync(path, `${JSON.stringify(value)}\n`, 'utf8');
}

/**
 * Prepares a JSONL file for appending after a crash. If it ends without a newline, the tail is either a complete
 * value (then a newline is added) or half a line from an interrupted append (then it is cut off, so the next append
 * starts on a fresh line). Returns the removed text, or `undefined` when nothing was removed.
 */
export function repairTruncatedTail(path: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return undefined;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return undefined;
    // Scan backwards in chunks for the last newline.
    const chunk = Buffer.alloc(Math.min(64 * 1024, size));
    let keep = 0;
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const n = readSync(fd, chunk, 0, end - start, start);
      const idx = chunk.subarray(0, n).lastIndexOf(0x0a);
      if (idx >= 0) {
        keep = start + idx + 1;
        break;
      }
      end = start;
    }
    const tail = Buffer.alloc(size - keep);
    readSync(fd, tail, 0, tail.length, keep);
    const text = tail.toString('utf8');
    try {
      JSON.parse(text);
      writeSync(fd, '\n', size);
      return undefined;
    } catch {
      ftruncateSync(fd, keep);
      return text;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Drops the lines of a JSONL file whose `step` is `fromStep` or later (a resumed run writes them again), and a
 * truncated last line; rewrites the file atomically when anything goes. A missing file is left missing. Returns the
 * number of lines dropped (the truncated one not counted).
 */
export function truncateStepsFrom(path: string, fromStep: number): number {
  if (!existsSync(path)) return 0;
  const text = readFileSync(path, 'utf8');
  const { records, truncated } = parseJsonl<{ step?: unknown }>(text, path);
  const kept = records.filter((r) => typeof r?.step !== 'number' || r.step < fromStep);
  const removed = records.length - kept.length;
  if (removed > 0 || truncated !== undefined || (text.length > 0 && !text.endsWith('\n'))) {
    writeFileAtomicSync(path, kept.map((r) => `${JSON.stringify(r)}\n`).join(''));
  }
  return removed;
}
