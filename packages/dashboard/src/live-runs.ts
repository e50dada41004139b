/**
 * Live updates of open runs as server-sent events: a watcher on each run folder a page follows (inotify, with a stat
 * poll as a fallback) reads the bytes appended to `metrics.jsonl` and pushes the new rows, the checkpoint records
 * when `checkpoints.jsonl` changes, and the rollout count when new rollouts are indexed; `gone` when the folder goes.
 */
import { type FSWatcher, watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { readSmallJsonl } from './run-folders.js';
import type { RunState, RunStates } from './run-states.js';
import { realInside } from './safe-path.js';

/** The pages following one run, and what they were last sent. */
interface Live {
  clients: Set<ServerResponse>;
  watcher: FSWatcher | undefined;
  timer: NodeJS.Timeout;
  busy: boolean;
  dirty: boolean;
  checkpointsSize: number;
  rolloutSize: number;
}

/** Writes one server-sent event. */
function send(res: ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** The runs pages follow live, each with its watcher and its pages' event streams. */
export class LiveRuns {
  private readonly lives = new Map<string, Live>();

  /** @param pollMs - poll interval of the fallback stat watcher, ms */
  constructor(
    private readonly states: RunStates,
    private readonly pollMs: number,
  ) {}

  /** Whether a page follows run `id`. */
  has(id: string): boolean {
    return this.lives.has(id);
  }

  /** Reads the rows appended to a run's metrics; when pages follow the run live, they get them (whoever reads). */
  async updateMetrics(id: string, s: RunState) {
    if (!realInside(this.states.root, join(s.dir, 'metrics.jsonl'))) return { rows: [], reset: false, missing: true };
    const live = this.lives.get(id);
    const r = await s.metrics.update(live !== undefined);
    if (live !== undefined) {
      if (r.reset) for (const c of live.clients) send(c, 'reset', { id });
      else if (r.rows.length > 0) for (const c of live.clients) send(c, 'metrics', { id, rows: r.rows });
    }
    return r;
  }

  /** Adds `res` (an open event stream) to run `id`'s followers, watching the run from its first follower on. */
  async subscribe(id: string, res: ServerResponse): Promise<void> {
    const s = this.states.state(id);
    await this.updateMetrics(id, s);
    let live = this.lives.get(id);
    if (live === undefined) {
      const l: Live = {
        clients: new Set(),
        watcher: undefined,
        timer: setInterval(() => void this.pump(id, l), this.pollMs),
        busy: false,
        dirty: false,
        checkpointsSize: -1,
        rolloutSize: s.rollouts?.size ?? 0,
      };
      try {
        l.watcher = watch(s.dir, () => void this.pump(id, l));
        l.watcher.on('error', () => void this.pump(id, l));
      } catch {
        l.watcher = undefined;
      }
      live = l;
      this.lives.set(id, l);
    }
    live.clients.add(res);
    const l = live;
    res.on('close', () => {
      l.clients.delete(res);
      if (l.clients.size === 0) this.stop(id);
    });
    // Rows appended between the page's fetch and this subscription are sent now (the page drops steps it has).
    send(res, 'hello', { id, rowCount: s.metrics.rowCount });
  }

  /** Stops every watcher and ends every event stream. */
  close(): void {
    for (const id of [...this.lives.keys()]) this.stop(id);
  }

  private async pump(id: string, live: Live): Promise<void> {
    if (live.busy) {
      live.dirty = true;
      return;
    }
    live.busy = true;
    try {
      do {
        live.dirty = false;
        const s = this.states.get(id);
        let dir: string | undefined;
        try {
          dir = this.states.dir(id);
        } catch {
          dir = undefined;
        }
        if (dir === undefined || s === undefined) {
          for (const c of live.clients) send(c, 'gone', { id });
          this.stop(id);
          return;
        }
        await this.updateMetrics(id, s);
        try {
          const size = (await stat(join(dir, 'checkpoints.jsonl'))).size;
          if (size !== live.checkpointsSize) {
            live.checkpointsSize = size;
            const ck = await readSmallJsonl(join(dir, 'checkpoints.jsonl'));
            for (const c of live.clients) send(c, 'checkpoints', { id, records: ck.records });
          }
        } catch {
          // no checkpoints yet
        }
        if (s.rollouts !== undefined) {
          await s.rollouts.update();
          if (s.rollouts.size !== live.rolloutSize) {
            live.rolloutSize = s.rollouts.size;
            for (const c of live.clients) send(c, 'rollouts', { id, size: s.rollouts.size });
          }
        }
      } while (live.dirty);
    } catch {
      // a transient read error (a file replaced mid-read): the next event or poll tries again
    } finally {
      live.busy = false;
    }
  }

  private stop(id: string): void {
    const live = this.lives.get(id);
    if (live === undefined) return;
    this.lives.delete(id);
    live.watcher?.close();
    clearInterval(live.timer);
    for (const c of live.clients) c.end();
  }
}
