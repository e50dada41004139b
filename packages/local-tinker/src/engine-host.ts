/**
 * Runs engine operations in worker threads so the HTTP event loop stays free (healthz, polls and heartbeats answer
 * while a long training or sampling operation runs). Each worker owns the models and samplers placed on it;
 * operations are messages (`engine-protocol.ts`).
 *
 * The host keeps one FIFO queue per worker and sends what may run now (`pump` is the one place that picks it), so
 * queued work stays here, where it can be inspected, cancelled or held for its clock cycle. Invariants: the
 * operations of one model or sampler reach the worker in queue order, and an operation other than a sample is sent
 * only when nothing else of its model or sampler is in flight; samples are sent at once, on any sampler (the worker
 * decodes them in turns: `engine-worker.ts`), and at most one other operation is in flight per worker, beside them;
 * a cancelled queued operation never starts, a cancelled running sample stops at its next decode step; a worker
 * that dies (out of memory, a crash) fails only its own operations, reports the models and samplers it held
 * through `onLost`, and is replaced on the next operation.
 */
import type { Worker } from 'node:worker_threads';
import { CookbookError } from '@cookbook/core';
import type { ClockCycle } from './clock-cycle.js';
import {
  CANCEL_SLOTS,
  type EngineFailure,
  type EngineOp,
  type EngineOpKind,
  type EngineOpResult,
  type EngineProgress,
  type EngineReady,
  type EngineResponse,
  type EngineWorkerData,
  type SequenceProgress,
  STAT_DECODE_STEPS,
  STAT_SLOTS,
} from './engine-protocol.js';
import { spawnPackageWorker } from './worker-spawn.js';

/** An operation failed inside a worker; `name` is the engine error class (EngineInputError, …). */
export class EngineOpError extends CookbookError {
  override name = 'EngineOpError';
  constructor(
    readonly failure: EngineFailure,
    readonly kind: EngineOpKind,
  ) {
    super(failure.message);
  }
}

/** The operation was cancelled before or while it ran. */
export class EngineOpCancelled extends CookbookError {
  override name = 'EngineOpCancelled';
}

/** The worker running (or holding) the operation stopped. */
export class EngineWorkerLost extends CookbookError {
  override name = 'EngineWorkerLost';
}

/** Options of {@link EngineHost}. */
export interface EngineHostOptions {
  /** Worker threads; models and samplers are spread over them. Default 1. */
  threads?: number;
  /** Heap limit of each worker, MB: a request that exhausts it ends that worker, not the service. Default 4096. */
  heapMb?: number;
  /** Called when a worker stops unexpectedly, with the residents it held. */
  onLost?: (residents: string[], reason: string) => void;
  /** Hold operations given a cycle in `run` until that cycle starts (the opt-in clock-cycle model). */
  clock?: ClockCycle | undefined;
}

interface Queued {
  id: number;
  op: EngineOp;
  /** Who the operation belongs to (a session id), for cancellation. */
  owner: string | undefined;
  /** The request it serves (a future's id), for cancelling that request alone. */
  tag: string | undefined;
  /** Why it was cancelled while running. */
  cancelled?: string;
  /** The clock cycle it was admitted to (undefined: it runs as soon as the worker is free). */
  cycle: number | undefined;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  /** Gets a streamed sample's tokens as they are picked. */
  onProgress: ((progress: SequenceProgress[]) => void) | undefined;
}

interface Slot {
  worker: Worker | undefined;
  ready: Promise<void> | undefined;
  /** The shared cancel ring and the next entry to write. */
  cancel: Int32Array;
  cancelNext: number;
  queue: Queued[];
  /** True once the worker listens (operations are posted only then). */
  live: boolean;
  /** Operations posted to the worker and not answered yet, by id. */
  inflight: Map<number, Queued>;
  /** Models and samplers placed on this worker. */
  residents: Set<string>;
}

let nextOpId = 0;

/** The model or sampler an operation acts on (the one whose memory it reports). */
function residentOf(op: EngineOp): string {
  return 'modelId' in op ? op.modelId : op.samplerId;
}

