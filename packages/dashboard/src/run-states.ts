/**
 * The runs the dashboard has read, by id (the run folder's path relative to the runs folder): each one's metrics
 * store and, once asked for, its rollout index and timing store. Their metric cells are bounded over all runs: past
 * the bound the least recently used runs are dropped (never one a page follows live) and read again when asked.
 */
import { HttpError } from './http-error.js';
import { MetricsStore } from './metrics-store.js';
import type { RolloutIndex } from './rollout-index.js';
import { resolveInside } from './safe-path.js';
import type { TimingStore } from './timing-store.js';

/** What the dashboard holds of one run. */
export interface RunState {
  dir: string;
  metrics: MetricsStore;
  rollouts: RolloutIndex | undefined;
  timing: TimingStore | undefined;
  lastUsed: number;
}

/** The runs read so far under one runs folder. */
export class RunStates {
  private readonly runs = new Map<string, RunState>();

  /**
   * @param root - the runs folder (real path)
   * @param maxCells - metric cells kept over all runs before the least recently used runs are dropped
   */
  constructor(
    readonly root: string,
    private readonly maxCells: number,
  ) {}

  /** The real path of run `id` inside the runs folder; a 400, 403 or 404 naming it otherwise. */
  dir(id: string | null): string {
    if (id === null || id === '') throw new HttpError(400, 'missing ?id= (a run folder relative to the runs folder)');
    const r = resolveInside(this.root, id);
    if ('refused' in r) {
      if (r.refused === 'not found') throw new HttpError(404, `run ${id} is gone (its folder does not exist)`);
      throw new HttpError(403, `refused: ${id} (${r.refused})`);
    }
    return r.path;
  }

  /** Run `id`'s state (new when its folder is new or moved), marked as used now. */
  state(id: string): RunState {
    const dir = this.dir(id);
    let s = this.runs.get(id);
    if (s === undefined || s.dir !== dir) {
      s = { dir, metrics: new MetricsStore(dir), rollouts: undefined, timing: undefined, lastUsed: Date.now() };
      this.runs.set(id, s);
    }
    s.lastUsed = Date.now();
    return s;
  }

  /** Run `id`'s state if it is held, without resolving its folder again. */
  get(id: string): RunState | undefined {
    return this.runs.get(id);
  }

  /** Drops the least recently used runs until the cells fit the bound; never a run for which `keep` holds. */
  evict(keep: (id: string) => boolean): void {
    let total = 0;
    for (const s of this.runs.values()) total += s.metrics.cells();
    if (total <= this.maxCells) return;
    const order = [...this.runs.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed);
    for (const [id, s] of order) {
      if (total <= this.maxCells) break;
      if (keep(id)) continue;
      total -= s.metrics.cells();
      this.runs.delete(id);
    }
  }
}
