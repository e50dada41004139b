import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { clearInterruption, interruptionSignal, LockHeldError } from '@cookbook/core';
import { appendCheckpointRecord, readCheckpoints, readMetrics } from '@cookbook/logging';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempDir } from './__fixtures__/test-utils.js';
import { RUN_LOCK_FILE, type RunLoopOptions, runLoop } from './run.js';

const tmp = useTempDir();
afterEach(() => clearInterruption());

function options(logPath: string, extra: Partial<RunLoopOptions> = {}): RunLoopOptions {
  return {
    logPath,
    behaviorIfLogDirExists: 'resume',
    config: { log_path: logPath },
    console: false,
    progress: false,
    log: () => {},
    handleSigint: false,
    writeReport: false,
    ...extra,
  };
}

describe('a log dir belongs to one live run (regression: two runs logged the same steps twice)', () => {
  it('a second run on a live run’s folder refuses, naming the first, whatever its log-dir policy', async () => {
    const logPath = join(tmp(), 'run');
    const refusals: unknown[] = [];
    const result = await runLoop(options(logPath), async (run) => {
      for (let step = 0; step < 4; step++) {
        run.logger.logMetrics({ loss: step }, step);
        if (step === 1) {
          appendCheckpointRecord(run.logPath, { name: 'c2', step: 2, state_path: 's2' });
          for (const behaviorIfLogDirExists of ['resume', 'delete', 'raise'] as const) {
            refusals.push(
              await runLoop(options(logPath, { behaviorIfLogDirExists }), async () => ({
                totalSteps: 4,
                endStep: 4,
              })).then(
                () => 'ran',
                (e: unknown) => e,
              ),
            );
          }
        }
      }
      appendCheckpointRecord(run.logPath, { name: 'final', step: 4, state_path: 'sf', final: true });
      return { totalSteps: 4, endStep: 4 };
    });
    expect(result.status).toBe('completed');
    for (const e of refusals) {
      expect(e).toBeInstanceOf(LockHeldError);
      expect((e as Error).message).toContain(`log_path ${logPath} is in use by another run: pid ${process.pid}`);
    }
    // Nothing of the first run was deleted or written twice.
    expect((await readMetrics(join(logPath, 'metrics.jsonl'))).rows.map((r) => r.step)).toEqual([0, 1, 2, 3]);
    expect(readCheckpoints(logPath).filter((c) => c.final === true)).toHaveLength(1);
    expect(existsSync(join(logPath, RUN_LOCK_FILE))).toBe(false);
  });

  it('a lock left by a run that died is taken over, and the run resumes', async () => {
    const logPath = join(tmp(), 'run');
    await runLoop(options(logPath), async (run) => {
      run.logger.logMetrics({ loss: 1 }, 0);
      appendCheckpointRecord(run.logPath, { name: 'c1', step: 1, state_path: 's1' });
      return { totalSteps: 3, endStep: 1 };
    });
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(
      join(logPath, RUN_LOCK_FILE),
      JSON.stringify({ pid: dead, host: hostname(), since: 'x', what: 'old' }),
    );
    const r = await runLoop(options(logPath), async (run) => ({ totalSteps: 3, endStep: Math.max(3, run.startStep) }));
    expect(r.startStep).toBe(1);
    expect(readdirSync(logPath)).not.toContain(RUN_LOCK_FILE);
  });
});

describe('SIGTERM is handled like Ctrl-C (regression: exit 143 at once, no report, steps lost)', () => {
  it('stops at a step boundary, writes the report and records the signal for the exit status', async () => {
    const logPath = join(tmp(), 'run');
    const lines: string[] = [];
    const result = await runLoop(
      options(logPath, { handleSigint: true, writeReport: true, log: (l) => lines.push(l) }),
      async (run) => {
        let step = 0;
        for (; step < 10 && !run.signal.aborted; step++) {
          run.logger.logMetrics({ x: step }, step);
          if (step === 2) process.emit('SIGTERM', 'SIGTERM');
        }
        appendCheckpointRecord(run.logPath, { name: 'c3', step, state_path: `s${step}` });
        return { totalSteps: 10, endStep: step };
      },
    );
    expect(result).toMatchObject({ status: 'interrupted', stepsRun: 3 });
    expect(existsSync(join(logPath, 'report.html'))).toBe(true);
    expect(lines.join('\n')).toContain('SIGTERM: stopping after the current step');
    expect(interruptionSignal()).toBe('SIGTERM');
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });

  it('Ctrl-C is recorded as SIGINT', async () => {
    const logPath = join(tmp(), 'run');
    await runLoop(options(logPath, { handleSigint: true }), async (run) => {
      process.emit('SIGINT', 'SIGINT');
      return { totalSteps: 2, endStep: run.signal.aborted ? 0 : 2 };
    });
    expect(interruptionSignal()).toBe('SIGINT');
  });
});
