import { join } from 'node:path';
import { readCheckpoints, readMetrics } from '@cookbook/logging';
import { describe, expect, it } from 'vitest';
import { useTempDir } from './__fixtures__/test-utils.js';
import { type EpochClient, type EpochLoop, type EpochPlan, runEpochs } from './epoch-driver.js';
import type { TrainingClientEvaluator } from './evaluator.js';
import { type RunContext, type RunLoopOptions, runLoop } from './run.js';

const tmp = useTempDir();

function options(logPath: string, extra: Partial<RunLoopOptions> = {}): RunLoopOptions {
  return {
    logPath,
    behaviorIfLogDirExists: 'raise',
    config: {},
    console: false,
    progress: false,
    log: () => {},
    handleSigint: false,
    writeReport: false,
    ...extra,
  };
}

/** A training client that records what the driver asks of it, in order. */
function fakeClient(calls: string[]): EpochClient {
  return {
    forward: async () => {
      calls.push('forward');
      return { lossFnOutputs: [], metrics: {} };
    },
    saveState: async (name: string) => {
      calls.push(`saveState ${name}`);
      return { path: `tinker://run/weights/${name}` };
    },
    saveWeightsForSampler: async (name: string) => {
      calls.push(`saveSampler ${name}`);
      return { path: `tinker://run/sampler_weights/${name}` };
    },
  } as unknown as EpochClient;
}

function plan(logPath: string, extra: Partial<EpochPlan> = {}): EpochPlan {
  return {
    nBatches: 3,
    numEpochs: 2,
    maxSteps: null,
    learningRate: 0.1,
    lrSchedule: 'linear',
    evalEvery: 2,
    infrequentEvalEvery: 0,
    saveEvery: 4,
    ttlSeconds: null,
    logPath,
    ...extra,
  };
}

/** A loop whose step logs `loss` = 10 − step and records which steps ran, in which epoch, at which rate. */
function toyLoop(calls: string[], extra: Partial<EpochLoop> = {}): EpochLoop {
  const evaluator: TrainingClientEvaluator = {
    kind: 'training_client',
    name: 'toy',
    evaluate: async (_client, ctx) => {
      calls.push(`eval ${ctx.step}`);
      return { 'test/x': ctx.step };
    },
  };
  return {
    client: fakeClient(calls),
    evaluators: [evaluator],
    setEpoch: (epoch) => calls.push(`epoch ${epoch}`),
    checkpointFields: (done) => ({ extra_field: done * 10 }),
    async submit(at) {
      calls.push(`submit ${at.step} e${at.epoch} b${at.batch} lr${at.learningRate.toFixed(4)}`);
      return { collect: async () => ({ loss: 10 - at.step }) };
    },
    ...extra,
  };
}

