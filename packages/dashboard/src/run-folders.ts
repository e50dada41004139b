/**
 * Finding runs below the runs folder and reading their small files. A run folder holds `metrics.jsonl` or
 * `config.json` (this project's and upstream's layout); an eval folder holds `results.json` (this project's eval
 * runner) or `<benchmark>/result.json` (upstream's). Status is upstream's rule: `running` when `metrics.jsonl` was
 * written in the last {@link ACTIVE_SECONDS} s, else `completed` when a checkpoint record says `final`, else `idle`.
 */
import { type Dirent, existsSync } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { realInside } from './safe-path.js';

/** A run whose metrics were written this recently (s) is running (upstream's threshold). */
export const ACTIVE_SECONDS = 120;
/** How deep below the runs folder to look for runs. */
const MAX_DEPTH = 4;
/** Most folders visited per scan. */
const MAX_VISITED = 5000;
/** Largest config.json / checkpoints.jsonl / result.json read, bytes. */
export const MAX_SMALL_FILE = 8 * 1024 * 1024;

/** A run (or eval folder) as listed. */
export interface RunEntry {
  id: string;
  kind: 'run' | 'eval';
  recipe: string | null;
  model: string | null;
  status: 'running' | 'completed' | 'idle';
  step: number | null;
  headline: { key: string; value: number } | null;
  /** Seconds since `metrics.jsonl` (else the folder) was written. */
  ageSeconds: number;
  /** Layout: this project's or upstream's (told apart by files only one of them writes). */
  layout: 'cookbook' | 'upstream';
  hasRollouts: boolean;
  hasEvals: boolean;
}

/** Every run and eval folder below `root` (real path), sorted by id. */
export async function findRuns(root: string): Promise<string[]> {
  const found: string[] = [];
  let visited = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    if (visited++ >= MAX_VISITED) return;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const names = new Set(entries.map((e) => e.name));
    if (
      names.has('metrics.jsonl') ||
      names.has('config.json') ||
      names.has('results.json') ||
      (await hasUpstreamEval(dir, entries))
    ) {
      found.push(dir === root ? '.' : relative(root, dir).split(sep).join('/'));
      return;
    }
    if (depth >= MAX_DEPTH) return;
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.') || e.name === 'node_modules') continue;
      await walk(join(dir, e.name), depth + 1);
    }
  };
  await walk(root, 0);
  return found.sort();
}

/** Whether `dir` holds upstream eval results (`<benchmark>/result.json`). */
async function hasUpstreamEval(dir: string, entries: Dirent[]): Promise<boolean> {
  for (const e of entries) {
    if (e.isDirectory() && !e.name.startsWith('iteration_') && existsSync(join(dir, e.name, 'result.json')))
      return true;
  }
  return false;
}

/** A JSON file of at most {@link MAX_SMALL_FILE} bytes, or undefined (missing, too large or not JSON). */
export async function readSmallJson(path: string): Promise<unknown> {
  try {
    const st = await stat(path);
    if (st.size > MAX_SMALL_FILE) return undefined;
    return JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** The JSON records of a small JSONL file (malformed lines skipped and counted). */
export async function readSmallJsonl(path: string): Promise<{ records: Record<string, unknown>[]; skipped: number }> {
  const records: Record<string, unknown>[] = [];
  let skipped = 0;
  let text: string;
  try {
    const st = await stat(path);
    if (st.size > MAX_SMALL_FILE) return { records, skipped: 0 };
    text = await readFile(path, 'utf8');
  } catch {
    return { records, skipped };
  }
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (typeof v === 'object' && v !== null && !Array.isArray(v)) records.push(v as Record<string, unknown>);
      else skipped++;
    } catch {
      skipped++;
    }
  }
  return { records, skipped };
}

/** The last complete JSON line of a file, read from its last 256 KB. */
export async function readLastJsonLine(path: string): Promise<Record<string, unknown> | undefined> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const { size } = await fh.stat();
    const len = Math.min(size, 256 * 1024);
    const buf = Buffer.alloc(len);
    await fh.read(buf, 0, len, size - len);
    const lines = buf.toString('utf8').split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!.trim();
      if (line === '') continue;
      try {
        const v = JSON.parse(line) as unknown;
        if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
      } catch {
        // a cut-off last line (or the partial first one of the window): try the one before
      }
    }
    return undefined;
  } finally {
    await fh.close();
  }
}

