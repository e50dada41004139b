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

/** Runs the child until metrics.jsonl has `rows` lines, sends SIGTERM, and returns how the child ended. */
async function runAndTerminate(logPath: string, root: string, data: string, rows: number) {
  const child = spawn(
    process.execPath,
    ['--conditions=@cookbook/source', '--import', 'tsx', join(here, '__tests__', 'kill-child.ts'), logPath, root, data],
    { cwd: pkgRoot, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let done = false;
  void exited.then(() => {
    done = true;
  });
  while (!done && metricLines(logPath) < rows) await new Promise((r) => setTimeout(r, 2));
  if (done) throw new Error(`child exited before the signal: ${stderr}`);
  child.kill('SIGTERM');
  return { ...(await exited), stderr };
}

describe('SIGTERM (regression: the run died at once and lost the steps since its last checkpoint)', () => {
  it('stops at the next step boundary with a resumable checkpoint, and resumes to identical metrics', async () => {
    const dir = tempDir();
    const data = writeLines(dir, 'conv.jsonl', arithmeticLines(40));
    const root = join(dir, 'service');
    const refPath = join(dir, 'ref');
    await runSft(killChildConfig(refPath, root, data));

    const logPath = join(dir, 'run');
    const ended = await runAndTerminate(logPath, root, data, 5);
    // It ended by itself (not killed by the signal), after saving where it stopped.
    expect(ended.signal, ended.stderr).toBeNull();
    const stoppedAt = metricLines(logPath);
    const last = readCheckpointSummary(logPath).at(-1) as { step?: number; final?: boolean } | undefined;
    expect(last?.final ?? false).toBe(false);
    expect(last?.step).toBeGreaterThanOrEqual(stoppedAt - 1);
    const resumed = await runSft(killChildConfig(logPath, root, data));
    expect(resumed.status).toBe('completed');
    expect(readMetricRows(logPath)).toEqual(readMetricRows(refPath));
    expect(readCheckpointSummary(logPath).filter((c) => (c as { final?: boolean }).final)).toEqual(
      readCheckpointSummary(refPath).filter((c) => (c as { final?: boolean }).final),
    );
  }, 60_000);
});
