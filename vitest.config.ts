import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Every temp folder a test creates (services' roots, run folders, archives) goes into one folder for the whole run,
// removed when vitest exits: a thousand tests leave nothing behind, and an interrupted run leaves one folder.
// Workers inherit TMPDIR, and os.tmpdir() reads it on each call.
const runTmp = mkdtempSync(join(tmpdir(), 'cookbook-vitest-'));
process.env.TMPDIR = runTmp;
process.on('exit', () => rmSync(runTmp, { recursive: true, force: true }));

export default defineConfig({
  resolve: { conditions: ['@cookbook/source'] },
  ssr: { resolve: { conditions: ['@cookbook/source'] } },
  test: {
    projects: ['packages/*', 'apps/*'],
    reporters: ['default', './scripts/summary-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
