/**
 * Which RL algorithm learns fastest here? Runs every `algorithm=` preset on `rl_basic`'s offline default (the
 * embedded service, the tiny stand-in, the shared warm start) for each seed, with the two diagnostic controls beside
 * it (`advantage_transform=zero` and `negate`), and writes a page with the reward curves (mean and min–max spread over
 * seeds per preset) and a table: steps to reach a reward, final reward, tokens sampled, wall time, and in how many
 * seeds the preset ends above both controls and above its own start.
 * Run: pnpm --filter @cookbook/cli bench:algorithms
 * Env: BENCH_SEEDS (default 0,1,2), BENCH_ALGORITHMS (default all), BENCH_ARMS (default learn,zero,negate),
 * BENCH_ARGS (extra key=value arguments for every run), BENCH_DIR (where runs, results.json and index.html go;
 * default a new temporary folder; an existing one resumes: runs already in results.json are not repeated),
 * BENCH_TARGET (the reward of "steps to reach", default 0.6), BENCH_PAGE_ONLY=1 (run nothing: write the page from
 * BENCH_DIR's results.json; a missing run shows as —).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ALGORITHMS } from '@cookbook/rl';
import { runCli } from '../src/cli.js';
import { thirds } from '../src/recipes/rl-common.js';
import { recipes } from '../src/recipes.js';

const ARMS = { learn: 'none', zero: 'zero', negate: 'negate' } as const;
type Arm = keyof typeof ARMS;

interface RunResult {
  algorithm: string;
  seed: number;
  arm: Arm;
  rewards: number[];
  acTokens: number;
  wallSeconds: number;
  cpuSeconds: number;
}

const list = (v: string | undefined, d: string) =>
  (v ?? d)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
const seeds = list(process.env.BENCH_SEEDS, '0,1,2').map(Number);
const algorithms = list(process.env.BENCH_ALGORITHMS, ALGORITHMS.join(','));
const arms = list(process.env.BENCH_ARMS, 'learn,zero,negate') as Arm[];
const extra = (process.env.BENCH_ARGS ?? '').split(/\s+/).filter((s) => s !== '');
const target = Number(process.env.BENCH_TARGET ?? '0.6');
// Only write the page from BENCH_DIR's results.json (e.g. results merged from several machines or processes).
const pageOnly = process.env.BENCH_PAGE_ONLY === '1';
const dir = process.env.BENCH_DIR ?? mkdtempSync(join(tmpdir(), 'algorithms-bench-'));
mkdirSync(dir, { recursive: true });
const resultsPath = join(dir, 'results.json');
// One service root for every run: the warm start of a seed is trained once and then read from its cache.
process.env.COOKBOOK_LOCAL_TINKER_ROOT = join(dir, 'service');
delete process.env.TINKER_BASE_URL;
delete process.env.TINKER_API_KEY;

function writeAtomic(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

const results: RunResult[] = existsSync(resultsPath)
  ? (JSON.parse(readFileSync(resultsPath, 'utf8')) as RunResult[])
  : [];

async function runOne(algorithm: string, seed: number, arm: Arm): Promise<RunResult | undefined> {
  const logPath = join(dir, 'runs', `${algorithm}-${arm}-${seed}`);
  const err: string[] = [];
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const code = await runCli(
    [
      'rl_basic',
      ...(algorithm === NO_ALGORITHM ? [] : [`algorithm=${algorithm}`]),
      `seed=${seed}`,
      `advantage_transform=${ARMS[arm]}`,
      // Negated advantages drive the policy to answers that all score alike; dynamic sampling then finds no group with
      // signal and stops the run (by design). The controls run without it.
      ...(arm === 'learn' ? [] : ['dynamic_sampling=false']),
      `log_path=${logPath}`,
      'behavior_if_log_dir_exists=delete',
      ...extra,
    ],
    recipes,
    { out: () => undefined, err: (t) => err.push(t) },
  );
  const wallSeconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpu0);
  if (code !== 0) {
    console.error(`${algorithm} ${arm} seed ${seed}: exit ${code}\n${err.join('\n')}`);
    return undefined;
  }
  const rows = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, number>);
  const rewards = rows.map((r) => r['env/all/reward/total']!).filter((v) => typeof v === 'number');
  const acTokens = rows.reduce(
    (a, r) => a + (r['env/all/total_ac_tokens'] ?? 0) + (r['dynamic_sampling/extra_ac_tokens'] ?? 0),
    0,
  );
  return { algorithm, seed, arm, rewards, acTokens, wallSeconds, cpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

/**
 * With every advantage zero no preset has a gradient (each loss is proportional to A): what moves the policy is the
 * drift of the warm start's Adam moments, which does not depend on the loss, and the sampling seeds are the same, so
 * the zero control is the same run for every preset (the learning rate is not a preset knob). It runs once per seed,
 * without a preset.
 */
