/**
 * The futures table: every future-returning request gets an opaque id; `retrieve_future` long-polls it.
 * A completed future is kept for `ttlMs`, then answered with 410 (expired) instead of 404 (never existed).
 */
import { randomUUID } from 'node:crypto';

/** Why a future failed, as `{error, category}` on the wire. */
export class FutureFailure {
  constructor(
    readonly error: string,
    readonly category: 'user' | 'server' | 'unknown',
  ) {}
}

interface Entry {
  state: 'pending' | 'done';
  value?: unknown;
  failure?: FutureFailure;
  completedAt?: number;
  /** When the result is dropped: completion + TTL, or shortly after its first delivery. */
  expiresAt?: number;
  waiters: Set<() => void>;
  /** A streamed sample's sequences so far (tokens and logprobs), and who waits for more of them. */
  partial?: { tokens: number[]; logprobs: number[] }[];
  partialWaiters?: Set<() => void>;
}

/** A pending streamed sample's tokens past what the poller had: each sequence's tokens from position `from` on. */
export interface PartialSequences {
  from: number;
  sequences: { tokens: number[]; logprobs: number[] }[];
}

/** What `retrieve_future` sees. */
export type FutureLookup =
  | { kind: 'pending'; partial?: PartialSequences }
  | { kind: 'done'; value: unknown }
  | { kind: 'failed'; failure: FutureFailure }
  | { kind: 'expired' }
  | { kind: 'unknown' };

export class FutureTable {
  private readonly entries = new Map<string, Entry>();
  private readonly expired = new Set<string>();
  private readonly ttlMs: number;
  private readonly deliveredTtlMs: number;
  private sweeper: ReturnType<typeof setInterval>;
  private readonly hold: (release: () => void) => void;
  private readonly scrub: (message: string) => string;

