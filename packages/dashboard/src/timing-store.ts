/**
 * A run's `timing_spans.jsonl` (upstream's format: `{"step", "spans": [{"name", "duration", "wall_start",
 * "wall_end"}]}` a line; this project's loops write it too) as a per-step breakdown: for each step, the seconds spent
 * in each top-level span name (spans with a `depth` above 0 are inside another and not added again; several spans of
 * one name in a step add up; several lines of one step add up). Read incrementally (only the bytes appended since the
 * last read); a file that shrank (a resumed run rewrote it) is read again. Bounded: at most {@link MAX_NAMES} names
 * (later ones are added under `other`) and {@link MAX_STEPS} steps (later steps are counted, not kept).
 */
import { join } from 'node:path';
import { JsonlTail } from './jsonl-tail.js';

/** Span names kept apart; past this, time goes under `other`. */
export const MAX_NAMES = 24;
/** Steps kept. */
export const MAX_STEPS = 200_000;

/** The breakdown as the page gets it. */
export interface TimingBreakdown {
  steps: number[];
  names: string[];
  /** Per name, the seconds of each step (null: no such span that step). */
  seconds: Record<string, (number | null)[]>;
  /** Lines skipped as malformed. */
  skipped: number;
  /** Steps not kept past {@link MAX_STEPS}. */
  droppedSteps: number;
}

/** The timing spans of one run folder. */
export class TimingStore {
  readonly tail: JsonlTail;
  private readonly stepIndex = new Map<number, number>();
  private steps: number[] = [];
  private names: string[] = [];
  private columns = new Map<string, (number | null)[]>();
  private droppedSteps = 0;
  private badLines = 0;

  constructor(runDir: string) {
    this.tail = new JsonlTail(join(runDir, 'timing_spans.jsonl'));
  }

  /** Reads the lines appended since the last call. */
  async update(): Promise<void> {
    const read = await this.tail.readNew();
    if (read.reset) this.clear();
    for (const line of read.lines) this.add(line.value);
  }

  private clear(): void {
    this.stepIndex.clear();
    this.steps = [];
    this.names = [];
    this.columns = new Map();
    this.droppedSteps = 0;
    this.badLines = 0;
  }

  private column(name: string): (number | null)[] {
    const key = this.columns.has(name) || this.names.length < MAX_NAMES ? name : 'other';
    let col = this.columns.get(key);
    if (col === undefined) {
      col = new Array<number | null>(this.steps.length).fill(null);
      this.columns.set(key, col);
      this.names.push(key);
    }
    return col;
  }

  private add(value: unknown): void {
    const r = value as { step?: unknown; spans?: unknown } | null;
    if (typeof r !== 'object' || r === null || typeof r.step !== 'number' || !Array.isArray(r.spans)) {
      this.badLines++;
      return;
    }
    let at = this.stepIndex.get(r.step);
    if (at === undefined) {
      if (this.steps.length >= MAX_STEPS) {
        this.droppedSteps++;
        return;
      }
      at = this.steps.length;
      this.stepIndex.set(r.step, at);
      this.steps.push(r.step);
      for (const col of this.columns.values()) col.push(null);
    }
    for (const s of r.spans) {
      const span = s as { name?: unknown; duration?: unknown; depth?: unknown } | null;
      if (typeof span !== 'object' || span === null) continue;
      if (typeof span.name !== 'string' || typeof span.duration !== 'number' || !Number.isFinite(span.duration)) {
        continue;
      }
      if (typeof span.depth === 'number' && span.depth > 0) continue;
      const col = this.column(span.name);
      col[at] = (col[at] ?? 0) + span.duration;
    }
  }

  /** The breakdown, steps in increasing order. */
  breakdown(): TimingBreakdown {
    const order = this.steps.map((_, i) => i).sort((a, b) => this.steps[a]! - this.steps[b]!);
    const seconds: Record<string, (number | null)[]> = {};
    for (const name of this.names) {
      const col = this.columns.get(name)!;
      seconds[name] = order.map((i) => col[i] ?? null);
    }
    return {
      steps: order.map((i) => this.steps[i]!),
      names: [...this.names],
      seconds,
      skipped: this.tail.skipped + this.badLines,
      droppedSteps: this.droppedSteps,
    };
  }
}