describe('runEpochs', () => {
  it('runs every batch of every epoch with the schedule, the eval cadence, periodic and final checkpoints', async () => {
    const logPath = join(tmp(), 'run');
    const calls: string[] = [];
    const result = await runLoop(options(logPath), (run) => runEpochs(run, plan(logPath), async () => toyLoop(calls)));
    expect(result).toMatchObject({ status: 'completed', startStep: 0, stepsRun: 6, totalSteps: 6 });
    expect(calls).toEqual([
      'epoch 0',
      'eval 0',
      'submit 0 e0 b0 lr0.1000',
      'submit 1 e0 b1 lr0.0833',
      'eval 2',
      'submit 2 e0 b2 lr0.0667',
      'epoch 1',
      'submit 3 e1 b0 lr0.0500',
      'saveState 000004',
      'saveSampler 000004',
      'eval 4',
      'submit 4 e1 b1 lr0.0333',
      'submit 5 e1 b2 lr0.0167',
      'eval 6',
      'saveState final',
      'saveSampler final',
    ]);
    const rows = (await readMetrics(join(logPath, 'metrics.jsonl'))).rows;
    expect(rows.map((r) => [r.step, r.loss, r['test/x']])).toEqual([
      [0, 10, 0],
      [1, 9, undefined],
      [2, 8, 2],
      [3, 7, undefined],
      [4, 6, 4],
      [5, 5, undefined],
      [6, undefined, 6],
    ]);
    expect(rows.at(-1)?.progress).toBe(1);
    const checkpoints = readCheckpoints(logPath);
    expect(checkpoints.map((c) => [c.name, c.step, c.epoch, c.batch, c.extra_field, c.final ?? false])).toEqual([
      ['000004', 4, 1, 1, 40, false],
      ['final', 6, 2, 0, 60, true],
    ]);
    expect(result.finalCheckpoint?.state_path).toBe('tinker://run/weights/final');
  });

  it('does not wait for a save: the next steps run while it is out, and its record follows its step row', async () => {
    const logPath = join(tmp(), 'run');
    const calls: string[] = [];
    let release: () => void = () => undefined;
    const saved = new Promise<void>((r) => {
      release = r;
    });
    const client = {
      ...fakeClient(calls),
      saveState: async (name: string) => {
        calls.push(`saveState ${name}`);
        if (name === '000002') await saved;
        calls.push(`saved ${name}`);
        return { path: `tinker://run/weights/${name}` };
      },
    } as unknown as EpochClient;
    const loop = toyLoop(calls, {
      client,
      evaluators: [],
      async submit(at) {
        calls.push(`submit ${at.step}`);
        // Step 2 runs while the save after step 1 is still out; then the save comes back.
        if (at.step === 2) release();
        return { collect: async () => ({ loss: 10 - at.step }) };
      },
    });
    await runLoop(options(logPath), (run) =>
      runEpochs(run, plan(logPath, { nBatches: 5, numEpochs: 1, saveEvery: 2, evalEvery: 0 }), async () => loop),
    );
    expect(calls.filter((c) => !c.startsWith('epoch') && !c.startsWith('saveSampler'))).toEqual([
      'submit 0',
      'submit 1',
      'saveState 000002',
      'submit 2',
      'saved 000002',
      'submit 3',
      'saveState 000004',
      'saved 000004',
      'submit 4',
      'saveState final',
      'saved final',
    ]);
    expect(readCheckpoints(logPath).map((c) => c.name)).toEqual(['000002', '000004', 'final']);
  });

  it('stops at max_steps and resumes at the last checkpoint with the next batch', async () => {
    const logPath = join(tmp(), 'run');
    const first: string[] = [];
    await runLoop(options(logPath), (run) =>
      runEpochs(run, plan(logPath, { maxSteps: 5, saveEvery: 2, evalEvery: 0 }), async () => toyLoop(first)),
    );
    expect(readCheckpoints(logPath).map((c) => c.step)).toEqual([2, 4, 5]);
    // A longer run resumed from the final checkpoint of the short one starts at step 5.
    const second: string[] = [];
    const resumed = await runLoop(options(logPath, { behaviorIfLogDirExists: 'resume' }), (run) =>
      runEpochs(run, plan(logPath, { maxSteps: 6, saveEvery: 2, evalEvery: 0 }), async (startStep) => {
        second.push(`setup at ${startStep}`);
        return toyLoop(second);
      }),
    );
    expect(resumed).toMatchObject({ startStep: 5, stepsRun: 1, totalSteps: 6 });
    expect(second).toEqual([
      'setup at 5',
      'epoch 1',
      'submit 5 e1 b2 lr0.0167',
      'saveState final',
      'saveSampler final',
    ]);
  });

  it('returns at once, without setting up, for a run already at its end', async () => {
    const logPath = join(tmp(), 'run');
    await runLoop(options(logPath), (run) => runEpochs(run, plan(logPath), async () => toyLoop([])));
    let setUp = false;
    const again = await runLoop(options(logPath, { behaviorIfLogDirExists: 'resume' }), (run) =>
      runEpochs(run, plan(logPath), async () => {
        setUp = true;
        return toyLoop([]);
      }),
    );
    expect(setUp).toBe(false);
    expect(again.status).toBe('already_finished');
  });

  it('on interruption saves a resumable checkpoint at the step reached and skips the final eval', async () => {
    const logPath = join(tmp(), 'run');
    const calls: string[] = [];
    const controller = new AbortController();
    const result = await runLoop(options(logPath), (run) => {
      // The run as the loop sees it, with a signal the test aborts (SIGINT aborts the run's own).
      const interruptible: RunContext = Object.assign(Object.create(run) as RunContext, { signal: controller.signal });
      return runEpochs(interruptible, plan(logPath), async () =>
        toyLoop(calls, {
          async submit(at) {
            calls.push(`submit ${at.step}`);
            if (at.step === 2) controller.abort();
            return { collect: async () => ({ loss: 1 }) };
          },
        }),
      );
    });
    expect(result).toMatchObject({ stepsRun: 3, totalSteps: 6 });
    expect(result.finalCheckpoint).toBeUndefined();
    expect(calls.filter((c) => c.startsWith('submit'))).toEqual(['submit 0', 'submit 1', 'submit 2']);
    expect(calls).not.toContain('eval 4');
    expect(readCheckpoints(logPath).map((c) => [c.name, c.step, c.final ?? false])).toEqual([['000003', 3, false]]);
  });

  it('keeps submitAhead steps in flight: a step is collected only after the next one is submitted', async () => {
    const logPath = join(tmp(), 'run');
    const calls: string[] = [];
    await runLoop(options(logPath), (run) =>
      runEpochs(run, plan(logPath, { numEpochs: 1, evalEvery: 0, saveEvery: 0 }), async () =>
        toyLoop(calls, {
          submitAhead: 1,
          async submit(at) {
            calls.push(`submit ${at.step}`);
            return {
              collect: async () => {
                calls.push(`collect ${at.step}`);
                return { loss: 1 };
              },
            };
          },
        }),
      ),
    );
    expect(calls.filter((c) => !c.startsWith('epoch') && !c.startsWith('save'))).toEqual([
      'submit 0',
      'submit 1',
      'collect 0',
      'submit 2',
      'collect 1',
      'collect 2',
    ]);
  });
});
