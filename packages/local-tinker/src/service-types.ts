/**
 * The service's options and the records it keeps per session and per model (the types `ServiceState` and the
 * routes share).
 */
import type { ClockTimers } from './clock-cycle.js';
import type { BaseInfo } from './engine-protocol.js';
import type { ServiceLimits } from './limits.js';
import type { ModelQueue } from './model-queue.js';
import type { RunRecord } from './storage.js';

/** Options of the service. */
export interface ServiceOptions {
  /** Folder holding runs and checkpoints. */
  root: string;
  /** When set, every request (but healthz and signed downloads) must carry it in `X-API-Key`. */
  apiKey?: string | undefined;
  /** How long `retrieve_future` holds a pending future before answering try_again, ms. Default 20 000. */
  longPollMs?: number;
  /** How long a completed future stays retrievable, ms. Default 30 min. */
  futureTtlMs?: number;
  /** Bounds on one request (defaults in `DEFAULT_LIMITS`). */
  limits?: Partial<ServiceLimits>;
  /**
   * A session with no heartbeat (and no request) for this long has its models and samplers unloaded; their saved
   * checkpoints stay. 0 = never. Default 5 minutes (the SDK heartbeats every 10 s).
   */
  sessionTimeoutMs?: number;
  /** Engine worker threads. Default 1. */
  engineThreads?: number;
  /** Heap limit of each engine worker, MB. Default 4096. */
  engineHeapMb?: number;
  /** Keep the root under this many bytes, removing least recently used runs (not loaded ones). null = no cap. */
  maxRootBytes?: number | null;
  /** Remove runs not used for this many days (not loaded ones). null = keep. */
  maxRunAgeDays?: number | null;
  /** How often the root is pruned (and once at start), ms. Default 1 hour. */
  pruneIntervalMs?: number;
  /** Where one-line notices go. */
  log?: (message: string) => void;
  /**
   * Run training in lock-step cycles of this many ms, as the hosted service does (`clock-cycle.ts`; sampling is not
   * clocked); undefined or 0 = off (work runs as soon as a worker is free).
   */
  clockCycleMs?: number | undefined;
  /** With a clock: append one JSON line per cycle (start, duration, operations by kind) to this file. */
  clockCycleLogPath?: string | undefined;
  /** With a clock: its time source and timers (default: the real ones; tests drive a manual clock). */
  clockTimers?: ClockTimers | undefined;
  /**
   * Folders a `base_model` folder must lie in (after resolving symlinks); `'any'` accepts every folder, `[]` only
   * registered names. Default `'any'`; `startLocalTinker` gives a service bound beyond loopback `[]` unless told.
   */
  modelRoots?: readonly string[] | 'any';
}

/** A client session: its models and samplers, and when it was last heard from. */
export interface SessionState {
  id: string;
  createdAt: string;
  /** Last heartbeat or request that used the session, ms since the epoch. */
  lastSeen: number;
  runIds: Set<string>;
  samplerIds: Set<string>;
  tags: string[];
}

/** A loaded training model (a run) and its request queue. */
export interface ModelState {
  run: RunRecord;
  base: BaseInfo;
  /** The engine worker holding the model. */
  worker: number;
  sessionId: string | undefined;
  queue: ModelQueue;
  createRequestId: string;
  createHash: string;
}

/** {@link ServiceOptions} with every default filled in. */
export type ResolvedServiceOptions = Required<
  Omit<
    ServiceOptions,
    | 'apiKey'
    | 'limits'
    | 'maxRootBytes'
    | 'maxRunAgeDays'
    | 'clockCycleMs'
    | 'clockCycleLogPath'
    | 'clockTimers'
    | 'modelRoots'
  >
> & {
  apiKey: string | undefined;
  maxRootBytes: number | null;
  maxRunAgeDays: number | null;
  /** Resolved real paths, or 'any'. */
  modelRoots: readonly string[] | 'any';
};