  /**
   * @param ttlMs how long an unretrieved result is kept after completion
   * @param deliveredTtlMs how long a result is kept once it has been delivered (for a client's retry of a poll
   *   whose answer was lost); keeping results longer would grow memory with every step of a long run
   * @param hold when a finished future becomes visible: `release` is called now, or later (the clock-cycle model
   *   releases what finished during a cycle at its end); applied to the futures created with `held` (the default)
   * @param scrub applied to every failure message (the service removes its own paths from them)
   */
  constructor(
    ttlMs: number,
    deliveredTtlMs = 60_000,
    hold?: (release: () => void) => void,
    scrub: (message: string) => string = (m) => m,
  ) {
    this.hold = hold ?? ((release) => release());
    this.scrub = scrub;
    this.ttlMs = ttlMs;
    this.deliveredTtlMs = Math.min(ttlMs, deliveredTtlMs);
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, Math.min(ttlMs, 60_000)));
    this.sweeper.unref();
  }

  /**
   * Register a future for `work` and return its id. The work's result or error settles the future: through the
   * table's `hold` when `held` (training-side work, released with its clock cycle), at once otherwise (sampling).
   */
  create(work: Promise<unknown>, held = true): string {
    const id = `req_${randomUUID()}`;
    const entry: Entry = { state: 'pending', waiters: new Set() };
    this.entries.set(id, entry);
    const hold = held ? this.hold : (release: () => void) => release();
    work.then(
      (value) => hold(() => this.settle(entry, { value })),
      (err: unknown) =>
        hold(() =>
          this.settle(entry, {
            failure:
              err instanceof FutureFailure
                ? err
                : new FutureFailure(err instanceof Error ? err.message : String(err), 'server'),
          }),
        ),
    );
    return id;
  }

  private settle(entry: Entry, outcome: { value?: unknown; failure?: FutureFailure }): void {
    if (entry.state === 'done') return; // failed by failPending (shutdown) before its work ended
    entry.state = 'done';
    entry.completedAt = Date.now();
    entry.partial = undefined;
    for (const w of entry.partialWaiters ?? []) w();
    entry.expiresAt = entry.completedAt + this.ttlMs;
    if (outcome.failure) {
      const f = outcome.failure;
      const error = this.scrub(f.error);
      entry.failure = error === f.error ? f : new FutureFailure(error, f.category);
    } else entry.value = outcome.value;
    for (const w of entry.waiters) w();
    entry.waiters.clear();
  }

  lookup(id: string): FutureLookup {
    const e = this.entries.get(id);
    if (!e) return this.expired.has(id) ? { kind: 'expired' } : { kind: 'unknown' };
    if (e.state === 'pending') return { kind: 'pending' };
    const now = Date.now();
    if (e.expiresAt !== undefined && now > e.expiresAt) {
      this.entries.delete(id);
      this.markExpired(id);
      return { kind: 'expired' };
    }
    // Delivered: keep it only briefly from now on.
    e.expiresAt = Math.min(e.expiresAt ?? now + this.ttlMs, now + this.deliveredTtlMs);
    return e.failure ? { kind: 'failed', failure: e.failure } : { kind: 'done', value: e.value };
  }

  /**
   * Adds a streamed sample's new tokens (per sequence, in order) to future `id` while it is pending, and wakes the
   * pollers waiting for them.
   */
  progress(id: string, sequences: readonly { tokens: number[]; logprobs: number[] }[]): void {
    const e = this.entries.get(id);
    if (e === undefined || e.state !== 'pending') return;
    if (e.partial === undefined) e.partial = sequences.map(() => ({ tokens: [], logprobs: [] }));
    const partial = e.partial;
    sequences.forEach((q, i) => {
      const p = partial[i];
      if (!p) return;
      p.tokens.push(...q.tokens);
      p.logprobs.push(...q.logprobs);
    });
    for (const w of e.partialWaiters ?? []) w();
    e.partialWaiters?.clear();
  }

  /**
   * Wait until the future completes or `timeoutMs` passes (or `abort` fires), then look it up. With `partialFrom`
   * (a streamed sample's poller, holding each sequence's first `partialFrom` tokens), a pending future answers as
   * soon as some sequence has more, with the tokens past that position.
   */
  async wait(id: string, timeoutMs: number, abort?: AbortSignal, partialFrom?: number): Promise<FutureLookup> {
    const e = this.entries.get(id);
    const more = () => partialFrom !== undefined && (e?.partial?.some((q) => q.tokens.length > partialFrom) ?? false);
    if (e && e.state === 'pending' && timeoutMs > 0 && !abort?.aborted && !more()) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          e.waiters.delete(done);
          e.partialWaiters?.delete(done);
          abort?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        e.waiters.add(done);
        if (partialFrom !== undefined) {
          if (e.partialWaiters === undefined) e.partialWaiters = new Set();
          e.partialWaiters.add(done);
        }
        abort?.addEventListener('abort', done, { once: true });
      });
    }
    const found = this.lookup(id);
    if (found.kind !== 'pending' || !more()) return found;
    const from = partialFrom!;
    return {
      kind: 'pending',
      partial: {
        from,
        sequences: e!.partial!.map((q) => ({ tokens: q.tokens.slice(from), logprobs: q.logprobs.slice(from) })),
      },
    };
  }

  /** Release every waiting poller (used at shutdown: they get try_again and come back, or find the server gone). */
  releaseAll(): void {
    for (const e of this.entries.values()) {
      for (const w of e.waiters) w();
      e.waiters.clear();
    }
  }

  /** Fail every pending future with `failure` now (the service is stopping); their work's later result is dropped. */
  failPending(failure: FutureFailure): number {
    let n = 0;
    for (const e of this.entries.values()) {
      if (e.state !== 'pending') continue;
      this.settle(e, { failure });
      n++;
    }
    return n;
  }

  /** Remember an expired id (to answer 410, not 404), keeping at most the last 100 000. */
  private markExpired(id: string): void {
    this.expired.add(id);
    if (this.expired.size > 100_000) this.expired.delete(this.expired.values().next().value!);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [id, e] of this.entries) {
      if (e.expiresAt !== undefined && now > e.expiresAt) {
        this.entries.delete(id);
        this.markExpired(id);
      }
    }
  }

  close(): void {
    clearInterval(this.sweeper);
    this.releaseAll();
  }
}
