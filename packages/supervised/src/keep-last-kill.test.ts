/**
 * Timed checkpoints with `keep_last = 2` on the embedded service, in a child process killed with SIGKILL twice: the
 * service never holds more than the two recorded resume states (plus the one being written), the state the last
 * record names always exists, and the resumed run logs exactly the metrics of an uninterrupted one.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { readCheckpoints } from '@cookbook/logging';
import { ServiceClient } from '@cookbook/tinker-client';
import { describe, expect, it } from 'vitest';
import { arithmeticLines, tempDir, writeLines } from './__tests__/helpers.js';
import { keepLastConfig } from './__tests__/keep-last-child.js';
import { readMetricRows, runSft } from './__tests__/run-helpers.js';
import { signalAtRows } from './__tests__/signalled-child.js';

/** The training states (`weights/<name>`) on the service root, over every run; staging folders excluded. */
function liveStates(root: string): string[] {
  const runs = join(root, 'runs');
  if (!existsSync(runs)) return [];
  const out: string[] = [];
  for (const run of readdirSync(runs)) {
    const dir = join(runs, run, 'weights');
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (!name.startsWith('.') && existsSync(join(dir, name, 'checkpoint.json'))) {
        out.push(`tinker://${decodeURIComponent(run)}/weights/${decodeURIComponent(name)}`);
      }
    }
  }
  return out;
}

/** What the watcher saw: the most states at once, and any moment the last record's state was missing. */
interface Watch {
  most: number;
  missing: string[];
  worst?: string[];
}

function watch(root: string, logPath: string, into: Watch): void {
  const states = liveStates(root);
  if (states.length > into.most)
    into.worst = [
      ...states,
      `records: ${readCheckpoints(logPath)
        .map((r) => r.state_path)
        .join(' ')}`,
    ];
  into.most = Math.max(into.most, states.length);
  const last = readCheckpoints(logPath).at(-1)?.state_path;
  // Read again: a save may have landed between the two reads.
  if (last !== undefined && !states.includes(last) && !liveStates(root).includes(last)) into.missing.push(last);
}

/** Runs the child until metrics.jsonl has `rows` lines, then SIGKILLs it, watching the service root meanwhile. */
async function runAndKill(logPath: string, root: string, data: string, rows: number, seen: Watch): Promise<void> {
  await signalAtRows('keep-last-child.ts', { logPath, root, data }, rows, 'SIGKILL', () => watch(root, logPath, seen));
  watch(root, logPath, seen);
}

describe('keep_last = 2 with timed checkpoints, killed with SIGKILL', () => {
  it('never holds more than two recorded resume states and resumes to identical metrics', async () => {
    const dir = tempDir();
    const data = writeLines(dir, 'conv.jsonl', arithmeticLines(24));

    const refRoot = join(dir, 'ref-service');
    const refServer = await startLocalTinker({ port: 0, root: refRoot });
    const refService = new ServiceClient({ baseURL: refServer.baseURL });
    const refPath = join(dir, 'ref');
    try {
      await runSft(keepLastConfig(refPath, data, refService));
    } finally {
      await refService.close();
      await refServer.close();
    }
    // The uninterrupted run: timed saves were made, and only the final state and the newest other one remain.
    expect(readCheckpoints(refPath).length).toBeGreaterThan(2);
    expect(liveStates(refRoot)).toHaveLength(2);
    expect(liveStates(refRoot)).toContain(readCheckpoints(refPath).at(-1)!.state_path);

    const root = join(dir, 'service');
    const logPath = join(dir, 'run');
    const seen: Watch = { most: 0, missing: [] };
    await runAndKill(logPath, root, data, 4, seen);
    await runAndKill(logPath, root, data, 8, seen);
    const server = await startLocalTinker({ port: 0, root });
    const service = new ServiceClient({ baseURL: server.baseURL });
    try {
      const resumed = await runSft(keepLastConfig(logPath, data, service));
      expect(resumed.status).toBe('completed');
      expect(resumed.startStep).toBeGreaterThan(0);
    } finally {
      await service.close();
      await server.close();
    }
    watch(root, logPath, seen);
    expect(seen.missing).toEqual([]);
    // Two recorded resume states, plus the one being written before the oldest may go.
    expect(seen.most, seen.worst?.join('\n')).toBeLessThanOrEqual(3);
    const left = liveStates(root);
    expect(left).toHaveLength(2);
    expect(left).toContain(readCheckpoints(logPath).at(-1)!.state_path);
    expect(readMetricRows(logPath)).toEqual(readMetricRows(refPath));
  }, 180_000);
});
