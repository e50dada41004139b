/**
 * The opt-in clock-cycle model of the hosted service (tinker-api.md §5.3): training runs in lock-step cycles of
 * `cycleMs`. Only training is clocked: a cycle's phases are a model's forward / forward_backward and its
 * optim_step; sampling is served outside the clock (hosted: by sampler workers), so a sample starts as soon as a
 * worker is free and its result is visible as soon as it is done. Save and load (save_weights,
 * save_weights_for_sampler, load_weights, create and unload) are training-side but not phases of a cycle: they run
 * in the model's order as soon as what precedes them is done, without waiting for a boundary, and what finishes
 * while a cycle runs is released at its end with the cycle's results (a save queued behind an optim_step never
 * shows the step before the step's own result does).
 * Invariants: a clocked request is admitted to the cycle after the one running (or the next one to start) when it
 * arrives, and its engine operation never starts before that cycle's boundary; a model takes at most one optimizer
 * step per cycle (its later requests move to the next cycle); a cycle lasts at least `cycleMs` and until every
 * operation admitted to it (or earlier) has finished; training-side futures that complete while a cycle runs are
 * released together at its end. Boundaries lie on a grid of `cycleMs` anchored at the end of the
 * last cycle (a cycle that overruns moves the grid), so a loop that submits its next request only after a result
 * arrives misses the boundary at which that result was released and waits for the next one, as on the hosted
 * service. `tick` numbers grid boundaries, idle ones included, so "cycles per step" counts the cycles a loop waited.
 */
import { appendFile } from 'node:fs/promises';
import { ConfigError } from '@cookbook/core';

/** One cycle that ran work: what a per-cycle log line holds. */
export interface CycleRecord {
  /** Grid boundary at which the cycle started (idle boundaries are counted too). */
  tick: number;
  /** Start, ms since the epoch. */
  startMs: number;
  /** How long the cycle lasted, ms (≥ the cycle length; longer when its work overran). */
  durationMs: number;
  /** Clocked engine operations started in the cycle, by kind (forwardBackward, optimStep). */
  ops: Record<string, number>;
  /** Training-side futures released at its end. */
  released: number;
}

/**
 * The time source and timers a clock runs on: the real ones by default; a test injects a manual clock so that
 * boundaries and cycle ends happen when it says, whatever the machine's speed or load.
 */
