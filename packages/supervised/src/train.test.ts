import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { join } from 'node:path';
import { ConfigError } from '@cookbook/core';
import { getLastCheckpoint, readCheckpoints } from '@cookbook/logging';
import { ServiceClient } from '@cookbook/tinker-client';
import { describe, expect, it } from 'vitest';
import { FakeService } from './__tests__/fake-service.js';
import { tempDir } from './__tests__/helpers.js';
import {
  readCheckpointSummary,
  readMetricRows,
  runSft,
  type SftOptions,
  syntheticDatasets,
} from './__tests__/run-helpers.js';
import { trainSupervised } from './train.js';

const quiet = { console: false as const, progress: false as const, log: () => {}, writeReport: false };

function baseConfig(logPath: string, service: FakeService, extra: Partial<SftOptions> = {}) {
  return {
    logPath,
    modelName: 'fake/model',
    dataset: () => syntheticDatasets(26, 2, 4),
    serviceClient: service,
    learningRate: 0.05,
    saveEvery: 5,
    evalEvery: 4,
    behaviorIfLogDirExists: 'resume' as const,
    ...quiet,
    ...extra,
  } satisfies SftOptions;
}

class Crash extends Error {}

describe('trainSupervised: pipelining', () => {
  for (const submitAhead of [1, 2, 0]) {
    it(`submits ${submitAhead} step(s) ahead of the step it awaits`, async () => {
      const service = new FakeService({ delayMs: 2 });
      const submittedAtLog: number[] = [];
      await runSft(
        baseConfig(join(tempDir(), 'run'), service, {
          submitAhead,
          saveEvery: 0,
          evalEvery: 0,
          onStepLogged: () =>
            submittedAtLog.push(
              service.events.filter((e) => e.op === 'forward_backward' && e.phase === 'submit').length,
            ),
        }),
      );
      const total = 13;
      expect(submittedAtLog).toHaveLength(total);
      // When step s's results are awaited and logged, steps s+1..s+submitAhead have already been submitted.
      expect(submittedAtLog).toEqual(submittedAtLog.map((_, s) => Math.min(total, s + 1 + submitAhead)));
      // forward_backward and optim_step go out back to back.
      const submits = service.events.filter((e) => e.phase === 'submit').map((e) => e.op);
      expect(submits.slice(0, 4)).toEqual(['forward_backward', 'optim_step', 'forward_backward', 'optim_step']);
    });
  }
});

describe('trainSupervised: metrics and checkpoints', () => {
  it('logs upstream metric names, evaluates held-out NLL and saves checkpoints', async () => {
    const logPath = join(tempDir(), 'run');
    const result = await runSft(baseConfig(logPath, new FakeService()));
    expect(result).toMatchObject({ status: 'completed', startStep: 0, totalSteps: 13 });
    const rows = readMetricRows(logPath);
    expect(rows.map((r) => r.step)).toEqual([...Array.from({ length: 13 }, (_, i) => i), 13]);
    const first = rows[0]!;
    for (const key of [
      'train_mean_nll',
      'learning_rate',
      'progress',
      'epoch',
      'num_sequences',
      'num_tokens',
      'num_loss_tokens',
      'test/nll',
      'optimizer/grad_norm',
    ]) {
      expect(first, key).toHaveProperty(key);
    }
    expect(rows.filter((r) => 'test/nll' in r).map((r) => r.step)).toEqual([0, 4, 8, 12, 13]);
    expect(rows[6]!.learning_rate).toBeCloseTo(0.05 * (1 - 6 / 13));
    expect(rows[12]!.train_mean_nll as number).toBeLessThan(first.train_mean_nll as number);
    expect(rows[13]!['test/nll'] as number).toBeLessThan(first['test/nll'] as number);
    expect(readCheckpointSummary(logPath)).toEqual([
      {
        name: '000005',
        epoch: 0,
        batch: 5,
        step: 5,
        elapsed_tokens: expect.any(Number),
        has_state: true,
        has_sampler: true,
      },
      {
        name: '000010',
        epoch: 0,
        batch: 10,
        step: 10,
        elapsed_tokens: expect.any(Number),
        has_state: true,
        has_sampler: true,
      },
      {
        name: 'final',
        epoch: 1,
        batch: 0,
        step: 13,
        final: true,
        elapsed_tokens: expect.any(Number),
        has_state: true,
        has_sampler: true,
      },
    ]);
    expect(existsSync(join(logPath, 'config.json'))).toBe(true);
  });

  it('honours max_steps and num_epochs', async () => {
    const logPath = join(tempDir(), 'run');
    const r = await runSft(baseConfig(logPath, new FakeService(), { numEpochs: 3, maxSteps: 30 }));
    expect(r.totalSteps).toBe(30);
    const rows = readMetricRows(logPath).filter((x) => 'train_mean_nll' in x);
    expect(rows.map((x) => x.epoch)).toEqual([...new Array(13).fill(0), ...new Array(13).fill(1), 2, 2, 2, 2]);
  });
});

