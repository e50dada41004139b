/**
 * The metrics of one run as columns: `metrics.jsonl` is read once, incrementally ({@link JsonlTail}), and every
 * numeric field becomes a column of float64 (`NaN` where a row lacks it). A chart asks for a few columns (sent as
 * binary, {@link MetricsStore.encode}); live updates read only the appended bytes and hand the new rows on. Bounded:
 * at most {@link MAX_KEYS} columns per run.
 */
import { join } from 'node:path';
import { JsonlTail } from './jsonl-tail.js';

/** Most metric names kept per run (more are counted in `droppedKeys`). */
export const MAX_KEYS = 2000;

/** A metrics row as pushed to the page: its step and numeric fields. */
export type MetricRow = Record<string, number>;

/** Columns of a run's metrics. */
export class MetricsStore {
  readonly tail: JsonlTail;
  private n = 0;
  private cap = 0;
  private stepCol = new Float64Array(0);
  private readonly cols = new Map<string, Float64Array>();
  droppedKeys = 0;

  constructor(runDir: string) {
    this.tail = new JsonlTail(join(runDir, 'metrics.jsonl'));
  }

  get rowCount(): number {
    return this.n;
  }

  /** Metric names, sorted. */
  keys(): string[] {
    return [...this.cols.keys()].sort();
  }

  /** `step` of each row (the row index when a row has none). */
  get steps(): Float64Array {
    return this.stepCol.subarray(0, this.n);
  }

  /** The column of `key` (a view of the first `rowCount` values), if any. */
  column(key: string): Float64Array | undefined {
    return this.cols.get(key)?.subarray(0, this.n);
  }

  /**
   * Reads what was appended; returns the new rows when `collect` (all rows after a reset), whether the file was
   * reset, and whether it is missing.
   */
  async update(collect = false): Promise<{ rows: MetricRow[]; reset: boolean; missing: boolean }> {
    const read = await this.tail.readNew();
    if (read.reset) {
      this.n = 0;
      this.cols.clear();
    }
    const rows: MetricRow[] = [];
    for (const line of read.lines) this.add(line.value, collect ? rows : undefined);
    return { rows, reset: read.reset, missing: read.missing };
  }

  private grow(): void {
    const cap = Math.max(1024, this.cap * 2);
    const next = (old: Float64Array) => {
      const a = new Float64Array(cap).fill(Number.NaN);
      a.set(old.subarray(0, this.n));
      return a;
    };
    this.stepCol = next(this.stepCol);
    for (const [k, c] of this.cols) this.cols.set(k, next(c));
    this.cap = cap;
  }

  private add(value: unknown, rows: MetricRow[] | undefined): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.tail.skipped++;
      return;
    }
    const rec = value as Record<string, unknown>;
    if (this.n >= this.cap) this.grow();
    const i = this.n++;
    const step = typeof rec.step === 'number' && Number.isFinite(rec.step) ? rec.step : i;
    this.stepCol[i] = step;
    const row: MetricRow | undefined = rows === undefined ? undefined : { step };
    for (const k in rec) {
      const v = rec[k];
      if (typeof v !== 'number' || k === 'step') continue;
      let col = this.cols.get(k);
      if (col === undefined) {
        if (this.cols.size >= MAX_KEYS) {
          this.droppedKeys++;
          continue;
        }
        col = new Float64Array(this.cap).fill(Number.NaN);
        this.cols.set(k, col);
      }
      col[i] = v;
      if (row !== undefined) row[k] = v;
    }
    if (row !== undefined) rows!.push(row);
  }

  /** The last row (numeric fields), if any. */
  lastRow(): MetricRow | undefined {
    const i = this.n - 1;
    if (i < 0) return undefined;
    const row: MetricRow = { step: this.stepCol[i]! };
    for (const [k, col] of this.cols) if (!Number.isNaN(col[i]!)) row[k] = col[i]!;
    return row;
  }

  /** Numbers held (for the memory bound of the store cache). */
  cells(): number {
    return this.cap * (this.cols.size + 1);
  }

  /**
   * Steps and the columns of `keys` as one binary body: a little-endian u32 length, that many bytes of JSON header
   * (`{ rows, keys }`, the keys found), zero padding to a multiple of 8, then float64 little-endian arrays: the steps,
   * then each column (NaN where a row lacks the metric).
   */
  encode(keys: readonly string[]): Buffer {
    const found = keys.filter((k) => this.cols.has(k));
    const header = Buffer.from(JSON.stringify({ rows: this.n, keys: found }), 'utf8');
    const headLen = Math.ceil((4 + header.length) / 8) * 8;
    const out = Buffer.alloc(headLen + 8 * this.n * (found.length + 1));
    out.writeUInt32LE(header.length, 0);
    header.copy(out, 4);
    const view = new Float64Array(out.buffer, out.byteOffset + headLen, this.n * (found.length + 1));
    view.set(this.steps, 0);
    found.forEach((k, j) => {
      view.set(this.column(k)!, (j + 1) * this.n);
    });
    return out;
  }
}