/** Every model and sampler an operation touches (a snapshot touches its model and makes its sampler). */
function residentsOf(op: EngineOp): string[] {
  return op.kind === 'snapshotSampler' ? [op.modelId, op.samplerId] : [residentOf(op)];
}

/** How a worker thread is started: the built `.js`, or the `.ts` source through tsx (tests, `pnpm cookbook`). */
function spawn(data: EngineWorkerData, heapMb: number): Worker {
  return spawnPackageWorker('engine-worker', { workerData: data, resourceLimits: { maxOldGenerationSizeMb: heapMb } });
}

export class EngineHost {
  private readonly slots: Slot[];
  private readonly heapMb: number;
  private readonly onLost: (residents: string[], reason: string) => void;
  private idleWaiters: (() => void)[] = [];
  /** Samples sent while another sample of their sampler was in flight (to join its batch), since the start. */
  samplesJoined = 0;
  /** Memory each training model holds in its worker, bytes, as last reported. */
  private readonly residentBytes = new Map<string, number>();
  private closed = false;
  private readonly clock: ClockCycle | undefined;
  /** Counters every worker adds to (`STAT_*` of engine-protocol.ts). */
  private readonly stats = new Int32Array(new SharedArrayBuffer(4 * STAT_SLOTS));

  constructor(options: EngineHostOptions = {}) {
    const n = Math.max(1, Math.floor(options.threads ?? 1));
    this.clock = options.clock;
    if (this.clock) this.clock.onBoundary = () => this.pumpAll();
    this.heapMb = options.heapMb ?? 4096;
    this.onLost = options.onLost ?? (() => undefined);
    this.slots = Array.from({ length: n }, () => ({
      worker: undefined,
      ready: undefined,
      cancel: new Int32Array(new SharedArrayBuffer(4 * CANCEL_SLOTS)),
      cancelNext: 0,
      queue: [],
      live: false,
      inflight: new Map(),
      residents: new Set(),
    }));
  }

  /** Where a new resident (model or sampler) goes: the worker holding the fewest. */
  place(resident: string): number {
    let best = 0;
    for (let i = 1; i < this.slots.length; i++) {
      if (this.slots[i]!.residents.size < this.slots[best]!.residents.size) best = i;
    }
    this.slots[best]!.residents.add(resident);
    return best;
  }

  /** Place `resident` on a given worker (a sampler snapshot lives with its model). */
  pin(worker: number, resident: string): void {
    this.slots[worker]?.residents.add(resident);
  }

  /** Forget a resident (after its drop operation was queued). */
  evict(worker: number, resident: string): void {
    this.slots[worker]?.residents.delete(resident);
    this.residentBytes.delete(resident);
  }

  /** The memory a training model holds in its worker, bytes, as of its last operation (0 if unknown). */
  bytesOf(resident: string): number {
    return this.residentBytes.get(resident) ?? 0;
  }

  /** Decode steps run by every worker since the start (one per token position of a batch). */
  get decodeSteps(): number {
    return Atomics.load(this.stats, STAT_DECODE_STEPS);
  }

  /**
   * Queue `op` on `worker`; resolves with its result. With a clock, an operation given the `cycle` it was admitted
   * to starts only once that cycle runs. `tag` names the request it serves, for {@link cancelTag}. `onProgress` gets
   * the tokens of a sample sent with `progress: true` as they are picked (each sequence's new ones), before it
   * resolves.
   */
  run<K extends EngineOpKind>(
    worker: number,
    op: Extract<EngineOp, { kind: K }>,
    owner?: string,
    cycle?: number,
    tag?: string,
    onProgress?: (progress: SequenceProgress[]) => void,
  ): Promise<EngineOpResult[K]> {
    if (this.closed) return Promise.reject(new EngineWorkerLost('the engine is shut down'));
    const slot = this.slots[worker]!;
    const clock = this.clock;
    const gated = clock !== undefined && cycle !== undefined;
    return new Promise<EngineOpResult[K]>((resolve, reject) => {
      nextOpId = (nextOpId % 0x7fff_ffff) + 1; // ids fit the Int32 cancel flag
      const q: Queued = {
        id: nextOpId,
        op,
        owner,
        tag,
        cycle: gated ? cycle : undefined,
        resolve: resolve as (v: unknown) => void,
        reject,
        onProgress,
      };
      if (gated) {
        clock.queued(cycle);
        q.resolve = (v) => {
          clock.settled(q.cycle!);
          resolve(v as EngineOpResult[K]);
        };
        q.reject = (e) => {
          clock.settled(q.cycle!);
          reject(e);
        };
      }
      slot.queue.push(q);
      this.pump(slot);
    });
  }

