import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { arithmeticLines, tempDir, writeLines } from './__tests__/helpers.js';
import { killChildConfig } from './__tests__/kill-child.js';
import { readCheckpointSummary, readMetricRows, runSft } from './__tests__/run-helpers.js';
import { metricLines, signalAtRows } from './__tests__/signalled-child.js';

describe('SIGTERM (regression: the run died at once and lost the steps since its last checkpoint)', () => {
  it('stops at the next step boundary with a resumable checkpoint, and resumes to identical metrics', async () => {
    const dir = tempDir();
    const data = writeLines(dir, 'conv.jsonl', arithmeticLines(40));
    const root = join(dir, 'service');
    const refPath = join(dir, 'ref');
    await runSft(killChildConfig(refPath, root, data));

    const logPath = join(dir, 'run');
    const ended = await signalAtRows('kill-child.ts', { logPath, root, data }, 5, 'SIGTERM');
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
