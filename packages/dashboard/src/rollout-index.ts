/**
 * An index of a run's rollout summaries (`iteration_NNNNNN/<split>_rollout_summaries.jsonl`, upstream's format, one
 * line per trajectory): per line its file, byte range, iteration, split, reward, environment tag and truncation
 * reason, kept in flat arrays (about 40 bytes a rollout). Filtering scans the index; a trajectory's full line is read
 * by its byte range, so no rollout file is ever held whole. Lines are indexed by scanning their bytes for those few
 * fields ({@link scanRolloutLine}), not by parsing them. Files are read incrementally, a few at a time: a live run's
 * new lines are indexed on the next query.
 */
import { type Dirent, readdirSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { JsonlTail, readRange, type TailRead } from './jsonl-tail.js';
import { type RolloutFields, scanRolloutLine } from './rollout-scan.js';
import { realInside } from './safe-path.js';

const FILE_RE = /^(.+)_rollout_summaries\.jsonl$/;
const ITER_RE = /^iteration_(\d+)$/;
/** Rollout files read at once while indexing. */
const READ_CONCURRENCY = 8;
/** Largest rollout line read for the detail view, bytes (longer ones are cut and flagged). */
export const MAX_DETAIL_BYTES = 16 * 1024 * 1024;

/** One indexed rollout as listed. */
export interface RolloutRow {
  n: number;
  iteration: number;
  split: string;
  group: number;
  traj: number;
  reward: number;
  env: string;
  truncation: string;
  turns: number;
}

/** A query over the index. */
export interface RolloutQuery {
  stepMin?: number;
  stepMax?: number;
  rewardMin?: number;
  rewardMax?: number;
  env?: string;
  truncation?: string;
  split?: string;
  offset?: number;
  limit?: number;
}

interface FileEntry {
  path: string;
  split: string;
  iteration: number;
  tail: JsonlTail<RolloutFields>;
}

/** The rollout index of one run folder. */
export class RolloutIndex {
  private files: FileEntry[] = [];
  private readonly known = new Set<string>();
  /** Iteration folders listed, with the mtime they had then. */
  private readonly listed = new Map<string, number>();
  // Parallel columns, one entry per indexed rollout.
  private fileOf: number[] = [];
  private start: number[] = [];
  private length: number[] = [];
  private iteration: number[] = [];
  private group: number[] = [];
  private traj: number[] = [];
  private reward: number[] = [];
  private envOf: number[] = [];
  private truncOf: number[] = [];
  private turnsOf: number[] = [];
  private readonly strings: string[] = [];
  private readonly stringIds = new Map<string, number>();
  /** Rollout counts the writers recorded when they sampled (`rollouts_total` on a line), per file. */
  private readonly totals = new Map<number, number>();

  /**
   * `runDir`: the run folder's real path, inside `root` (the runs folder, a real path); rollout files and folders that
   * are symlinks whose real path leaves `root` are not read.
   */
  constructor(
    readonly runDir: string,
    private readonly root: string,
  ) {}

  get size(): number {
    return this.fileOf.length;
  }

  /** Lines skipped as malformed, over every file. */
  get skipped(): number {
    return this.files.reduce((s, f) => s + f.tail.skipped, 0);
  }

  /** Picks up new iteration folders and new lines. */
  async update(): Promise<void> {
    // Listing is synchronous and an iteration folder is listed again only when its mtime moved (a file was added or
    // replaced): a live run polls this, and a long run has hundreds of folders.
    // Real paths are resolved only for symlinks: the run folder is a real path inside the runs folder, so a plain
    // folder or file below it is inside too (resolving 500 paths cost more than indexing them).
    let dirs: Dirent[];
    try {
      dirs = readdirSync(this.runDir, { withFileTypes: true })
        .filter((d) => ITER_RE.test(d.name))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch {
      return;
    }
    for (const d of dirs) {
      const dir = join(this.runDir, d.name);
      const dirInside = d.isDirectory() || (d.isSymbolicLink() && realInside(this.root, dir));
      if (!dirInside) continue;
      let names: Dirent[];
      try {
        const mtime = statSync(dir).mtimeMs;
        if (this.listed.get(d.name) === mtime) continue;
        names = readdirSync(dir, { withFileTypes: true });
        this.listed.set(d.name, mtime);
      } catch {
        continue;
      }
      for (const f of names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
        const m = FILE_RE.exec(f.name);
        const path = join(dir, f.name);
        if (m === null || this.known.has(path)) continue;
        const inside = f.isFile() || (f.isSymbolicLink() && realInside(this.root, path));
        if (!inside) continue;
        this.known.add(path);
        this.files.push({
          path,
          split: m[1]!,
          iteration: Number(ITER_RE.exec(d.name)![1]),
          tail: new JsonlTail(path, { decode: scanRolloutLine }),
        });
      }
    }
    // Read a few files at a time; index their lines in file order.
    for (let from = 0; from < this.files.length; from += READ_CONCURRENCY) {
      const batch = this.files.slice(from, from + READ_CONCURRENCY);
      const reads: TailRead<RolloutFields>[] = await Promise.all(batch.map((file) => file.tail.readNew()));
      reads.forEach((read, k) => {
        const f = from + k;
        if (read.reset) this.dropFile(f);
        for (const line of read.lines) this.add(f, batch[k]!, line.value, line.start, line.length);
      });
    }
  }

  private dropFile(f: number): void {
    const keep = this.fileOf.map((x) => x !== f);
    const filter = (a: number[]) => a.filter((_, i) => keep[i]);
    this.fileOf = filter(this.fileOf);
    this.start = filter(this.start);
    this.length = filter(this.length);
    this.iteration = filter(this.iteration);
    this.group = filter(this.group);
    this.traj = filter(this.traj);
    this.reward = filter(this.reward);
    this.envOf = filter(this.envOf);
    this.truncOf = filter(this.truncOf);
    this.turnsOf = filter(this.turnsOf);
    this.totals.delete(f);
  }

  private intern(s: string): number {
    let id = this.stringIds.get(s);
    if (id === undefined) {
      id = this.strings.length;
      this.strings.push(s);
      this.stringIds.set(s, id);
    }
    return id;
  }

  private add(f: number, file: FileEntry, r: RolloutFields, start: number, length: number): void {
    if (r.rolloutsTotal !== undefined) this.totals.set(f, r.rolloutsTotal);
    this.fileOf.push(f);
    this.start.push(start);
    this.length.push(length);
    this.iteration.push(r.iteration ?? file.iteration);
    this.group.push(r.group ?? -1);
    this.traj.push(r.traj ?? -1);
    this.reward.push(r.reward ?? Number.NaN);
    this.envOf.push(this.intern(r.tags.join(',')));
    // The writer's `truncation`, else a step's `stop_reason` of `length` (or `truncated`), else ''.
    this.truncOf.push(this.intern(r.truncation ?? (r.stepTruncated ? 'length' : '')));
    this.turnsOf.push(r.steps);
  }

  /** Environment tags and truncation reasons seen, with iteration range (for the filter controls). */
  facets(): { envs: string[]; truncations: string[]; splits: string[]; iterations: number[]; total: number } {
    const envs = new Set<string>();
    const truncs = new Set<string>();
    const its = new Set<number>();
    for (let i = 0; i < this.size; i++) {
      envs.add(this.strings[this.envOf[i]!]!);
      truncs.add(this.strings[this.truncOf[i]!]!);
      its.add(this.iteration[i]!);
    }
    const logged = [...this.totals.values()].reduce((a, b) => a + b, 0);
    return {
      envs: [...envs].sort(),
      truncations: [...truncs].sort(),
      splits: [...new Set(this.files.map((f) => f.split))].sort(),
      iterations: [...its].sort((a, b) => a - b),
      total: Math.max(this.size, logged),
    };
  }

  /** The rollouts matching `q` (a page of them) and how many match. */
  query(q: RolloutQuery): { rows: RolloutRow[]; matched: number } {
    const rows: RolloutRow[] = [];
    const offset = Math.max(0, q.offset ?? 0);
    const limit = Math.min(Math.max(1, q.limit ?? 100), 1000);
    const envId = q.env === undefined ? -1 : (this.stringIds.get(q.env) ?? -2);
    const truncId = q.truncation === undefined ? -1 : (this.stringIds.get(q.truncation) ?? -2);
    let matched = 0;
    for (let i = 0; i < this.size; i++) {
      const it = this.iteration[i]!;
      const rw = this.reward[i]!;
      if (q.stepMin !== undefined && it < q.stepMin) continue;
      if (q.stepMax !== undefined && it > q.stepMax) continue;
      if (q.rewardMin !== undefined && !(rw >= q.rewardMin)) continue;
      if (q.rewardMax !== undefined && !(rw <= q.rewardMax)) continue;
      if (envId !== -1 && this.envOf[i] !== envId) continue;
      if (truncId !== -1 && this.truncOf[i] !== truncId) continue;
      if (q.split !== undefined && this.files[this.fileOf[i]!]!.split !== q.split) continue;
      if (matched >= offset && rows.length < limit) rows.push(this.row(i));
      matched++;
    }
    return { rows, matched };
  }

  private row(i: number): RolloutRow {
    return {
      n: i,
      iteration: this.iteration[i]!,
      split: this.files[this.fileOf[i]!]!.split,
      group: this.group[i]!,
      traj: this.traj[i]!,
      reward: this.reward[i]!,
      env: this.strings[this.envOf[i]!]!,
      truncation: this.strings[this.truncOf[i]!]!,
      turns: this.turnsOf[i]!,
    };
  }

  /** The full record of rollout `n`, read by its byte range. */
  async detail(n: number): Promise<{ row: RolloutRow; record: unknown; cut: boolean } | undefined> {
    if (!Number.isInteger(n) || n < 0 || n >= this.size) return undefined;
    const len = this.length[n]!;
    const text = await readRange(this.files[this.fileOf[n]!]!.path, this.start[n]!, Math.min(len, MAX_DETAIL_BYTES));
    if (len > MAX_DETAIL_BYTES) return { row: this.row(n), record: null, cut: true };
    try {
      return { row: this.row(n), record: JSON.parse(text), cut: false };
    } catch {
      return { row: this.row(n), record: null, cut: true };
    }
  }

  /** The paths of the logtree JSON files of an iteration (upstream's `<name>_logtree.json`). */
  async logtrees(iteration: number): Promise<string[]> {
    const dir = join(this.runDir, `iteration_${String(iteration).padStart(6, '0')}`);
    try {
      return (await readdir(dir))
        .filter((n) => n.endsWith('_logtree.json') || n === 'logtree.json')
        .sort()
        .map((n) => join(dir, n));
    } catch {
      return [];
    }
  }
}
