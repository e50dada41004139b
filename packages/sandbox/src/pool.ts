/**
 * A pool of sandboxes: at most `size` run at once, further calls wait in a queue (first come, first served). Each call
 * gets a fresh sandbox, cleaned up when the call ends, so nothing of one submission is seen by the next. A call's
 * deadline covers its wait and its work; its signal (the caller's, the deadline's or the pool's `close`) goes to the
 * work, which passes it to `runCommand`.
 */
import { type Sandbox, SandboxError } from './sandbox.js';

/** Options of {@link SandboxPool}. */
export interface SandboxPoolOptions {
  /** Makes one sandbox (a backend's constructor). */
  create: () => Sandbox | Promise<Sandbox>;
  /** Sandboxes at once. */
  size: number;
}

/** Options of {@link SandboxPool.run}. */
export interface PoolCallOptions {
  /** Cancels the call (while queued: it rejects; while running: the work's signal aborts). */
  signal?: AbortSignal;
  /** Milliseconds the whole call (queue + work) may take. */
  deadlineMs?: number;
}

/** The largest pool. */
export const MAX_POOL_SIZE = 256;

/** N sandboxes at once, queueing, per-call deadlines, cancellation. */
export class SandboxPool {
  readonly size: number;
  private readonly create: SandboxPoolOptions['create'];
  private running = 0;
  private readonly waiting: { start: () => void; fail: (e: Error) => void }[] = [];
  private readonly closing = new AbortController();

  constructor(options: SandboxPoolOptions) {
    if (!Number.isInteger(options.size) || options.size < 1 || options.size > MAX_POOL_SIZE) {
      throw new SandboxError(`sandbox pool size must be an integer in 1..${MAX_POOL_SIZE}, got ${options.size}`);
    }
    this.size = options.size;
    this.create = options.create;
  }

  /** Calls running now. */
  get active(): number {
    return this.running;
  }

  /** Calls waiting for a sandbox. */
  get queued(): number {
    return this.waiting.length;
  }

  /**
   * Runs `work` with a fresh sandbox once one of the `size` slots is free; cleans the sandbox up afterwards. Rejects
   * with a {@link SandboxError} when cancelled or past the deadline before it started.
   */
  async run<T>(work: (sandbox: Sandbox, signal: AbortSignal) => Promise<T>, options: PoolCallOptions = {}): Promise<T> {
    const signals = [this.closing.signal];
    if (options.signal !== undefined) signals.push(options.signal);
    if (options.deadlineMs !== undefined) signals.push(AbortSignal.timeout(Math.max(0, options.deadlineMs)));
    const signal = AbortSignal.any(signals);
    await this.acquire(signal);
    let sandbox: Sandbox | undefined;
    try {
      sandbox = await this.create();
      return await work(sandbox, signal);
    } finally {
      await sandbox?.cleanup();
      this.release();
    }
  }

  /** Rejects every queued call and aborts the running ones. */
  close(): void {
    this.closing.abort(new SandboxError('the sandbox pool was closed'));
    for (const w of this.waiting.splice(0)) w.fail(new SandboxError('the sandbox pool was closed'));
  }

  private acquire(signal: AbortSignal): Promise<void> {
    const why = () =>
      this.closing.signal.aborted
        ? new SandboxError('the sandbox pool was closed')
        : new SandboxError('the call was cancelled or passed its deadline while waiting for a sandbox');
    if (signal.aborted) return Promise.reject(why());
    if (this.running < this.size) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const entry = {
        start: () => {
          signal.removeEventListener('abort', onAbort);
          this.running++;
          resolve();
        },
        fail: (e: Error) => {
          signal.removeEventListener('abort', onAbort);
          reject(e);
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(why());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private release(): void {
    this.running--;
    this.waiting.shift()?.start();
  }
}
