import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Every temp folder a test creates (services' roots, run folders, archives) goes into one folder for the whole run,
// removed when vitest exits: a thousand tests leave nothing behind, and an interrupted run leaves one folder.
// Workers inherit TMPDIR, and os.tmpdir() reads it on each call.
const runTmp = mkdtempSync(join(tmpdir(), 'cookbook-vitest-'));
process.env.TMPDIR = runTmp;
// The embedded service's default root is the user's cache (~/.cache/cookbook/local-tinker); a test that starts it
// without a root of its own gets one in this run's folder instead, so the suite never touches the user's data and
// two runs at once (two checkouts, CI beside a developer) do not contend for one root's lock.
process.env.COOKBOOK_LOCAL_TINKER_ROOT = join(runTmp, 'local-tinker');
process.on('exit', () => rmSync(runTmp, { recursive: true, force: true }));
// One engine thread per test process (unless the caller sets it): vitest already runs one file per core, and a second
// GEMM thread in each engine only contends for the same cores (measured on the multiplayer learning tests: 85 s of
// system time against 3 s, for the same curves). The thread count moves sums in their last digits, so a test's
// figures are those of a one-thread engine everywhere, whatever the machine's core count.
process.env.COOKBOOK_THREADS ??= '1';

export default defineConfig({
  resolve: { conditions: ['@cookbook/source'] },
  ssr: { resolve: { conditions: ['@cookbook/source'] } },
  test: {
    projects: ['packages/*', 'apps/*'],
    reporters: ['default', './scripts/summary-reporter.ts'],
    // One worker per core. Most test files are single-threaded CPU work (the engine's math), and vitest's default
    // leaves a core idle: on a 2-core machine the whole suite took 1,019 s with one worker and 769 s with two.
    maxWorkers: availableParallelism(),
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