const NO_ALGORITHM = 'none';

const mean = (xs: readonly number[]) => (xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
const find = (a: string, s: number, arm: Arm) =>
  results.find((r) => r.algorithm === runAlgorithm(a, arm) && r.seed === s && r.arm === arm);

console.log(
  `algorithms on rl_basic (offline default); seeds ${seeds.join(', ')}; arms ${arms.join(', ')}; ${cpus().length} cores, ` +
    `load ${loadavg()[0]!.toFixed(2)}; results in ${dir}`,
);
/** The algorithm a control run is filed under: the zero control is one run per seed, shared (see below). */
const runAlgorithm = (algorithm: string, arm: Arm) => (arm === 'zero' ? NO_ALGORITHM : algorithm);
for (const arm of pageOnly ? [] : arms) {
  for (const algorithm of arm === 'zero' ? [NO_ALGORITHM] : algorithms) {
    for (const seed of seeds) {
      if (find(algorithm, seed, arm) !== undefined) continue;
      const r = await runOne(algorithm, seed, arm);
      if (r === undefined) continue;
      results.push(r);
      writeAtomic(resultsPath, `${JSON.stringify(results, null, 1)}\n`);
      const t = thirds(r.rewards)!;
      console.log(
        `${algorithm.padEnd(13)} ${arm.padEnd(7)} seed ${seed}  reward ${t.first.toFixed(3)} → ${t.last.toFixed(3)}  ` +
          `${r.acTokens} tokens  ${r.wallSeconds.toFixed(0)} s wall  ${r.cpuSeconds.toFixed(0)} s CPU`,
      );
    }
  }
}

/** A row of the table for one algorithm. */
function summary(a: string) {
  const learn = seeds.map((s) => find(a, s, 'learn')).filter((r): r is RunResult => r !== undefined);
  const last = (r: RunResult | undefined) => (r === undefined ? Number.NaN : thirds(r.rewards)!.last);
  const reach = learn.map((r) => {
    // The first step whose 3-step moving average reaches the target.
    for (let i = 2; i < r.rewards.length; i++) if (mean(r.rewards.slice(i - 2, i + 1)) >= target) return i;
    return undefined;
  });
  const reached = reach.filter((x): x is number => x !== undefined);
  // Seeds whose two controls ran; of those, the ones where the preset ends above its start and both controls.
  const compared = learn.filter((r) => find(a, r.seed, 'zero') && find(a, r.seed, 'negate'));
  const above = compared.filter((r) => {
    const t = thirds(r.rewards)!;
    return t.last > t.first && t.last > last(find(a, r.seed, 'zero')) && t.last > last(find(a, r.seed, 'negate'));
  }).length;
  const rose = learn.filter((r) => thirds(r.rewards)!.last > thirds(r.rewards)!.first).length;
  return {
    a,
    seeds: learn.length,
    first: mean(learn.map((r) => thirds(r.rewards)!.first)),
    final: mean(learn.map(last)),
    // Means over the seeds whose control ran.
    zero: mean(seeds.map((s) => last(find(a, s, 'zero'))).filter((v) => !Number.isNaN(v))),
    negate: mean(seeds.map((s) => last(find(a, s, 'negate'))).filter((v) => !Number.isNaN(v))),
    reach: reached.length === 0 ? '—' : `${mean(reached).toFixed(1)} (${reached.length}/${learn.length})`,
    tokens: mean(learn.map((r) => r.acTokens)),
    wall: mean(learn.map((r) => r.wallSeconds)),
    cpu: mean(learn.map((r) => r.cpuSeconds)),
    above: `${above}/${compared.length}`,
    rose: `${rose}/${learn.length}`,
  };
}

const rows = algorithms.map(summary);
const fmt = (v: number) => (Number.isNaN(v) ? '—' : v.toFixed(3));
const fmt0 = (v: number) => (Number.isNaN(v) ? '—' : v.toFixed(0));
const header =
  `| algorithm | first third | final (last third) | zero control | negate control | steps to ${target} | ` +
  'tokens sampled | wall s | CPU s | rose | above both controls |';
const table = [
  header,
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.a} | ${fmt(r.first)} | ${fmt(r.final)} | ${fmt(r.zero)} | ${fmt(r.negate)} | ` +
      `${r.reach} | ${fmt0(r.tokens)} | ${fmt0(r.wall)} | ${fmt0(r.cpu)} | ${r.rose} | ${r.above} |`,
  ),
].join('\n');
console.log(`\n${table}\n`);

/** An SVG of each preset's mean reward per step with its min–max band over seeds. */
function curves(): string {
  const W = 720;
  const H = 360;
  const pad = 40;
  const colors = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
  const series = algorithms.map((a) =>
    seeds.map((s) => find(a, s, 'learn')?.rewards ?? []).filter((r) => r.length > 0),
  );
  const steps = Math.max(1, ...series.flat().map((r) => r.length));
  const x = (i: number) => pad + (i / Math.max(1, steps - 1)) * (W - 2 * pad);
  const y = (v: number) => H - pad - v * (H - 2 * pad);
  const parts: string[] = [];
  for (let k = 0; k <= 4; k++) {
    const v = k / 4;
    parts.push(
      `<line x1="${pad}" x2="${W - pad}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/><text x="4" y="${y(v) + 4}" font-size="11">${v.toFixed(2)}</text>`,
    );
  }
  series.forEach((runs, j) => {
    if (runs.length === 0) return;
    const n = Math.min(...runs.map((r) => r.length));
    const at = (i: number) => runs.map((r) => r[i]!);
    const hi = Array.from({ length: n }, (_, i) => Math.max(...at(i)));
    const lo = Array.from({ length: n }, (_, i) => Math.min(...at(i)));
    const mid = Array.from({ length: n }, (_, i) => mean(at(i)));
    const band = [...hi.map((v, i) => `${x(i)},${y(v)}`), ...lo.map((v, i) => `${x(i)},${y(v)}`).reverse()].join(' ');
    const c = colors[j % colors.length]!;
    parts.push(`<polygon points="${band}" fill="${c}" opacity="0.12"/>`);
    parts.push(
      `<polyline points="${mid.map((v, i) => `${x(i)},${y(v)}`).join(' ')}" fill="none" stroke="${c}" stroke-width="2"/>`,
    );
    parts.push(`<text x="${W - pad + 4}" y="${y(mid[n - 1]!) + 4}" font-size="11" fill="${c}">${algorithms[j]}</text>`);
  });
  parts.push(`<text x="${W / 2 - 30}" y="${H - 8}" font-size="12">step</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W + 80}" height="${H}">${parts.join('')}</svg>`;
}

const html = `<!doctype html><meta charset="utf-8"><title>RL algorithms on rl_basic</title>
<body style="font-family: sans-serif; max-width: 60em">
<h1>RL algorithms on rl_basic (offline default)</h1>
<p>Seeds ${seeds.join(', ')}; reward per step (env/all/reward/total), mean over seeds with the min–max band. "Rose":
seeds whose last-third reward is above its first third. "Above both controls": of the seeds whose controls ran, those
that rose and ended above the same seed's zero- and negated-advantage runs. Tokens: action tokens sampled (dynamic sampling's extra rounds included). Wall time is on a
shared machine (load ${loadavg()[0]!.toFixed(2)} at the end).</p>
${curves()}
<pre>${table}</pre>
</body>
`;
writeAtomic(join(dir, 'index.html'), html);
console.log(`page: ${join(dir, 'index.html')}`);