describe('trainSupervised: resume', () => {
  async function uninterrupted(extra: Partial<SftOptions> = {}) {
    const logPath = join(tempDir(), 'ref');
    await runSft(baseConfig(logPath, new FakeService(), extra));
    return { rows: readMetricRows(logPath), checkpoints: readCheckpointSummary(logPath) };
  }

  const crashes: [string, number, Partial<SftOptions>][] = [
    ['mid-run', 7, {}],
    ['between a metrics line and the next checkpoint line', 9, {}],
    ['right after a checkpoint', 5, {}],
    ['in the second epoch', 17, { numEpochs: 2 }],
    ['with two steps in flight', 8, { submitAhead: 2 }],
  ];
  for (const [when, crashAt, extra] of crashes) {
    it(`continues at the exact next batch after a crash ${when}`, async () => {
      const ref = await uninterrupted(extra);
      const logPath = join(tempDir(), 'run');
      const service = new FakeService();
      await expect(
        runSft(
          baseConfig(logPath, service, {
            ...extra,
            onStepLogged: (step) => {
              if (step === crashAt) throw new Crash(`crash at ${step}`);
            },
          }),
        ),
      ).rejects.toBeInstanceOf(Crash);
      const last = getLastCheckpoint(logPath);
      expect(last?.step).toBe(Math.floor(crashAt / 5) * 5);
      const resumed = await runSft(baseConfig(logPath, service, extra));
      expect(resumed.startStep).toBe(last?.step);
      expect(readMetricRows(logPath)).toEqual(ref.rows);
      expect(readCheckpointSummary(logPath)).toEqual(ref.checkpoints);
    });
  }

  it('recovers from half-written last lines in metrics.jsonl and checkpoints.jsonl', async () => {
    const ref = await uninterrupted();
    const logPath = join(tempDir(), 'run');
    const service = new FakeService();
    await expect(
      runSft(
        baseConfig(logPath, service, {
          onStepLogged: (step) => {
            if (step === 11) throw new Crash('crash');
          },
        }),
      ),
    ).rejects.toBeInstanceOf(Crash);
    appendFileSync(join(logPath, 'metrics.jsonl'), '{"step": 12, "train_mean');
    appendFileSync(join(logPath, 'checkpoints.jsonl'), '{"name": "000015", "state_pa');
    expect(readCheckpoints(logPath).map((r) => r.name)).toEqual(['000005', '000010']);
    await runSft(baseConfig(logPath, service));
    expect(readMetricRows(logPath)).toEqual(ref.rows);
    expect(readCheckpointSummary(logPath)).toEqual(ref.checkpoints);
  });

  it('does nothing when the run already finished', async () => {
    const logPath = join(tempDir(), 'run');
    const service = new FakeService();
    await runSft(baseConfig(logPath, service));
    const n = service.events.length;
    const again = await runSft(baseConfig(logPath, service));
    expect(again.status).toBe('already_finished');
    expect(again.finalCheckpoint?.name).toBe('final');
    expect(service.events.length).toBe(n);
  });

  it('starts over with delete, refuses with raise, and asks only on a terminal', async () => {
    const logPath = join(tempDir(), 'run');
    mkdirSync(logPath, { recursive: true });
    writeFileSync(join(logPath, 'metrics.jsonl'), '{"step": 0, "old": 1}\n');
    await expect(runSft(baseConfig(logPath, new FakeService(), { behaviorIfLogDirExists: 'raise' }))).rejects.toThrow(
      ConfigError,
    );
    await expect(
      runSft(
        baseConfig(logPath, new FakeService(), { behaviorIfLogDirExists: 'ask', logDirOptions: { isTTY: false } }),
      ),
    ).rejects.toThrow(/behavior_if_log_dir_exists=resume/);
    const answers = ['maybe', 'exit'];
    const exited = await runSft(
      baseConfig(logPath, new FakeService(), {
        behaviorIfLogDirExists: 'ask',
        logDirOptions: { isTTY: true, prompt: async () => answers.shift()! },
      }),
    );
    expect(exited.status).toBe('skipped');
    expect(answers).toEqual([]);
    await runSft(baseConfig(logPath, new FakeService(), { behaviorIfLogDirExists: 'delete' }));
    expect(readMetricRows(logPath).some((r) => 'old' in r)).toBe(false);
  });
});

describe('trainSupervised: an unreachable server', () => {
  it('fails before the log dir is created, and deletes no old run', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const dead = () =>
      new ServiceClient({ baseURL: `http://127.0.0.1:${port}`, connectRetries: 0, warn: () => undefined });
    const fresh = join(tempDir(), 'fresh');
    const config = (logPath: string, serviceClient: ServiceClient) => ({
      logPath,
      modelName: 'fake/model',
      dataset: () => syntheticDatasets(8, 2),
      learningRate: 0.05,
      serviceClient,
      ...quiet,
    });
    const first = dead();
    await expect(trainSupervised(config(fresh, first), config(fresh, first))).rejects.toThrow(/could not reach/);
    expect(existsSync(fresh)).toBe(false);
    await first.close();

    const old = join(tempDir(), 'old');
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, 'metrics.jsonl'), '{"step":0,"loss":1}\n');
    const second = dead();
    const deleting = { ...config(old, second), behaviorIfLogDirExists: 'delete' as const };
    await expect(trainSupervised(deleting, deleting)).rejects.toThrow(/could not reach/);
    expect(readFileSync(join(old, 'metrics.jsonl'), 'utf8')).toBe('{"step":0,"loss":1}\n');
    await second.close();
  });
});
