/**
 * Test helpers (`@cookbook/local-tinker/testing`): a service root on disk as cache tests need it, finished runs with
 * known sizes and last-use times. Not part of the service; for this package's tests and its dependents' (the CLI).
 */
import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const DAY = 86_400_000;

/**
 * A new folder (named `<prefix>…` in the temp dir) holding runs `s1:train:0`, `s1:train:1` and `s2:train:0` of 3000,
 * 2000 and 1000 bytes, last used 30, 10 and 2 days before `now` (in `run.json` and in every file's mtime).
 */
export function serviceRootWithRuns(prefix: string, now = Date.now()): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [id, bytes, daysAgo] of [
    ['s1:train:0', 3000, 30],
    ['s1:train:1', 2000, 10],
    ['s2:train:0', 1000, 2],
  ] as const) {
    const used = new Date(now - daysAgo * DAY);
    const run = join(dir, 'runs', encodeURIComponent(id));
    mkdirSync(join(run, 'weights', 'final'), { recursive: true });
    writeFileSync(join(run, 'weights', 'final', 'state.bin'), Buffer.alloc(bytes));
    writeFileSync(
      join(run, 'run.json'),
      JSON.stringify({ training_run_id: id, base_model: 'local/qwen3-tiny', last_request_time: used.toISOString() }),
    );
    for (const p of [
      join(run, 'weights', 'final', 'state.bin'),
      join(run, 'weights', 'final'),
      join(run, 'weights'),
      join(run, 'run.json'),
      run,
    ]) {
      utimesSync(p, used, used);
    }
  }
  return dir;
}
