/**
 * Does offline `code_rl` learn? Per seed, the recipe with its defaults (learn) and its two controls from the same warm
 * start (`advantage_transform=zero`: no gradient reaches the weights; `negate`: RL against the reward), each a separate
 * process. Each seed gets a fresh service root: the learn run trains the warm start (as from a fresh clone), the
 * controls load it from the cache. Prints the reward's first-third and last-third means, the learn run's margin over
 * each control's last third, and each run's CPU time (user + sys of the run and its children: the sandboxes).
 * Run: pnpm --filter @cookbook/cli bench:code-rl
 * Env: BENCH_SEEDS (comma-separated, default 0,1,2), BENCH_ARGS (extra key=value arguments for every run).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { thirds } from '../src/recipes/rl-common.js';

const seeds = (process.env.BENCH_SEEDS ?? '0,1,2').split(',').map((s) => Number(s.trim()));
const extra = (process.env.BENCH_ARGS ?? '').split(/\s+/).filter((s) => s !== '');
const root = mkdtempSync(join(tmpdir(), 'code-rl-bench-'));
const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.ts');
const ARMS = [
  { label: 'learn', args: [] as string[] },
  { label: 'zero', args: ['advantage_transform=zero'] },
  { label: 'negate', args: ['advantage_transform=negate'] },
];

/** Seconds from the shell's `times` line of the children (`1m2.500s 0m0.250s`): user + sys. */
function childSeconds(timesOutput: string): number {
  const line = timesOutput.trim().split('\n').at(-1) ?? '';
  let total = 0;
  for (const m of line.matchAll(/(\d+)m([\d.]+)s/g)) total += Number(m[1]) * 60 + Number(m[2]);
  return total;
}

function runArm(seed: number, arm: (typeof ARMS)[number]) {
  const dir = join(root, `seed${seed}-${arm.label}`);
  mkdirSync(dir, { recursive: true });
  const logPath = join(dir, 'run');
  const args = ['code_rl', `seed=${seed}`, `log_path=${logPath}`, ...arm.args, ...extra];
  const env: NodeJS.ProcessEnv = { ...process.env, COOKBOOK_LOCAL_TINKER_ROOT: join(root, `seed${seed}-service`) };
  delete env.TINKER_BASE_URL;
  delete env.TINKER_API_KEY;
  // `times` after the run prints the shell's own and its children's CPU time: the run's, sandboxes included.
  const r = spawnSync(
    '/bin/sh',
    [
      '-c',
      '"$@" > "$OUT" 2>&1; code=$?; times; exit $code',
      'sh',
      process.execPath,
      '--conditions=@cookbook/source',
      '--import',
      'tsx',
      main,
      ...args,
    ],
    { env: { ...env, OUT: join(dir, 'output.txt') }, encoding: 'utf8' },
  );
  const cpu = childSeconds(r.stdout);
  if (r.status !== 0) return { ok: false as const, cpu, status: r.status };
  const values = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => (JSON.parse(l) as Record<string, unknown>)['env/all/reward/total'])
    .filter((v): v is number => typeof v === 'number');
  const t = thirds(values);
  return { ok: true as const, cpu, first: t?.first ?? Number.NaN, last: t?.last ?? Number.NaN };
}

const f = (x: number) => x.toFixed(3).padStart(6);
console.log(
  `code_rl offline, defaults${extra.length > 0 ? ` + ${extra.join(' ')}` : ''}; seeds ${seeds.join(', ')}; ` +
    `load average at start ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; runs in ${root}`,
);
console.log('seed  arm      first → last    margin of learn   CPU s');
let shown = 0;
for (const seed of seeds) {
  const results = ARMS.map((arm) => ({ arm, r: runArm(seed, arm) }));
  const learn = results[0]!.r;
  for (const { arm, r } of results) {
    if (!r.ok) {
      console.log(`${String(seed).padStart(4)}  ${arm.label.padEnd(7)}  failed (exit ${r.status})`);
      continue;
    }
    const margin = arm.label === 'learn' || !learn.ok ? '' : `${f(learn.last - r.last)}`;
    console.log(
      `${String(seed).padStart(4)}  ${arm.label.padEnd(7)} ${f(r.first)} → ${f(r.last)}   ${margin.padEnd(15)} ${r.cpu.toFixed(1).padStart(6)}`,
    );
  }
  const [, zero, negate] = results.map((x) => x.r);
  if (
    learn.ok &&
    zero?.ok &&
    negate?.ok &&
    learn.last > learn.first &&
    learn.last > zero.last &&
    learn.last > negate.last
  )
    shown++;
}
console.log(
  `learn rises and ends above both controls in ${shown} of ${seeds.length} seeds; load average at end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