/** Headline metric names, most telling first (the first one a row has is shown). */
const HEADLINES = [
  'env/all/reward/total',
  'reward/total',
  'test/env/all/reward/total',
  'train_mean_nll',
  'loss',
  'score',
];

/** The headline metric of a metrics row. */
export function headlineOf(row: Record<string, unknown> | undefined): { key: string; value: number } | null {
  if (row === undefined) return null;
  for (const key of HEADLINES) {
    const v = row[key];
    if (typeof v === 'number') return { key, value: v };
  }
  for (const [key, v] of Object.entries(row)) {
    if (typeof v === 'number' && key !== 'step' && !key.startsWith('progress/') && !key.startsWith('time/')) {
      return { key, value: v };
    }
  }
  return null;
}

/** Status by upstream's rule (see the module comment). */
export function statusOf(
  metricsMtimeMs: number | undefined,
  checkpoints: readonly Record<string, unknown>[],
  nowMs: number,
): RunEntry['status'] {
  if (metricsMtimeMs !== undefined && nowMs - metricsMtimeMs < ACTIVE_SECONDS * 1000) return 'running';
  if (checkpoints.some((c) => c.final === true)) return 'completed';
  return 'idle';
}

/** The recipe a config names, else a guess from the folder name. */
function recipeOf(config: Record<string, unknown> | undefined, id: string): string | null {
  for (const k of ['recipe', 'recipe_name']) if (typeof config?.[k] === 'string') return config[k] as string;
  const base = id.split('/').pop() ?? id;
  return base === '.' ? null : base;
}

/** The list entry of the run at `dir` (real path) with id `id`. */
export async function describeRun(root: string, dir: string, id: string, nowMs: number): Promise<RunEntry> {
  // Files whose real path leaves the runs folder (a symlink out) are treated as missing.
  const file = (name: string) => {
    const p = join(dir, name);
    return realInside(root, p) ? p : undefined;
  };
  const configPath = file('config.json');
  const config = (configPath === undefined ? undefined : await readSmallJson(configPath)) as
    | Record<string, unknown>
    | undefined;
  const metricsPath = file('metrics.jsonl');
  let mtime: number | undefined;
  let dirMtime = nowMs;
  try {
    mtime = metricsPath === undefined ? undefined : (await stat(metricsPath)).mtimeMs;
  } catch {
    mtime = undefined;
  }
  try {
    dirMtime = (await stat(dir)).mtimeMs;
  } catch {
    // gone since the scan
  }
  const checkpointsPath = file('checkpoints.jsonl');
  const { records: checkpoints } =
    checkpointsPath === undefined ? { records: [] } : await readSmallJsonl(checkpointsPath);
  const last = metricsPath === undefined ? undefined : await readLastJsonLine(metricsPath);
  let entries: string[] = [];
  try {
    entries = await readdir(dir);
  } catch {
    entries = [];
  }
  const hasRollouts = entries.some((e) => e.startsWith('iteration_'));
  const hasEvals = file('results.json') !== undefined || (await hasUpstreamEval(dir, await direntsOf(dir)));
  const model = config?.model_name ?? config?.base_model ?? config?.model;
  return {
    id,
    kind: last === undefined && hasEvals ? 'eval' : 'run',
    recipe: recipeOf(config, id),
    model: typeof model === 'string' ? model : null,
    status: statusOf(mtime, checkpoints, nowMs),
    step: typeof last?.step === 'number' ? last.step : null,
    headline: headlineOf(last),
    ageSeconds: Math.max(0, Math.round((nowMs - (mtime ?? dirMtime)) / 1000)),
    layout: entries.includes('report.html') || entries.includes('.run.lock') ? 'cookbook' : 'upstream',
    hasRollouts,
    hasEvals,
  };
}

async function direntsOf(dir: string): Promise<Dirent[]> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}
