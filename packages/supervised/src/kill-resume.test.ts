import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { arithmeticLines, tempDir, writeLines } from './__tests__/helpers.js';
import { killChildConfig } from './__tests__/kill-child.js';
import { readCheckpointSummary, readMetricRows, runSft } from './__tests__/run-helpers.js';

const here = dirname(fileURLToPath(import.meta.url));
const pkgRoot = join(here, '..');

function metricLines(logPath: string): number {
  const p = join(logPath, 'metrics.jsonl');
  return existsSync(p)
    ? readFileSync(p, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '').length
    : 0;
}

/** Runs the child until metrics.jsonl has `rows` lines, then SIGKILLs it. */
async function runAndKill(logPath: string, root: string, data: string, rows: number): Promise<void> {
  const child = spawn(
    process.execPath,
    ['--conditions=@cookbook/source', '--import', 'tsx', join(here, '__tests__', 'kill-child.ts'), logPath, root, data],
    { cwd: pkgRoot, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => {
    done = true;
  });
  while (!done && metricLines(logPath) < rows) await new Promise((r) => setTimeout(r, 2));
  if (done) throw new Error(`child exited before being killed: ${stderr}`);
  child.kill('SIGKILL');
  await exited;
}

describe('SIGKILL at any moment', () => {
  it('loses at most the work since the last checkpoint and resumes to identical metrics', async () => {
    const dir = tempDir();
    const data = writeLines(dir, 'conv.jsonl', arithmeticLines(40));
    const root = join(dir, 'service');

    const refPath = join(dir, 'ref');
    await runSft(killChildConfig(refPath, root, data));

    const logPath = join(dir, 'run');
    await runAndKill(logPath, root, data, 5);
    await runAndKill(logPath, root, data, 13);
    const resumed = await runSft(killChildConfig(logPath, root, data));
    expect(resumed.status).toBe('completed');
    expect(resumed.startStep).toBeGreaterThanOrEqual(9);
    expect(readMetricRows(logPath)).toEqual(readMetricRows(refPath));
    expect(readCheckpointSummary(logPath)).toEqual(readCheckpointSummary(refPath));
  }, 60_000);
});
