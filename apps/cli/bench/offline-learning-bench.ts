/**
 * Do the RL recipes learn offline with their defaults? For each RL-family recipe (defaults, no key: the embedded
 * service and the tiny stand-in model), per seed: wall time of the whole run (warm start included the first time),
 * the first-third and last-third means of the headline metric from `metrics.jsonl`, and the warm start's cost when
 * it is trained (first run) and when it comes from the cache (a second, one-step run).
 * Run: pnpm --filter @cookbook/cli bench
 * Env: BENCH_SEEDS (comma-separated, default 0), BENCH_RECIPES (names as printed, comma-separated, default all),
 * BENCH_ARGS (extra key=value arguments for every run, space-separated).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runCli } from '../src/cli.js';
import { thirds } from '../src/recipes/rl-common.js';
import { recipes } from '../src/recipes.js';

const CASES: { label: string; args: string[]; headline: string }[] = [
  { label: 'rl_basic', args: ['rl_basic'], headline: 'env/all/reward/total' },
  { label: 'math_rl', args: ['math_rl'], headline: 'env/all/reward/total' },
  { label: 'rl_loop', args: ['rl_loop'], headline: 'env/all/reward/total' },
  { label: 'multiplayer guess_number', args: ['multiplayer', 'env=guess_number'], headline: 'env/all/reward/total' },
  { label: 'multiplayer tic_tac_toe', args: ['multiplayer', 'env=tic_tac_toe'], headline: 'env/all/win' },
];

const seeds = (process.env.BENCH_SEEDS ?? '0').split(',').map((s) => Number(s.trim()));
const only = process.env.BENCH_RECIPES?.split(',').map((s) => s.trim());
const extra = (process.env.BENCH_ARGS ?? '').split(/\s+/).filter((s) => s !== '');
const root = mkdtempSync(join(tmpdir(), 'offline-learning-bench-'));
// A fresh service root: the warm starts are trained (not cached) on each seed's first run.
process.env.COOKBOOK_LOCAL_TINKER_ROOT = join(root, 'service');
delete process.env.TINKER_BASE_URL;
delete process.env.TINKER_API_KEY;

function warmSeconds(lines: readonly string[]): string {
  const m = lines.join('\n').match(/warm start: (trained|cached) in ([\d.]+)s/);
  return m === null ? 'none' : `${m[2]}s ${m[1]}`;
}

async function run(args: string[]): Promise<{ seconds: number; out: string[]; code: number }> {
  const out: string[] = [];
  const err: string[] = [];
  const start = performance.now();
  const code = await runCli(args, recipes, { out: (t) => out.push(t), err: (t) => err.push(t) });
  if (code !== 0) console.error(err.join('\n'));
  return { seconds: (performance.now() - start) / 1000, out, code };
}

console.log(
  `RL recipes offline with defaults (embedded service, local/qwen3-tiny stand-in); seeds ${seeds.join(', ')}; ` +
    `load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
console.log('recipe                       seed   wall s  first third  last third  warm start (first run / cached)');
for (const c of CASES) {
  if (only !== undefined && !only.includes(c.label)) continue;
  for (const seed of seeds) {
    const logPath = join(root, `${c.label.replace(/\W+/g, '_')}-${seed}`);
    const first = await run([...c.args, `seed=${seed}`, `log_path=${logPath}`, ...extra]);
    if (first.code !== 0) {
      console.log(`${c.label.padEnd(28)} ${String(seed).padStart(4)}  failed (exit ${first.code})`);
      continue;
    }
    const rows = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const values = rows.map((r) => r[c.headline]).filter((v): v is number => typeof v === 'number');
    const t = thirds(values);
    // The cached warm start: the same recipe and seed again, one step, into another folder.
    const again = await run([...c.args, `seed=${seed}`, `log_path=${logPath}-cached`, 'max_steps=1', ...extra]);
    console.log(
      `${c.label.padEnd(28)} ${String(seed).padStart(4)}  ${first.seconds.toFixed(1).padStart(7)}  ` +
        `${(t?.first ?? Number.NaN).toFixed(3).padStart(11)}  ${(t?.last ?? Number.NaN).toFixed(3).padStart(10)}  ` +
        `${warmSeconds(first.out)} / ${warmSeconds(again.out)}   (${c.headline}, ${values.length} values)`,
    );
  }
}
console.log(
  `load average at end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
