import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arithmeticLines, tempDir, writeLines } from './__tests__/helpers.js';
import { killChildConfig } from './__tests__/kill-child.js';
import { readCheckpointSummary, readMetricRows, runSft } from './__tests__/run-helpers.js';
import { signalAtRows } from './__tests__/signalled-child.js';

/** Runs the child until metrics.jsonl has `rows` lines, then SIGKILLs it. */
async function runAndKill(logPath: string, root: string, data: string, rows: number): Promise<void> {
  await signalAtRows('kill-child.ts', { logPath, root, data }, rows, 'SIGKILL');
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
