import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CookbookError, InterruptedError, recordTime, traceScope } from '@cookbook/core';
import { appendCheckpointRecord, readCheckpoints, readMetrics } from '@cookbook/logging';
import { describe, expect, it } from 'vitest';
import { fakeTerminal } from './__fixtures__/terminal.js';
import { useTempDir } from './__fixtures__/test-utils.js';
import { type RunLoopOptions, runLoop } from './run.js';

const tmp = useTempDir();

function options(logPath: string, extra: Partial<RunLoopOptions> = {}): RunLoopOptions {
  return {
    logPath,
    behaviorIfLogDirExists: 'raise',
    config: { log_path: logPath, learning_rate: 1e-4 },
    console: false,
    progress: false,
    log: () => {},
    handleSigint: false,
    writeReport: false,
    ...extra,
  };
}

/** A toy loop: logs `loss` = 10 − step for each step and checkpoints every 2 steps. */
async function toyLoop(o: RunLoopOptions, total: number, failAt?: number) {
  return runLoop(o, async (run) => {
    let step = run.startStep;
    if (step >= total) return { totalSteps: total, endStep: step };
    for (; step < total; step++) {
      if (step === failAt) throw new Error(`boom at ${step}`);
      run.logger.logMetrics({ loss: 10 - step }, step);
      if ((step + 1) % 2 === 0)
        appendCheckpointRecord(run.logPath, { name: `c${step + 1}`, step: step + 1, state_path: `s${step + 1}` });
    }
    const finalCheckpoint = { name: 'final', step: total, final: true, state_path: 'sf' };
    appendCheckpointRecord(run.logPath, finalCheckpoint);
    return { totalSteps: total, endStep: step, finalCheckpoint };
  });
}

