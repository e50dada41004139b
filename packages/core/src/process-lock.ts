/**
 * An owner lock for a folder shared by processes (the embedded service's root, a run's log folder): a lock file
 * holding the owner's pid, host, start time and what it is, created atomically (written under a temporary name and
 * hard-linked into place, so no reader sees half a file). A lock whose owner process is gone (killed, crashed) is
 * stale and taken over; a live owner's lock makes the next taker fail with {@link LockHeldError} naming that process.
 * The lock is removed on release and, as a courtesy, when the process exits normally.
 */
import { randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { CookbookError } from './errors.js';

/** What a lock file records about its owner. */
export interface LockOwner {
  pid: number;
  host: string;
  /** The owner process's start, as the kernel counts it (Linux: clock ticks since boot), when known. */
  startTicks?: number;
  /** When the lock was taken, ISO 8601. */
  since: string;
  /** What holds it, e.g. `cookbook sl_basic` or `local-tinker service`. */
  what: string;
}

/** The lock is held by another live process (`owner`). */
export class LockHeldError extends CookbookError {
  override name = 'LockHeldError';
  constructor(
    message: string,
    readonly owner: LockOwner,
  ) {
    super(message);
  }
}

/** A lock this process holds. */
export interface HeldLock {
  readonly file: string;
  /** Removes the lock file if it is still this holder's (idempotent). */
  release(): void;
}

/** A process's start time (Linux `/proc/<pid>/stat` field 22), to tell a live owner from a recycled pid. */
function startTicksOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(rest[19]);
    return Number.isFinite(ticks) ? ticks : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the process `owner` names still runs (a lock of another host is assumed live: it cannot be checked). */
export function lockOwnerAlive(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return true;
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (owner.startTicks === undefined) return true;
  const now = startTicksOf(owner.pid);
  return now === undefined || now === owner.startTicks;
}

/** The owner recorded in `file`, or undefined when there is none (or it is not a lock this code wrote). */
export function readLockOwner(file: string): LockOwner | undefined {
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const v = JSON.parse(raw) as Partial<LockOwner>;
    if (typeof v.pid !== 'number' || typeof v.host !== 'string') return undefined;
    return {
      pid: v.pid,
      host: v.host,
      ...(typeof v.startTicks === 'number' ? { startTicks: v.startTicks } : {}),
      since: typeof v.since === 'string' ? v.since : '?',
      what: typeof v.what === 'string' ? v.what : 'another process',
    };
  } catch {
    return undefined;
  }
}

/** `pid 123 (cookbook sl_basic, since 2026-…)`, `on host x` when it is another machine. */
export function describeLockOwner(owner: LockOwner): string {
  const host = owner.host === hostname() ? '' : ` on host ${owner.host}`;
  return `pid ${owner.pid}${host} (${owner.what}, since ${owner.since})`;
}

const held = new Map<string, string>();
let exitHook = false;

/** Remove the lock files this process still holds when it exits (a crash leaves them; they are then stale). */
function releaseAllAtExit(): void {
  for (const [file, token] of held) {
    try {
      if (readFileSync(file, 'utf8').includes(token)) unlinkSync(file);
    } catch {
      // gone already
    }
  }
  held.clear();
}

/** Creates `file` holding `content` iff it does not exist (atomic, no partial file visible). */
function createExclusive(file: string, content: string): boolean {
  const tmp = `${file}.${randomUUID()}.tmp`;
  writeFileSync(tmp, content);
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // removed by someone cleaning the folder
    }
  }
}

/**
 * Takes the lock `file` for this process, creating its folder if needed. A stale lock (its process is gone) is
 * taken over; a live one throws {@link LockHeldError} with `describe(owner)` as the message.
 */
export function acquireProcessLock(
  file: string,
  what: string,
  describe: (owner: LockOwner) => string = (o) => `${file} is locked by ${describeLockOwner(o)}`,
): HeldLock {
  mkdirSync(dirname(file), { recursive: true });
  const token = randomUUID();
  const ticks = startTicksOf(process.pid);
  const owner = {
    pid: process.pid,
    host: hostname(),
    ...(ticks !== undefined ? { startTicks: ticks } : {}),
    since: new Date().toISOString(),
    what,
    token,
  };
  const content = `${JSON.stringify(owner)}\n`;
  for (let attempt = 0; ; attempt++) {
    if (createExclusive(file, content)) break;
    const current = readLockOwner(file);
    const raw = safeRead(file);
    if (current !== undefined && lockOwnerAlive(current)) throw new LockHeldError(describe(current), current);
    if (attempt >= 5) {
      throw new LockHeldError(describe(current ?? { pid: 0, host: '?', since: '?', what: 'unknown' }), {
        pid: current?.pid ?? 0,
        host: current?.host ?? '?',
        since: current?.since ?? '?',
        what: current?.what ?? 'unknown',
      });
    }
    // Stale (or unreadable): remove it under a take-over guard, so two processes taking it over do not remove
    // each other's fresh lock.
    const guard = `${file}.takeover`;
    if (!createExclusive(guard, content)) {
      const g = readLockOwner(guard);
      if (g === undefined || !lockOwnerAlive(g)) safeUnlink(guard);
      continue;
    }
    try {
      if (safeRead(file) === raw) safeUnlink(file);
    } finally {
      safeUnlink(guard);
    }
  }
  held.set(file, token);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', releaseAllAtExit);
  }
  return {
    file,
    release() {
      if (held.get(file) !== token) return;
      held.delete(file);
      if (safeRead(file)?.includes(token)) safeUnlink(file);
    },
  };
}

function safeRead(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function safeUnlink(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}