  /** Cancel `owner`'s queued operations and its running samples. Returns how many were cancelled. */
  cancelOwner(owner: string, reason: string): number {
    return this.cancelWhere((q) => q.owner === owner, reason);
  }

  /**
   * Cancel the sample tagged `tag` (one request): dropped from its queue if it has not started, else stopped at its
   * next decode step. Returns how many operations were cancelled.
   */
  cancelTag(tag: string, reason: string): number {
    return this.cancelWhere((q) => q.tag === tag && q.op.kind === 'sample', reason);
  }

  private cancelWhere(match: (q: Queued) => boolean, reason: string): number {
    let n = 0;
    for (const slot of this.slots) {
      const keep: Queued[] = [];
      for (const q of slot.queue) {
        if (match(q) && (q.op.kind === 'sample' || q.op.kind === 'loadSampler')) {
          q.reject(new EngineOpCancelled(reason));
          n++;
        } else keep.push(q);
      }
      slot.queue = keep;
      for (const r of slot.inflight.values()) {
        if (r.cancelled === undefined && match(r) && r.op.kind === 'sample') {
          r.cancelled = reason;
          Atomics.store(slot.cancel, slot.cancelNext, r.id);
          slot.cancelNext = (slot.cancelNext + 1) % CANCEL_SLOTS;
          n++;
        }
      }
    }
    return n;
  }

  /** Operations queued or running, over all workers. */
  get pending(): number {
    return this.slots.reduce((a, s) => a + s.queue.length + s.inflight.size, 0);
  }

  /** Resolves once nothing is queued or running. */
  idle(): Promise<void> {
    return this.pending === 0 ? Promise.resolve() : new Promise((r) => this.idleWaiters.push(r));
  }

