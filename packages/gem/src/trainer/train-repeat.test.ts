/**
 * The GEM trainer repeats exactly on the embedded service: two runs with one seed write the same `metrics.jsonl`
 * (every figure but the timings), and a run that crashes mid-way and is resumed from its last checkpoint ends with the
 * same metrics, digit for digit, as a run that was never interrupted.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Env, ResetResult, StepResult } from '../core/env.js';
import type { GemTrainConfigInput, GemTrainDeps } from './config.js';
import { trainGem } from './train.js';

/** Each metrics row without its timings, as the exact text it was written with. */
const figures = (logPath: string): string[] =>
  readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const row = JSON.parse(l) as Record<string, unknown>;
      return JSON.stringify(Object.fromEntries(Object.entries(row).filter(([k]) => !k.startsWith('time/'))));
    });

const everyStepTrained = (rows: string[]): boolean =>
  rows.every((row) => (JSON.parse(row) as Record<string, number>)['train/skipped_no_signal'] === 0);

const quiet = { console: false, progress: false, log: () => {} } satisfies GemTrainDeps;

class Crash extends Error {}

/**
 * Two turns; each turn's reward is the share of distinct characters in the reply. Any reply of the untrained stand-in
 * scores something different, so every step has a training signal (the optimizer state matters on resume).
 */
class VarietyEnv implements Env {
  turn = 0;
  async reset(): Promise<ResetResult> {
    this.turn = 0;
    return { observation: 'Write anything.', info: {} };
  }
  async step(action: string): Promise<StepResult> {
    this.turn++;
    const reward = action.length === 0 ? 0 : new Set(action).size / action.length;
    const over = this.turn >= 2;
    return { observation: 'Again.', reward, terminated: over, truncated: false, info: {} };
  }
  sampleRandomAction(): string {
    return 'anything';
  }
}

describe('trainGem repeats exactly', () => {
  let dir: string;
  let server: Awaited<ReturnType<typeof startLocalTinker>>;
  let service: ServiceClient;
  // Three envs playing concurrently; turns sampled at temperature 1 by the untrained stand-in.
  const config = (logPath: string, extra: Partial<GemTrainConfigInput> = {}): GemTrainConfigInput => ({
    logPath,
    behaviorIfLogDirExists: 'resume',
    modelName: 'local/qwen3-tiny',
    loraRank: 4,
    batchSize: 6,
    numEnv: 3,
    maxTokens: 6,
    maxSteps: 4,
    learningRate: 1e-2,
    template: 'qwen3_game',
    seed: 7,
    ...extra,
  });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gem-repeat-'));
    server = await startLocalTinker({ port: 0, root: join(dir, 'service') });
    service = new ServiceClient({ baseURL: server.baseURL, warn: () => {} });
  });
  afterAll(async () => {
    await service.close();
    await server.close();
  });

  it('two runs with one seed log identical metrics; another seed differs', async () => {
    const deps = { ...quiet, serviceClient: service, makeEnv: () => new VarietyEnv() };
    await trainGem(config(join(dir, 'a'), { maxSteps: 3 }), deps);
    await trainGem(config(join(dir, 'b'), { maxSteps: 3 }), deps);
    await trainGem(config(join(dir, 'c'), { maxSteps: 3, seed: 8 }), deps);
    const a = figures(join(dir, 'a'));
    expect(a).toHaveLength(3);
    expect(figures(join(dir, 'b'))).toEqual(a);
    // Not a constant: the sampled tokens (and so the entropy figure) follow the seed.
    expect(figures(join(dir, 'c'))).not.toEqual(a);
    // Every step trained (a run without updates would repeat trivially).
    expect(everyStepTrained(a)).toBe(true);
  });

  it('a run that crashes after step 3 and is resumed logs what an uninterrupted run logs', async () => {
    const deps = { ...quiet, serviceClient: service, makeEnv: () => new VarietyEnv() };
    await trainGem(config(join(dir, 'whole'), { saveEvery: 2 }), deps);

    const broken = join(dir, 'broken');
    // Checkpoint at step 2 (saved before step 2 runs); the crash comes after step 3 is logged, so the resume must
    // drop the logged step 2 and 3 rows and replay them from the checkpoint's weights and optimizer state.
    const crashing = trainGem(config(broken, { saveEvery: 2 }), {
      ...deps,
      onStep: (step) => {
        if (step === 3) throw new Crash('killed after step 3');
      },
    });
    await expect(crashing).rejects.toThrow('killed after step 3');
    expect(figures(broken)).toHaveLength(4);
    const resumed = await trainGem(config(broken, { saveEvery: 2 }), deps);
    expect(resumed).toMatchObject({ status: 'completed', startStep: 2, stepsRun: 2 });
    const whole = figures(join(dir, 'whole'));
    expect(whole).toHaveLength(4);
    expect(figures(broken)).toEqual(whole);
    expect(everyStepTrained(whole)).toBe(true);
  });

  it('keep_last=2 with a save every step leaves the newest two resume states on the service, every save recorded', async () => {
    const deps = { ...quiet, serviceClient: service, makeEnv: () => new VarietyEnv() };
    const logPath = join(dir, 'kept');
    await trainGem(config(logPath, { saveEvery: 1, keepLast: 2 }), deps);
    const records = readFileSync(join(logPath, 'checkpoints.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as { name: string; step: number; state_path: string });
    expect(records.map((r) => [r.name, r.step])).toEqual([
      ['000001', 1],
      ['000002', 2],
      ['000003', 3],
      ['final', 4],
    ]);
    const runId = /^tinker:\/\/([^/]+)\//.exec(records[0]!.state_path)![1]!;
    const rest = await service.createRestClient();
    const states = (await rest.listCheckpoints(runId))
      .filter((c) => c.checkpoint_type === 'training')
      .map((c) => c.tinker_path)
      .sort();
    expect(states).toEqual([records[2]!.state_path, records[3]!.state_path].sort());
  });
});
