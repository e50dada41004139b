/** Small async helpers: a counting semaphore, bounded parallel map, and an async queue. */

import { ConfigError } from '@cookbook/core';

/** A counting semaphore: at most `limit` holders at a time. */
export class Semaphore {
  private available: number;
  private readonly waiters: (() => void)[] = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new ConfigError(`Semaphore limit must be ≥ 1, got ${limit}`);
    this.available = limit;
  }

  async acquire(): Promise<void> {
    if (this.available > 0) {
      this.available--;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next !== undefined) next();
    else this.available++;
  }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}

/** `Promise.all(items.map(fn))` with at most `limit` calls in flight; results keep the input order. */
export async function mapWithConcurrency<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const sem = new Semaphore(Math.max(1, limit));
  return Promise.all(items.map((item, i) => sem.run(() => fn(item, i))));
}

/** An unbounded FIFO queue whose `get` waits for an item. */
export class AsyncQueue<T> {
  private readonly items: T[] = [];
  private readonly getters: ((item: T) => void)[] = [];

  put(item: T): void {
    const getter = this.getters.shift();
    if (getter !== undefined) getter(item);
    else this.items.push(item);
  }

  get(): Promise<T> {
    if (this.items.length > 0) return Promise.resolve(this.items.shift() as T);
    return new Promise<T>((resolve) => this.getters.push(resolve));
  }

  get size(): number {
    return this.items.length;
  }
}
