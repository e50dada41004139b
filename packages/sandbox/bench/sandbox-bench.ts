/**
 * Sandbox bench: graded submissions per minute (10 tests each) at concurrency 1, 2 and 4 in the bubblewrap sandbox,
 * against the same harness run unconfined (`unsafe_local`: a plain `python3` subprocess) in the same run; start
 * latency of one sandbox (an empty command) and the memory of a sandbox running Python (the summed RSS of every
 * process in its PID namespace). Prints one table. Figures go in issue notes, never into timed tests.
 *
 *   pnpm --filter @cookbook/sandbox bench            (BENCH_SUBMISSIONS=N to change the 40 submissions per cell)
 */
import { BubblewrapSandbox, gradeWithPool, SandboxPool } from '../src/index.js';
import { UnsafeLocalSandbox } from '../src/unsafe-local.js';

const SUBMISSIONS = Number(process.env.BENCH_SUBMISSIONS ?? 40);
const tests = {
  inputs: Array.from({ length: 10 }, (_, i) => `${i} ${i * 7}\n`),
  outputs: Array.from({ length: 10 }, (_, i) => `${i + i * 7}\n`),
};
const code = 'a, b = map(int, input().split())\nprint(a + b)';

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

async function throughput(make: () => BubblewrapSandbox | UnsafeLocalSandbox, concurrency: number, python: string) {
  const pool = new SandboxPool({ create: make, size: concurrency });
  const t0 = performance.now();
  const grades = await Promise.all(
    Array.from({ length: SUBMISSIONS }, () => gradeWithPool(pool, code, tests, { python })),
  );
  const seconds = (performance.now() - t0) / 1000;
  const failed = grades.filter((g) => !g.passed).length;
  if (failed > 0)
    throw new Error(
      `${failed} of ${SUBMISSIONS} correct submissions failed: ${grades.find((g) => !g.passed)?.result?.stderr}`,
    );
  return (SUBMISSIONS / seconds) * 60;
}

async function startLatencyMs(make: () => BubblewrapSandbox | UnsafeLocalSandbox): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const sb = make();
    const t0 = performance.now();
    const r = await sb.runCommand('/usr/bin/true');
    times.push(performance.now() - t0);
    if (r.exitCode !== 0) throw new Error(r.stderr);
    await sb.cleanup();
  }
  times.sort((a, b) => a - b);
  return times[10]!;
}

const MEMORY_PY =
  'import os\ntotal = 0\nfor p in os.listdir("/proc"):\n    if p.isdigit():\n        try:\n            for line in open(f"/proc/{p}/status"):\n                if line.startswith("VmRSS:"):\n                    total += int(line.split()[1])\n        except OSError:\n            pass\nprint(total)';

async function main() {
  const bwrap = () => new BubblewrapSandbox();
  const unsafe = () => new UnsafeLocalSandbox({ log: () => {} });
  const cpu0 = cpuSeconds();
  const rows: string[] = [];
  rows.push('| backend | conc. 1 (/min) | conc. 2 (/min) | conc. 4 (/min) | start latency (median, ms) |');
  rows.push('|---|---|---|---|---|');
  // The same interpreter on both sides: the sandbox's PATH finds /usr/bin/python3.
  for (const [name, make, python] of [
    ['bubblewrap', bwrap, 'python3'],
    ['unconfined /usr/bin/python3', unsafe, '/usr/bin/python3'],
  ] as const) {
    const cells: string[] = [];
    for (const c of [1, 2, 4]) cells.push((await throughput(make, c, python)).toFixed(0));
    rows.push(`| ${name} | ${cells.join(' | ')} | ${(await startLatencyMs(make)).toFixed(1)} |`);
  }
  const sb = bwrap();
  await sb.writeFile('mem.py', MEMORY_PY);
  const mem = await sb.runCommand('python3 mem.py');
  await sb.cleanup();
  console.log(`sandbox bench: ${SUBMISSIONS} graded submissions of 10 tests per cell (a correct a+b program)`);
  console.log(rows.join('\n'));
  console.log(
    `memory of a bubblewrap sandbox running python3 (RSS summed over its PID namespace): ${(Number(mem.stdout) / 1024).toFixed(1)} MiB`,
  );
  console.log(`bench process CPU (parent only, children excluded): ${(cpuSeconds() - cpu0).toFixed(1)} s`);
}

await main();
