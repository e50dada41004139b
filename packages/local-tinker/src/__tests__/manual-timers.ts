/**
 * A manual clock for the clock-cycle model: time stands still until the test moves it, so a boundary or a cycle's end
 * happens when the test says (never because the machine was slow or fast).
 */
import type { ClockTimers } from '../clock-cycle.js';

interface Pending {
  id: number;
  at: number;
  fn: () => void;
}

export class ManualTimers implements ClockTimers {
  private time = 1_700_000_000_000;
  private nextId = 1;
  private pending: Pending[] = [];

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.pending.push({ id, at: this.time + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending = this.pending.filter((p) => p.id !== handle);
  }

  /** Timers waiting to fire. */
  get waiting(): number {
    return this.pending.length;
  }

  /** Moves time to the earliest timer and fires it; false when none waits. */
  fireNext(): boolean {
    if (this.pending.length === 0) return false;
    const first = this.pending.reduce((a, b) => (b.at < a.at || (b.at === a.at && b.id < a.id) ? b : a));
    this.pending = this.pending.filter((p) => p !== first);
    this.time = Math.max(this.time, first.at);
    first.fn();
    return true;
  }

  /**
   * Lets time run while `work` is pending: whenever the process has had a turn (the engine and the futures make
   * progress in real time), the next timer fires. Time jumps from timer to timer, so a cycle lasts exactly its
   * length unless its work overruns it.
   */
  async run<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const settled = work.then(
      () => {
        done = true;
      },
      () => {
        done = true;
      },
    );
    while (!done) {
      await Promise.race([settled, new Promise((r) => setTimeout(r, 1))]);
      if (!done) this.fireNext();
    }
    return work;
  }
}
