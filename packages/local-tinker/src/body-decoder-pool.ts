/**
 * A small pool of worker threads that decode large request bodies ({@link decodeBody}: zstd, the byte scans,
 * `JSON.parse` or the protobuf decode, and the large routes' count checks and schemas), so the thread that answers
 * health checks, polls and every other client never spends seconds on one body.
 *
 * Bounded: at most `threads` bodies decode at once and `maxQueued` wait; past that a body is refused with a 503
 * (nothing is read into a worker). A body whose client goes away is dropped from the queue, or its worker is stopped
 * mid-decode (and replaced on the next body). A worker that dies (its heap limit) fails only its own body. A worker
 * keeps the process alive only while it decodes.
 */
import type { Worker } from 'node:worker_threads';
import type { DecodeOutcome, DecodeTask } from './body-decode.js';
import { HttpError } from './http-errors.js';
import { spawnPackageWorker } from './worker-spawn.js';

/** Options of {@link BodyDecoderPool}. */
export interface BodyDecoderPoolOptions {
  /** Bodies decoded at once (worker threads). Default 2. */
  threads?: number;
  /** Bodies waiting for a worker; past it a body gets a 503. Default 8. */
  maxQueued?: number;
  /** Heap limit of each worker, MB. Default 2048. */
  heapMb?: number;
}

/** Counts of the pool's work, for tests and benches. */
export interface BodyDecoderStats {
  /** Bodies handed to a worker. */
  started: number;
  /** Bodies refused because the queue was full. */
  refused: number;
  /** Decodes stopped because their client went away (queued or running). */
  abandoned: number;
}

interface Job {
  task: DecodeTask;
  signal: AbortSignal | undefined;
  resolve(outcome: DecodeOutcome): void;
  reject(err: unknown): void;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker | undefined;
  job: Job | undefined;
}

/** The decoder pool (see the file comment). Workers start on first use and do not keep the process alive. */
export class BodyDecoderPool {
  readonly stats: BodyDecoderStats = { started: 0, refused: 0, abandoned: 0 };
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];
  private readonly maxQueued: number;
  private readonly heapMb: number;
  private closed = false;

  constructor(options: BodyDecoderPoolOptions = {}) {
    const threads = options.threads ?? 2;
    if (!Number.isInteger(threads) || threads < 1)
      throw new RangeError(`threads must be an integer ≥ 1, got ${threads}`);
    this.slots = Array.from({ length: threads }, () => ({ worker: undefined, job: undefined }));
    this.maxQueued = options.maxQueued ?? 8;
    this.heapMb = options.heapMb ?? 2048;
  }

  /**
   * Decode `task` in a worker. Rejects with a 503 HttpError when every worker is busy and the queue is full, and with
   * the signal's reason when `signal` aborts first (the decode is stopped). `task.bytes` is transferred (detached).
   */
  decode(task: DecodeTask, signal?: AbortSignal): Promise<DecodeOutcome> {
    if (this.closed) return Promise.reject(new HttpError(503, 'the service is shutting down'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    const free = this.slots.find((s) => s.job === undefined);
    if (free === undefined && this.queue.length >= this.maxQueued) {
      this.stats.refused++;
      return Promise.reject(
        new HttpError(
          503,
          `the service is already decoding ${this.slots.length} large request bodies with ${this.queue.length} more waiting (its limit); retry shortly`,
        ),
      );
    }
    return new Promise<DecodeOutcome>((resolve, reject) => {
      const job: Job = { task, signal, resolve, reject };
      if (signal !== undefined) {
        job.onAbort = () => this.abandon(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      if (free !== undefined) this.run(free, job);
      else this.queue.push(job);
    });
  }

  /** Bodies decoding now. */
  get running(): number {
    return this.slots.filter((s) => s.job !== undefined).length;
  }

  /** Stop every worker; queued and running decodes reject. */
  async close(): Promise<void> {
    this.closed = true;
    const err = new HttpError(503, 'the service is shutting down');
    for (const job of this.queue.splice(0)) this.settle(job, () => job.reject(err));
    await Promise.all(
      this.slots.map(async (slot) => {
        const { worker, job } = slot;
        slot.worker = undefined;
        slot.job = undefined;
        if (job !== undefined) this.settle(job, () => job.reject(err));
        if (worker !== undefined) await worker.terminate();
      }),
    );
  }

  private run(slot: Slot, job: Job): void {
    slot.job = job;
    this.stats.started++;
    const worker = slot.worker ?? this.start(slot);
    const bytes = job.task.bytes;
    const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
    const own = whole && bytes.buffer instanceof ArrayBuffer ? bytes : new Uint8Array(bytes);
    // A decoding worker keeps the process alive; an idle one does not.
    worker.ref();
    worker.postMessage({ ...job.task, bytes: own }, [own.buffer as ArrayBuffer]);
  }

  private start(slot: Slot): Worker {
    const worker = spawnPackageWorker('body-decoder-worker', {
      resourceLimits: { maxOldGenerationSizeMb: this.heapMb },
    });
    slot.worker = worker;
    worker.on('message', (msg: { outcome?: DecodeOutcome; crash?: string }) => {
      const job = slot.job;
      if (slot.worker !== worker || job === undefined) return;
      slot.job = undefined;
      worker.unref();
      if (msg.outcome !== undefined) {
        const outcome = msg.outcome;
        this.settle(job, () => job.resolve(outcome));
      } else this.settle(job, () => job.reject(new Error(`body decoder failed: ${msg.crash}`)));
      this.next(slot);
    });
    const lost = (why: string) => {
      if (slot.worker !== worker) return;
      slot.worker = undefined;
      const job = slot.job;
      slot.job = undefined;
      if (job !== undefined) this.settle(job, () => job.reject(new Error(`body decoder worker stopped: ${why}`)));
      this.next(slot);
    };
    worker.on('error', (err) => lost(err.message));
    worker.on('exit', (code) => lost(`exit code ${code}`));
    return worker;
  }

  private next(slot: Slot): void {
    const job = this.queue.shift();
    if (job !== undefined && !this.closed) this.run(slot, job);
  }

  /** The client went away: drop the job from the queue, or stop the worker decoding it. */
  private abandon(job: Job): void {
    const reason: unknown = job.signal?.reason;
    const i = this.queue.indexOf(job);
    if (i >= 0) {
      this.queue.splice(i, 1);
      this.stats.abandoned++;
      this.settle(job, () => job.reject(reason));
      return;
    }
    const slot = this.slots.find((s) => s.job === job);
    if (slot === undefined) return;
    this.stats.abandoned++;
    const worker = slot.worker;
    slot.worker = undefined;
    slot.job = undefined;
    this.settle(job, () => job.reject(reason));
    if (worker !== undefined) void worker.terminate();
    this.next(slot);
  }

  private settle(job: Job, fn: () => void): void {
    if (job.onAbort !== undefined) job.signal?.removeEventListener('abort', job.onAbort);
    fn();
  }
}

let shared: BodyDecoderPool | undefined;

/**
 * The process's pool (default options), shared by every server of the process and started on first use. Its idle
 * workers do not keep the process alive; it is never closed.
 */
export function sharedBodyDecoderPool(): BodyDecoderPool {
  shared ??= new BodyDecoderPool();
  return shared;
}
