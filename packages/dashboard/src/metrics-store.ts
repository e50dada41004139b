/**
 * The metrics of one run as columns: `metrics.jsonl` is read once, incrementally ({@link JsonlTail}), and every
 * numeric field becomes a column (`NaN` where a row lacks it). A chart asks for a few columns; live updates read only
 * the appended bytes and hand the new rows on. Bounded: at most {@link MAX_KEYS} columns per run.
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
  /** `step` of each row (the row index when a row has none). */
  steps: number[] = [];
  readonly columns = new Map<string, number[]>();
  droppedKeys = 0;
  /** Wall time (`time` / `timestamp` fields, seconds) of the last row, when logged. */
  lastTime: number | undefined;

  constructor(runDir: string) {
    this.tail = new JsonlTail(join(runDir, 'metrics.jsonl'));
  }

  get rowCount(): number {
    return this.steps.length;
  }

  /** Reads what was appended; returns the new rows (all rows after a reset) and whether the file was reset. */
  async update(): Promise<{ rows: MetricRow[]; reset: boolean; missing: boolean }> {
    const read = await this.tail.readNew();
    if (read.reset) {
      this.steps = [];
      this.columns.clear();
    }
    const rows: MetricRow[] = [];
    for (const line of read.lines) {
      const row = this.add(line.value);
      if (row !== undefined) rows.push(row);
    }
    return { rows, reset: read.reset, missing: read.missing };
  }

  private add(value: unknown): MetricRow | undefined {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.tail.skipped++;
      return undefined;
    }
    const rec = value as Record<string, unknown>;
    const n = this.steps.length;
    const step = typeof rec.step === 'number' && Number.isFinite(rec.step) ? rec.step : n;
    this.steps.push(step);
    const row: MetricRow = { step };
    for (const [k, v] of Object.entries(rec)) {
      if (k === 'step' || typeof v !== 'number') continue;
      let col = this.columns.get(k);
      if (col === undefined) {
        if (this.columns.size >= MAX_KEYS) {
          this.droppedKeys++;
          continue;
        }
        col = new Array<number>(n).fill(Number.NaN);
        this.columns.set(k, col);
      }
      col.push(v);
      row[k] = v;
    }
    for (const col of this.columns.values()) if (col.length === n) col.push(Number.NaN);
    const t = rec.time ?? rec.timestamp;
    if (typeof t === 'number') this.lastTime = t;
    return row;
  }

  /** The last row (numeric fields), if any. */
  lastRow(): MetricRow | undefined {
    const i = this.steps.length - 1;
    if (i < 0) return undefined;
    const row: MetricRow = { step: this.steps[i]! };
    for (const [k, col] of this.columns) if (!Number.isNaN(col[i]!)) row[k] = col[i]!;
    return row;
  }

  /** Numbers held (for the memory bound of the store cache). */
  cells(): number {
    return this.steps.length * (this.columns.size + 1);
  }
}
