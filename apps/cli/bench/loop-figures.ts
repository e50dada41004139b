/**
 * Do the training loops still compute the same numbers? Runs short seeded runs of `sl_basic`, `rl_basic`, `dpo`,
 * `off_policy_distillation`, `multiplayer env=tic_tac_toe` and `gem` through the CLI (each in its own process, on a fresh
 * embedded service root, offline) and compares every metric of every `metrics.jsonl` row and every checkpoint
 * record's step/epoch/batch, digit for digit, with `__fixtures__/loop-figures.json`. Wall-clock figures (`time/*`,
 * throughputs) are left out: they are the only values that may differ between two runs.
 *
 * The fixture was first recorded by this script (`--write`) on the code before the loops moved onto the shared epoch
 * driver, and the refactor left all five runs identical. It was recorded again once the client spoke the 0.25
 * protocol: forward/backward results now cross the wire as float32 protobuf (as on the hosted service), which moves
 * `dpo` (`chosen_reward` 8.3631e-6 → 8.7640e-6 at step 0) and `off_policy_distillation` (`test/teacher_nll`
 * 8.554884380 → 8.554884387) in the last digits; the other three runs were unchanged by it. The last
 * digits also depend on the GEMM kernel the engine picked (OpenBLAS and the addon's own AVX2 kernel round differently):
 * the fixture was recorded again, with the GEM trainer's run added, on OpenBLAS (the kernel CI installs) before the
 * run-plan refactor. A refactor of the loops must leave it passing unchanged.
 * Run: pnpm --filter @cookbook/cli bench:figures   (or `… loop-figures.ts --write` to record new figures)
 * Env: FIGURES_CASES (labels, comma-separated, default all).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The runs: recipe arguments chosen to pass through eval cadence, periodic checkpoints and the final eval. */
export const FIGURE_CASES: { label: string; args: string[] }[] = [
  {
    label: 'sl_basic',
    args: ['sl_basic', 'max_steps=6', 'eval_every=2', 'infrequent_eval_every=3', 'save_every=2', 'shuffle_seed=0'],
  },
  { label: 'rl_basic', args: ['rl_basic', 'max_steps=2', 'seed=0'] },
  { label: 'dpo', args: ['dpo', 'max_steps=4', 'eval_every=2', 'save_every=2', 'seed=0'] },
  {
    label: 'off_policy_distillation',
    args: [
      'off_policy_distillation',
      'max_steps=4',
      'eval_every=2',
      'save_every=3',
      'teacher_sft_steps=4',
      'n_teacher_targets=8',
      'seed=0',
    ],
  },
  { label: 'multiplayer tic_tac_toe', args: ['multiplayer', 'env=tic_tac_toe', 'max_steps=2', 'seed=0'] },
  // The GEM trainer after its warm start (both loops of its own).
  { label: 'gem', args: ['gem', 'max_steps=2', 'seed=0'] },
];

/** Metrics whose value is a measure of time (they differ between any two runs). */
function isWallClock(key: string): boolean {
  return key.startsWith('time/') || key.endsWith('tokens_per_s') || key.endsWith('_per_second') || key === 'elapsed';
}

interface Figures {
  metrics: Record<string, unknown>[];
  checkpoints: { name: unknown; step: unknown; epoch: unknown; batch: unknown; final: unknown }[];
}

function readJsonl(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function figuresOf(logPath: string): Figures {
  const metrics = readJsonl(join(logPath, 'metrics.jsonl')).map((row) =>
    Object.fromEntries(
      Object.entries(row)
        .filter(([k]) => !isWallClock(k))
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    ),
  );
  const checkpoints = readJsonl(join(logPath, 'checkpoints.jsonl')).map((r) => ({
    name: r.name,
    step: r.step,
    epoch: r.epoch,
    batch: r.batch,
    final: r.final ?? false,
  }));
  // As the fixture stores it (a missing field is absent, not undefined).
  return JSON.parse(JSON.stringify({ metrics, checkpoints })) as Figures;
}

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..', '..');
const fixture = join(here, '__fixtures__', 'loop-figures.json');

function runCase(args: string[], root: string, label: string): Figures {
  const logPath = join(root, label.replace(/\W+/g, '_'));
  const res = spawnSync(
    process.execPath,
    [
      '--conditions=@cookbook/source',
      '--import',
      'tsx',
      join(repo, 'apps', 'cli', 'src', 'main.ts'),
      ...args,
      `log_path=${logPath}`,
      'behavior_if_log_dir_exists=delete',
    ],
    {
      cwd: repo,
      encoding: 'utf8',
      env: {
        ...process.env,
        COOKBOOK_LOCAL_TINKER_ROOT: join(root, `${label.replace(/\W+/g, '_')}-service`),
        TINKER_BASE_URL: '',
        TINKER_API_KEY: '',
      },
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (res.status !== 0) {
    process.stderr.write(res.stderr);
    console.error(`${label}: the run exited with ${res.status}`);
    process.exit(1);
  }
  return figuresOf(logPath);
}

/** The first difference between two JSON values, as a path and both values; undefined when equal. */
function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b) || (a === null) !== (b === null)) {
    return `${path}: expected ${JSON.stringify(a)}, got ${JSON.stringify(b)}`;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path}: expected ${a.length} entries, got ${b.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  if (a !== null && typeof a === 'object' && b !== null && typeof b === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    if (ka.join(',') !== kb.join(',')) return `${path}: keys ${ka.join(',')} vs ${kb.join(',')}`;
    for (const k of ka) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      if (d !== undefined) return d;
    }
    return undefined;
  }
  return Object.is(a, b) ? undefined : `${path}: expected ${JSON.stringify(a)}, got ${JSON.stringify(b)}`;
}

const write = process.argv.includes('--write');
const only = process.env.FIGURES_CASES?.split(',').map((s) => s.trim());
const root = mkdtempSync(join(tmpdir(), 'loop-figures-'));
const expected: Record<string, Figures> = existsSync(fixture)
  ? (JSON.parse(readFileSync(fixture, 'utf8')) as Record<string, Figures>)
  : {};
const got: Record<string, Figures> = { ...expected };
let failed = 0;
for (const c of FIGURE_CASES) {
  if (only !== undefined && !only.includes(c.label)) continue;
  const t0 = Date.now();
  const figures = runCase(c.args, root, c.label);
  got[c.label] = figures;
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  const rows = figures.metrics.length;
  const values = figures.metrics.reduce((a, r) => a + Object.keys(r).length, 0);
  if (write) {
    console.log(
      `${c.label}: recorded ${rows} metrics rows (${values} values), ${figures.checkpoints.length} checkpoints in ${seconds}s`,
    );
    continue;
  }
  const want = expected[c.label];
  const diff = want === undefined ? 'no recorded figures' : firstDifference(want, figures);
  if (diff === undefined) {
    console.log(
      `${c.label}: identical (${rows} metrics rows, ${values} values, ${figures.checkpoints.length} checkpoints) in ${seconds}s`,
    );
  } else {
    failed++;
    console.log(`${c.label}: DIFFERS ${diff}`);
  }
}
if (write) writeFileSync(fixture, `${JSON.stringify(got, null, 1)}\n`);
if (failed > 0) process.exitCode = 1;
