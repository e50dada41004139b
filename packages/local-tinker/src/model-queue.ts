/**
 * Per-model request ordering: requests run in seq_id order, and a later seq_id waits for a missing earlier one
 * ("won't process later chunks until the first one arrives"). A repeated seq_id with the same body returns the
 * original future; with a different body it is a conflict. What waits is bounded: a seq_id may run at most
 * `maxAhead` past the next one to run, and the payloads waiting (and running) at most `maxBytes` in all
 * ({@link QueueLimitError}), so a client cannot park requests that hold memory forever.
 */
import { createHash } from 'node:crypto';
import { BoundedMap, CookbookError } from '@cookbook/core';

/** A seq id reused with a different request body (answered 409). */
export class SeqConflictError extends CookbookError {
  override name = 'SeqConflictError';
}
/** A seq id out of the accepted range (answered 400). */
export class SeqRangeError extends CookbookError {
  override name = 'SeqRangeError';
}

/** A request the queue cannot hold: `field` = `value` past `limit` (the `ServiceLimits` key `key`). */
export class QueueLimitError extends SeqRangeError {
  override name = 'QueueLimitError';
  constructor(
    message: string,
    readonly field: string,
    readonly value: string,
    readonly limit: string,
    readonly key: 'maxSeqAhead' | 'maxQueuedBytesPerModel',
  ) {
    super(message);
  }
}

/** Bounds of one model's queue. */
export interface QueueBounds {
  /** A seq_id at `next + maxAhead` or beyond is refused. */
  maxAhead: number;
  /** Largest total payload of the requests queued or running, bytes. */
  maxBytes: number;
}

/** Seq ids remembered per model for replays (a long run would otherwise grow this map forever). */
const MAX_REMEMBERED = 10_000;

interface Slot {
  bytes: number;
  run: () => Promise<unknown>;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** Hash of a request body, to tell a replay from a different request with the same seq_id. */
export function bodyHash(body: unknown): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('hex');
}

export class ModelQueue {
  /** The next seq_id to run. */
  private next = 1;
  private highest = 0;
  private readonly waiting = new Map<number, Slot>();
  private readonly seen = new BoundedMap<number, { hash: string; requestId: string }>(MAX_REMEMBERED);
  private draining = false;
  private settledWaiters: (() => void)[] = [];
  private readonly executor: <T>(fn: () => Promise<T>) => Promise<T>;
  private readonly bounds: QueueBounds;
  /** Payload bytes of the requests queued or running. */
  private held = 0;

  constructor(
    executor: <T>(fn: () => Promise<T>) => Promise<T>,
    bounds: QueueBounds = { maxAhead: Number.POSITIVE_INFINITY, maxBytes: Number.POSITIVE_INFINITY },
  ) {
    this.executor = executor;
    this.bounds = bounds;
  }

  /** Payload bytes of the requests queued or running. */
  get queuedBytes(): number {
    return this.held;
  }

  /** The seq_id that runs next (the one every parked request waits for). */
  get nextToRun(): number {
    return this.next;
  }

  /** True once any request has been accepted for this model. */
  get started(): boolean {
    return this.highest > 0;
  }

  /** The request id already registered for (seqId, body), if this is a replay. */
  replayOf(seqId: number | undefined, hash: string): string | undefined {
    if (seqId === undefined) return undefined;
    const s = this.seen.get(seqId);
    if (!s) return undefined;
    if (s.hash !== hash) throw new SeqConflictError(`seq_id ${seqId} was already used by a different request`);
    return s.requestId;
  }

