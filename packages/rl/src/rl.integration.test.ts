/**
 * End-to-end proof on the embedded service: a tiny random-init model, warm-started by a few cross-entropy steps
 * so it answers with digits, learns by RL to prefer even digits; the same run with every advantage negated
 * (reward × −1) must not.
 */

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { getTokenizer } from '@cookbook/tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DigitTask, digitTask, evenDigitDataset, warmStartOnDigits } from './__fixtures__/digit-task.js';
import { train } from './train/train.js';

/**
 * The digit fixture is built for a random-initialised model (it starts near 50 % even digits): qwen3-tiny's pretrained
 * layers start anywhere from 0.1 to 0.7 and sometimes collapse, so this proof runs on the random-init llama3-tiny.
 */
const RANDOM_MODEL = 'local/llama3-tiny';

describe('RL on the embedded service', () => {
  let server: { baseURL: string; close(): Promise<void> };
  let service: ServiceClient;
  let task: DigitTask;
  let warmStatePath: string;
  const root = mkdtempSync(join(tmpdir(), 'rl-proof-'));

  beforeAll(async () => {
    server = await startLocalTinker({ port: 0, root: join(root, 'service') });
    service = new ServiceClient({ baseURL: server.baseURL });
    task = digitTask(getTokenizer(RANDOM_MODEL));
    const sft = await service.createLoraTrainingClient({ baseModel: RANDOM_MODEL, rank: 8 });
    const loss = await warmStartOnDigits(sft, task);
    expect(loss).toBeLessThan(2.6);
    warmStatePath = (await sft.saveState('warm')).path;
  });

  afterAll(async () => {
    await service?.close();
    await server?.close();
  });

  const run = async (name: string, sign: number, extra: { numBatches?: number; samplingSeed?: number } = {}) => {
    const logPath = join(root, name);
    await train(
      {
        logPath: logPath,
        modelName: RANDOM_MODEL,
        loadCheckpointPath: warmStatePath,
        learningRate: 3e-3,
        maxTokens: 1,
        evalEvery: 0,
        saveEvery: 0,
        numGroupsToLog: 1,
        behaviorIfLogDirExists: 'raise',
        ...(extra.samplingSeed === undefined ? {} : { samplingSeed: extra.samplingSeed }),
      },
      {
        datasetBuilder: async () => ({
          train: evenDigitDataset(task, { numBatches: extra.numBatches ?? 20, groupsPerBatch: 4, groupSize: 8, sign }),
        }),
        serviceClient: service,
        console: false,
        progress: false,
      },
    );
    const rows = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, number>);
    const even = rows.map((r) => r['env/all/even']!);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    return { first: mean(even.slice(0, 2)), last: mean(even.slice(-4)), rows };
  };

  it('raises the even-digit rate; negated advantages do not', async () => {
    const up = await run('even', 1);
    const down = await run('negated', -1);
    console.log('even rate: normal', up.first, '→', up.last, '| negated', down.first, '→', down.last);
    // Both runs start from the same warm-started weights (≈ half the digits even); only the sign differs.
    expect(up.last).toBeGreaterThan(0.8);
    expect(up.last).toBeGreaterThanOrEqual(up.first);
    expect(down.last).toBeLessThan(0.3);
    expect(down.last).toBeLessThan(down.first);
    expect(up.last - down.last).toBeGreaterThan(0.6);
    // On-policy sampling: the learner agrees with the sampler before each update.
    for (const r of up.rows) expect(Math.abs(r['optim/kl_sample_train_v1']!)).toBeLessThan(0.05);
  });

  it('repeats a run exactly with sampling_seed (every metric but the timings)', async () => {
    const untimed = (rows: Record<string, number>[]) =>
      rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith('time/'))));
    const a = await run('seeded-a', 1, { numBatches: 3, samplingSeed: 5 });
    const b = await run('seeded-b', 1, { numBatches: 3, samplingSeed: 5 });
    const c = await run('seeded-c', 1, { numBatches: 3, samplingSeed: 6 });
    expect(a.rows).toHaveLength(3);
    expect(untimed(b.rows)).toEqual(untimed(a.rows));
    // Another seed samples other digits (the losses of 3 steps × 32 samples do not all coincide).
    expect(untimed(c.rows)).not.toEqual(untimed(a.rows));
  });
});
