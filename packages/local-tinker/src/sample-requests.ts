/**
 * The sample requests queued or running, by future id: what `cancel_future` stops and what the per-client bound
 * (`maxConcurrentRequests`, per session) counts. Invariant: an entry lives from the request's admission until its
 * future settles; a cancelled entry never reaches the engine, or is stopped there (`EngineHost.cancelTag`).
 */
import type { EngineHost } from './engine-host.js';
import { HttpError } from './http-errors.js';
import { LIMIT_KEYS } from './limits.js';

interface PendingSample {
  session: string | undefined;
  /** Why it was cancelled (set once). */
  cancelled: string | undefined;
}

export class SampleRequests {
  private readonly pending = new Map<string, PendingSample>();
  private readonly perSession = new Map<string, number>();

  constructor(
    private readonly engine: EngineHost,
    private readonly limit: () => number,
  ) {}

  /**
   * A 429 when `session` already has the most sample requests queued or running (`maxConcurrentRequests`); the
   * Tinker SDK pauses on a 429 and submits again.
   */
  checkRoom(session: string | undefined): void {
    if (session === undefined) return;
    const n = this.perSession.get(session) ?? 0;
    const max = this.limit();
    if (n >= max) {
      throw new HttpError(
        429,
        `session ${session} has ${n} sample requests queued or running, this service's limit of concurrent requests per client (the operator can raise it: cookbook serve ${LIMIT_KEYS.maxConcurrentRequests}=…); submit again once some are done`,
      );
    }
  }

  /** Track the request whose future is `id` until `settled` does. */
  track(id: string, session: string | undefined, settled: Promise<unknown>): void {
    this.pending.set(id, { session, cancelled: undefined });
    if (session !== undefined) this.perSession.set(session, (this.perSession.get(session) ?? 0) + 1);
    const done = () => {
      this.pending.delete(id);
      if (session === undefined) return;
      const n = (this.perSession.get(session) ?? 1) - 1;
      if (n <= 0) this.perSession.delete(session);
      else this.perSession.set(session, n);
    };
    settled.then(done, done);
  }

  /** Why request `id` was cancelled, or undefined. */
  cancelledWhy(id: string): string | undefined {
    return this.pending.get(id)?.cancelled;
  }

  /** Cancel request `id` if it is a sample still queued or running. Returns whether it was. */
  cancel(id: string, reason: string): boolean {
    const p = this.pending.get(id);
    if (p === undefined || p.cancelled !== undefined) return false;
    p.cancelled = reason;
    this.engine.cancelTag(id, reason);
    return true;
  }

  /** Sample requests queued or running. */
  get size(): number {
    return this.pending.size;
  }
}