  /**
   * The seq_id a request without one gets (right after the highest seen), after checking that a request carrying
   * `bytes` of payload fits the bounds.
   */
  assign(seqId: number | undefined, bytes = 0): number {
    const id = seqId ?? this.highest + 1;
    if (id < this.next)
      throw new SeqRangeError(`seq_id ${id} has already been processed (next expected: ${this.next})`);
    if (this.waiting.has(id)) throw new SeqConflictError(`seq_id ${id} is already queued`);
    if (id - this.next >= this.bounds.maxAhead) {
      throw new QueueLimitError(
        `seq_id ${id} is ${id - this.next} past the next seq_id to run (${this.next}); a request waits for every seq_id before it, and this service accepts at most ${this.bounds.maxAhead} ahead`,
        `seq_id ${id}: its distance past the next seq_id to run (${this.next})`,
        String(id - this.next),
        String(this.bounds.maxAhead),
        'maxSeqAhead',
      );
    }
    // The next seq_id to run is always taken: it is what the parked requests wait for.
    if (bytes > 0 && id !== this.next && this.held + bytes > this.bounds.maxBytes) {
      throw new QueueLimitError(
        `this model's queue holds ${this.held} bytes of requests; ${bytes} more would pass this service's limit of ${this.bounds.maxBytes} bytes`,
        `the payload waiting in this model's queue (${this.held} bytes queued, ${bytes} in this request)`,
        `${this.held + bytes} bytes`,
        `${this.bounds.maxBytes} bytes`,
        'maxQueuedBytesPerModel',
      );
    }
    return id;
  }

  /** Queue `run` at `seqId`; resolves with its result once every earlier seq_id has run. */
  enqueue<T>(
    seqId: number,
    hash: string,
    requestIdFor: (p: Promise<T>) => string,
    run: () => Promise<T>,
    bytes = 0,
  ): string {
    this.highest = Math.max(this.highest, seqId);
    this.held += bytes;
    let slot!: Slot;
    const p = new Promise<T>((resolve, reject) => {
      slot = { bytes, run, resolve: resolve as (v: unknown) => void, reject };
    });
    this.waiting.set(seqId, slot);
    const requestId = requestIdFor(p);
    this.remember(seqId, { hash, requestId });
    void this.drain();
    return requestId;
  }

  /**
   * Mark `seqId` as consumed by a request the service rejected, so later seq ids do not wait for it forever.
   * A no-op if the seq id was already used or run.
   */
  skip(seqId: number): void {
    if (seqId < this.next || this.seen.has(seqId) || this.waiting.has(seqId)) return;
    // A seq_id refused for being too far ahead is not consumed: it would park a placeholder (and move `highest`).
    if (seqId - this.next >= this.bounds.maxAhead) return;
    this.highest = Math.max(this.highest, seqId);
    this.remember(seqId, { hash: 'rejected', requestId: '' });
    this.waiting.set(seqId, {
      bytes: 0,
      run: async () => undefined,
      resolve: () => undefined,
      reject: () => undefined,
    });
    void this.drain();
  }

  /** Record a seq id's request; only the most recent {@link MAX_REMEMBERED} are kept for replays. */
  private remember(seqId: number, entry: { hash: string; requestId: string }): void {
    this.seen.set(seqId, entry);
  }

  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    try {
      for (;;) {
        const slot = this.waiting.get(this.next);
        if (!slot) return;
        this.waiting.delete(this.next);
        this.next++;
        try {
          slot.resolve(await this.executor(slot.run));
        } catch (err) {
          slot.reject(err);
        } finally {
          this.held -= slot.bytes;
        }
      }
    } finally {
      this.draining = false;
      for (const w of this.settledWaiters.splice(0)) w();
    }
  }

  /** Fail every request still waiting (the model is gone); the one running finishes. */
  failWaiting(err: unknown): void {
    for (const slot of this.waiting.values()) {
      this.held -= slot.bytes;
      slot.reject(err);
    }
    this.waiting.clear();
  }

  /** True while a request of this model is running or ready to run. */
  get busy(): boolean {
    return this.draining;
  }

  /** Resolves once nothing of this model is running or ready to run (requests waiting for a missing seq_id stay). */
  settled(): Promise<void> {
    return this.draining ? new Promise((r) => this.settledWaiters.push(r)) : Promise.resolve();
  }

  /** Number of requests waiting (for a missing seq_id or their turn). */
  get pending(): number {
    return this.waiting.size;
  }
}