describe('runLoop', () => {
  it('writes config.json, runs the body and returns the shared result shape', async () => {
    const logPath = join(tmp(), 'run');
    const result = await toyLoop(options(logPath), 4);
    expect(result).toMatchObject({ status: 'completed', logPath, startStep: 0, stepsRun: 4, totalSteps: 4 });
    expect(result.finalCheckpoint?.name).toBe('final');
    expect(JSON.parse(readFileSync(join(logPath, 'config.json'), 'utf8'))).toEqual({
      log_path: logPath,
      learning_rate: 1e-4,
    });
    expect((await readMetrics(join(logPath, 'metrics.jsonl'))).rows.map((r) => r.step)).toEqual([0, 1, 2, 3]);
  });

  it('writes the spans each step recorded to timing_spans.jsonl; a resumed run drops the lines of re-run steps', async () => {
    const logPath = join(tmp(), 'run');
    /** Steps that record `sample` (measured by the loop) and `train` (a traced scope, with a nested span). */
    const loop = (o: RunLoopOptions, total: number, failAt?: number) =>
      runLoop(o, async (run) => {
        for (let step = run.startStep; step < total; step++) {
          if (step === failAt) throw new Error(`boom at ${step}`);
          const metrics: Record<string, number> = {};
          const t0 = performance.now();
          recordTime(metrics, 'sample', t0 - 1000 * (step + 1), t0);
          await traceScope('train', () => traceScope('forward_backward', async () => undefined));
          run.logger.logMetrics(metrics, step);
          if (step === 1) appendCheckpointRecord(run.logPath, { name: 'c2', step: 2, state_path: 's2' });
        }
        // After the last logged step (a final save): written under that step, in a line of its own.
        await traceScope('checkpoint', async () => undefined);
        return { totalSteps: total, endStep: total };
      });
    const lines = () =>
      readFileSync(join(logPath, 'timing_spans.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { step: number; spans: { name: string; duration: number; depth?: number }[] });
    await expect(loop(options(logPath), 4, 3)).rejects.toThrow('boom at 3');
    expect(lines().map((l) => l.step)).toEqual([0, 1, 2]);
    const [first] = lines();
    expect(first!.spans.map((s) => [s.name, s.depth ?? 0])).toEqual([
      ['sample', 0],
      ['train', 0],
      ['forward_backward', 1],
    ]);
    expect(first!.spans[0]!.duration).toBeCloseTo(1, 3);
    await loop(options(logPath, { behaviorIfLogDirExists: 'resume' }), 4);
    const after = lines();
    expect(after.map((l) => l.step)).toEqual([0, 1, 2, 3, 3]);
    expect(after[2]!.spans[0]!.duration).toBeCloseTo(3, 3);
    expect(after[4]!.spans.map((s) => s.name)).toEqual(['checkpoint']);
  });

  it('resumes at the step of the last checkpoint and drops metrics rows written past it', async () => {
    const logPath = join(tmp(), 'run');
    await expect(toyLoop(options(logPath), 6, 5)).rejects.toThrow('boom at 5');
    // steps 0–4 logged, checkpoint at step 4: row 4 is past it and is recomputed.
    const result = await toyLoop(options(logPath, { behaviorIfLogDirExists: 'resume' }), 6);
    expect(result).toMatchObject({ status: 'completed', startStep: 4, stepsRun: 2 });
    expect((await readMetrics(join(logPath, 'metrics.jsonl'))).rows.map((r) => r.step)).toEqual([0, 1, 2, 3, 4, 5]);
    const again = await toyLoop(options(logPath, { behaviorIfLogDirExists: 'resume' }), 6);
    expect(again).toMatchObject({ status: 'already_finished', stepsRun: 0, startStep: 6 });
  });

  it('leaves no trace of a run that failed before logging anything in a folder it created', async () => {
    const logPath = join(tmp(), 'run');
    await expect(toyLoop(options(logPath), 3, 0)).rejects.toThrow('boom at 0');
    expect(existsSync(logPath)).toBe(false);
  });

  it('keeps what a failed run logged, and the report', async () => {
    const logPath = join(tmp(), 'run');
    await expect(toyLoop(options(logPath, { writeReport: true }), 3, 1)).rejects.toThrow('boom at 1');
    expect((await readMetrics(join(logPath, 'metrics.jsonl'))).rows).toHaveLength(1);
    expect(existsSync(join(logPath, 'report.html'))).toBe(true);
  });

  it('refuses a log_path that is a file, for every behaviour, and deletes nothing', async () => {
    const file = join(tmp(), 'data.jsonl');
    writeFileSync(file, '{"messages":[]}\n');
    for (const behaviorIfLogDirExists of ['delete', 'resume', 'raise'] as const) {
      await expect(toyLoop(options(file, { behaviorIfLogDirExists }), 1)).rejects.toThrow(
        `log_path ${file} is a file, not a folder; choose another log_path (nothing was changed)`,
      );
    }
    expect(readFileSync(file, 'utf8')).toBe('{"messages":[]}\n');
    await expect(toyLoop(options(join(file, 'run')), 1)).rejects.toThrow(/is inside .*data\.jsonl, which is a file/);
  });

  it('validates in prepare before deleting an old run', async () => {
    const logPath = join(tmp(), 'run');
    mkdirSync(logPath);
    writeFileSync(join(logPath, 'metrics.jsonl'), '{"step":0,"loss":1}\n');
    const o = options(logPath, {
      behaviorIfLogDirExists: 'delete',
      prepare: () => {
        throw new Error('bad data');
      },
    });
    await expect(toyLoop(o, 1)).rejects.toThrow('bad data');
    expect(readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')).toBe('{"step":0,"loss":1}\n');
    await toyLoop(options(logPath, { behaviorIfLogDirExists: 'delete' }), 2);
    expect(readCheckpoints(logPath).map((c) => c.name)).toEqual(['c2', 'final']);
  });

  it('closes what the body owns, on success and on error', async () => {
    const closed: string[] = [];
    const logPath = join(tmp(), 'run');
    await runLoop(options(logPath), async (run) => {
      run.own({ close: () => void closed.push('ok') });
      run.logger.logMetrics({ x: 1 }, 0);
      return { totalSteps: 1, endStep: 1 };
    });
    await expect(
      runLoop(options(logPath, { behaviorIfLogDirExists: 'delete' }), async (run) => {
        run.own({ close: () => void closed.push('error') });
        throw new Error('x');
      }),
    ).rejects.toThrow('x');
    expect(closed).toEqual(['ok', 'error']);
  });

  it('stops at a step boundary on SIGINT and reports the run as interrupted', async () => {
    const logPath = join(tmp(), 'run');
    const lines: string[] = [];
    let reason: unknown;
    const result = await runLoop(options(logPath, { handleSigint: true, log: (l) => lines.push(l) }), async (run) => {
      let step = 0;
      for (; step < 10 && !run.signal.aborted; step++) {
        run.logger.logMetrics({ x: step }, step);
        if (step === 2) process.emit('SIGINT');
      }
      reason = run.signal.reason;
      return { totalSteps: 10, endStep: step };
    });
    expect(result).toMatchObject({ status: 'interrupted', stepsRun: 3, totalSteps: 10 });
    // The abort reason is a cookbook error, so a loop that rethrows it is reported like any other.
    expect(reason).toBeInstanceOf(InterruptedError);
    expect(CookbookError.isInstance(reason)).toBe(true);
    expect(lines.join('\n')).toContain('interrupted: stopping after the current step');
    expect(process.listenerCount('SIGINT')).toBe(0);
  });
});

describe('runLoop progress', () => {
  it('shows step i/N, the rate and the headline metric; counts a resumed run from its start step', async () => {
    const logPath = join(tmp(), 'run');
    let text = '';
    const sink = {
      write: (s: string) => {
        text += s;
      },
      isTTY: false,
    };
    await toyLoop(options(logPath, { progress: sink }), 4, 3).catch(() => {});
    text = '';
    await runLoop(options(logPath, { behaviorIfLogDirExists: 'resume', progress: sink }), async (run) => {
      run.setTotalSteps(12);
      for (let step = run.startStep; step < 12; step++)
        run.logger.logMetrics({ train_mean_nll: 12 - step, num_tokens: 7 }, step);
      return { totalSteps: 12, endStep: 12 };
    });
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^step 3\/12 {2}25% \[/);
    expect(lines.at(-1)).toMatch(/^step 12\/12 100% \[.*\] train_mean_nll 1$/);
    expect(text).not.toContain('num_tokens');
  });

  it('on a terminal: the step detail after the headline metric, tables and notices above one bar', async () => {
    const term = fakeTerminal(160);
    const logPath = join(tmp(), 'run');
    const notices: string[] = [];
    await runLoop(
      options(logPath, { progress: term, console: term, log: (l) => term.write(`${l}\n`) }),
      async (run) => {
        run.setTotalSteps(20);
        run.logger.logMetrics({ train_mean_nll: 1.5 }, 0);
        run.logger.logMetrics({ train_mean_nll: 1.25 }, 1);
        run.log('a notice');
        await new Promise((r) => setTimeout(r, 120)); // past the redraw throttle
        run.setProgressDetail('rollouts 5/8');
        notices.push(term.screen().at(-1) ?? '');
        return { totalSteps: 20, endStep: 2 };
      },
    );
    expect(notices[0]).toMatch(/^\|█+ +\| step 2\/20 .* train_mean_nll 1\.250000 \| rollouts 5\/8$/);
    const screen = term.screen();
    expect(screen.filter((l) => l.includes('step 2/20'))).toHaveLength(1); // one bar, left at the bottom by finish
    expect(screen).toContain('a notice');
    expect(screen.map((l) => l.trim())).toContain('Step 1');
    expect(screen.every((l) => !l.includes('│') || !l.includes('step '))).toBe(true); // no table row glued to the bar
  });

  it('counts units of work (an eval counts samples) instead of steps', async () => {
    const logPath = join(tmp(), 'run');
    const out = {
      text: '',
      write(s: string) {
        this.text += s;
      },
      isTTY: false,
    };
    await runLoop(options(logPath, { progress: out }), async (run) => {
      run.setProgressCount(2, 10, 'sample');
      for (let done = 3; done <= 10; done++) run.setProgressCount(done, 10, 'sample');
      run.logger.logMetrics({ accuracy: 0.5 }, 0);
      return { totalSteps: 1, endStep: 1 };
    });
    const lines = out.text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^sample 3\/10 {2}30% \[/);
    expect(lines.at(-1)).toMatch(/^sample 10\/10 100% \[.*sample\/s\] accuracy 0\.500000$/);
  });
});