export interface ClockTimers {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms` ms; the handle cancels it. Must not keep the process alive. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's clock and timers (unref'd). */
export const REAL_TIMERS: ClockTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** Options of {@link ClockCycle}. */
export interface ClockCycleOptions {
  /** Time source and timers (default: the real ones). */
  timers?: ClockTimers | undefined;
  /** Length of a cycle, ms (> 0). */
  cycleMs: number;
  /** Append one JSON line per cycle to this file. */
  logPath?: string | undefined;
  /** Called with every finished cycle (after it is recorded). */
  onCycle?: (record: CycleRecord) => void;
}

/** Records kept in memory (the most recent). */
const KEEP_RECORDS = 10_000;

export class ClockCycle {
  readonly cycleMs: number;
  /** Finished cycles, oldest first (at most {@link KEEP_RECORDS}). */
  readonly records: CycleRecord[] = [];
  /** Called at every boundary that starts a cycle (the engine host pumps its queues). */
  onBoundary: () => void = () => undefined;
  private readonly logPath: string | undefined;
  private readonly onCycle: (record: CycleRecord) => void;
  private readonly timers: ClockTimers;
  /** Index of the cycle running, or of the last one that ran. */
  private cycle = 0;
  private running = false;
  private startMs = 0;
  private tick = 0;
  /** Time and tick of grid boundary 0: the end of the last cycle (or the clock's creation). */
  private anchorMs: number;
  private anchorTick = 0;
  /** Engine operations queued or running, by the cycle they were admitted to. */
  private readonly inFlight = new Map<number, number>();
  private ops: Record<string, number> = {};
  /** Models that took their optimizer step in the running cycle. */
  private stepped = new Set<string>();
  private held: (() => void)[] = [];
  private timer: unknown;
  private checkQueued = false;
  private logChain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(options: ClockCycleOptions) {
    if (!(options.cycleMs > 0) || !Number.isFinite(options.cycleMs)) {
      throw new ConfigError(`clock_cycle_ms must be a positive number of ms, got ${options.cycleMs}`, {
        key: 'clock_cycle_ms',
      });
    }
    this.cycleMs = options.cycleMs;
    this.logPath = options.logPath;
    this.onCycle = options.onCycle ?? (() => undefined);
    this.timers = options.timers ?? REAL_TIMERS;
    this.anchorMs = this.timers.now();
  }

  /** The cycle a request arriving now belongs to: the next one to start. */
  admit(): number {
    return this.cycle + 1;
  }

  /** True while a cycle runs that an operation admitted to `cycle` may run in. */
  eligible(cycle: number): boolean {
    return this.running && cycle <= this.cycle;
  }

  /** True while a cycle runs. */
  get active(): boolean {
    return this.running;
  }

  /** Training-side futures done and held for the running cycle's end. */
  get holding(): number {
    return this.held.length;
  }

  /** Cycles that ran work so far. */
  get cyclesRun(): number {
    return this.cycle - (this.running ? 1 : 0);
  }

  /** An operation admitted to `cycle` entered the engine's queue. */
  queued(cycle: number): void {
    this.inFlight.set(cycle, (this.inFlight.get(cycle) ?? 0) + 1);
    if (!this.running) this.schedule();
  }

  /** An operation of `kind` on `resident` (a model or sampler) started in the running cycle. */
  started(kind: string, resident: string): void {
    this.ops[kind] = (this.ops[kind] ?? 0) + 1;
    if (kind === 'optimStep') this.stepped.add(resident);
  }

  /** True once `model` took its optimizer step in the running cycle (it takes one per cycle, as hosted). */
  steppedThisCycle(model: string): boolean {
    return this.stepped.has(model);
  }

  /** Move an operation admitted to `cycle` on to the next cycle; returns its new cycle. */
  defer(cycle: number): number {
    const next = this.cycle + 1;
    this.inFlight.set(next, (this.inFlight.get(next) ?? 0) + 1);
    this.settled(cycle);
    return next;
  }

  /** An operation admitted to `cycle` finished (or failed, or was cancelled). */
  settled(cycle: number): void {
    const n = (this.inFlight.get(cycle) ?? 1) - 1;
    if (n > 0) this.inFlight.set(cycle, n);
    else this.inFlight.delete(cycle);
    this.maybeEnd();
  }

  /** Runs `release` at the end of the running cycle, or now when none runs. */
  hold(release: () => void): void {
    if (this.running && !this.closed) this.held.push(release);
    else release();
  }

  /** Stop the timers and release what is held. */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    for (const r of this.held.splice(0)) r();
  }

  /** Resolves once every cycle log line has been written. */
  flushed(): Promise<void> {
    return this.logChain;
  }

  /** Schedule the next grid boundary (idle clock, work waiting). */
  private schedule(): void {
    if (this.timer !== undefined || this.running || this.closed) return;
    const now = this.timers.now();
    // The first grid boundary strictly after now: work that arrives as a cycle ends has missed that boundary.
    const j = Math.max(0, Math.floor((now - this.anchorMs) / this.cycleMs)) + 1;
    const at = this.anchorMs + j * this.cycleMs;
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      this.begin(this.anchorTick + j);
    }, at - now);
  }

  private begin(tick: number): void {
    if (this.closed) return;
    this.cycle++;
    this.running = true;
    this.tick = tick;
    this.startMs = this.timers.now();
    this.ops = {};
    this.stepped = new Set();
    this.armCycleEnd();
    this.onBoundary();
  }

  /** Arms the running cycle's end `cycleMs` after its start (again if the timer fired early: a cycle never ends early). */
  private armCycleEnd(): void {
    const left = this.startMs + this.cycleMs - this.timers.now();
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = undefined;
        // Node's timers can fire a millisecond before Date.now() has moved on by the full delay.
        if (this.timers.now() - this.startMs < this.cycleMs) this.armCycleEnd();
        else this.maybeEnd();
      },
      Math.max(1, left),
    );
  }

  /** Ends the running cycle once its time is up and its work is done (checked after pending continuations ran). */
  private maybeEnd(): void {
    if (!this.running || this.checkQueued || this.timer !== undefined) return;
    this.checkQueued = true;
    setImmediate(() => {
      this.checkQueued = false;
      if (!this.running || this.timer !== undefined) return;
      for (const c of this.inFlight.keys()) if (c <= this.cycle) return;
      this.end();
    });
  }

  private end(): void {
    const now = this.timers.now();
    this.running = false;
    const released = this.held.splice(0);
    const record: CycleRecord = {
      tick: this.tick,
      startMs: this.startMs,
      durationMs: now - this.startMs,
      ops: this.ops,
      released: released.length,
    };
    this.records.push(record);
    if (this.records.length > KEEP_RECORDS) this.records.shift();
    this.anchorMs = now;
    this.anchorTick = this.tick + 1;
    for (const r of released) r();
    this.onCycle(record);
    if (this.logPath !== undefined) {
      const path = this.logPath;
      const line = `${JSON.stringify({ cycle: record.tick, start: new Date(record.startMs).toISOString(), duration_ms: record.durationMs, ops: record.ops, released: record.released })}\n`;
      this.logChain = this.logChain.then(() => appendFile(path, line)).catch(() => undefined);
    }
    // Work admitted during the cycle starts at once: this end is the next boundary.
    if (this.inFlight.size > 0) this.begin(this.anchorTick);
  }
}