  /** Stop every worker (queued and running operations fail; a running one is cut short). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        const stopped = new EngineWorkerLost('the engine is shut down');
        for (const q of slot.queue.splice(0)) q.reject(stopped);
        for (const q of slot.inflight.values()) q.reject(stopped);
        slot.inflight.clear();
        slot.live = false;
        const w = slot.worker;
        slot.worker = undefined;
        if (w) await w.terminate();
      }),
    );
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private pumpAll(): void {
    for (const slot of this.slots) this.pump(slot);
  }

  private start(slot: Slot): Worker {
    const w = spawn(
      { cancel: slot.cancel.buffer as SharedArrayBuffer, stats: this.stats.buffer as SharedArrayBuffer },
      this.heapMb,
    );
    w.unref();
    slot.worker = w;
    slot.ready = new Promise<void>((resolve, reject) => {
      const onMessage = (m: EngineReady | EngineResponse | EngineProgress) => {
        if ('ready' in m) {
          w.off('error', onError);
          resolve();
          return;
        }
        this.finish(slot, m);
      };
      const onError = (err: unknown) => reject(err);
      w.on('message', onMessage);
      w.once('error', onError);
    });
    slot.ready.catch(() => undefined);
    w.on('error', (err) => this.lose(slot, w, err instanceof Error ? err.message : String(err)));
    w.on('exit', (code) => this.lose(slot, w, `it exited with code ${code}`));
    return w;
  }

  /**
   * Sends every queued operation that may run now, in queue order: a sample unless an earlier operation of its
   * sampler is still queued or an operation other than a sample is in flight on it; another operation unless an
   * earlier one of its model or sampler is queued, anything of theirs is in flight, or another such operation is in
   * flight. With a clock, an operation waiting for its cycle is passed over by later ones that may run now — never
   * by one for the same model or sampler, so each resident's operations keep their order.
   */
  private pump(slot: Slot): void {
    if (this.closed) return;
    if (!slot.worker) {
      if (slot.queue.length === 0) {
        this.checkIdle();
        return;
      }
      let worker: Worker;
      try {
        worker = this.start(slot);
      } catch (err) {
        const lost = new EngineWorkerLost(
          `the engine worker could not start: ${err instanceof Error ? err.message : String(err)}`,
        );
        for (const q of slot.queue.splice(0)) q.reject(lost);
        this.checkIdle();
        return;
      }
      slot.ready!.then(
        () => {
          if (slot.worker !== worker) return;
          slot.live = true;
          this.pump(slot);
        },
        (err: unknown) =>
          this.lose(slot, worker, `it failed to start: ${err instanceof Error ? err.message : String(err)}`),
      );
      return;
    }
    if (!slot.live) return;
    const w = slot.worker;
    const clock = this.clock;
    const sampling = new Set<string>();
    const operating = new Set<string>();
    let opInFlight = false;
    for (const r of slot.inflight.values()) {
      if (r.op.kind === 'sample') sampling.add(r.op.samplerId);
      else {
        opInFlight = true;
        for (const who of residentsOf(r.op)) operating.add(who);
      }
    }
    const waiting = new Set<string>();
    for (let i = 0; i < slot.queue.length; i++) {
      const q = slot.queue[i]!;
      const who = residentsOf(q.op);
      if (clock && q.cycle !== undefined && clock.eligible(q.cycle) && clock.steppedThisCycle(who[0]!)) {
        // A model takes one optimizer step per cycle: what follows its step waits for the next cycle.
        q.cycle = clock.defer(q.cycle);
      }
      const eligible = !clock || q.cycle === undefined || clock.eligible(q.cycle);
      const free = who.every((x) => !waiting.has(x) && !operating.has(x));
      const send = eligible && free && (q.op.kind === 'sample' || (!opInFlight && who.every((x) => !sampling.has(x))));
      if (!send) {
        for (const x of who) waiting.add(x);
        continue;
      }
      slot.queue.splice(i--, 1);
      if (q.cycle !== undefined) clock?.started(q.op.kind, who[0]!);
      if (q.op.kind === 'sample') {
        if (sampling.has(q.op.samplerId)) this.samplesJoined++;
        sampling.add(q.op.samplerId);
      } else {
        opInFlight = true;
        for (const x of who) operating.add(x);
      }
      slot.inflight.set(q.id, q);
      w.postMessage({ id: q.id, op: q.op });
    }
    this.checkIdle();
  }

  private finish(slot: Slot, m: EngineResponse | EngineProgress): void {
    const q = slot.inflight.get(m.id);
    if (!q) return;
    if ('progress' in m) {
      q.onProgress?.(m.progress);
      return;
    }
    slot.inflight.delete(m.id);
    if (m.ok && m.bytes !== undefined && slot.residents.has(residentOf(q.op))) {
      this.residentBytes.set(residentOf(q.op), m.bytes);
    }
    if (m.ok) q.resolve(m.value);
    else if (m.error.name === 'EngineCancelledError') q.reject(new EngineOpCancelled(q.cancelled ?? m.error.message));
    else q.reject(new EngineOpError(m.error, q.op.kind));
    this.pump(slot);
  }

  /** A worker stopped: fail what it was running and report what it held; the next operation starts a new one. */
  private lose(slot: Slot, worker: Worker, why: string): void {
    if (slot.worker !== worker) return;
    const wasLive = slot.live;
    slot.worker = undefined;
    slot.ready = undefined;
    slot.live = false;
    const residents = [...slot.residents];
    slot.residents.clear();
    for (const r of residents) this.residentBytes.delete(r);
    const lost = [...slot.inflight.values()];
    slot.inflight.clear();
    // A worker that stopped before it listened fails the operation it was started for (the next one starts another).
    const first = wasLive ? undefined : slot.queue.shift();
    if (first) lost.push(first);
    if (!this.closed) {
      const reason = `the engine worker stopped (${why})`;
      for (const q of lost) q.reject(new EngineWorkerLost(reason));
      if (residents.length > 0) this.onLost(residents, reason);
      this.pump(slot);
    }
  }

  private checkIdle(): void {
    if (this.pending === 0) for (const w of this.idleWaiters.splice(0)) w();
  }
}
