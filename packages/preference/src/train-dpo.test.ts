/**
 * DPO against the embedded service (`@cookbook/local-tinker`): real LoRA training of local/qwen3-tiny. At step 0 the
 * policy equals its frozen reference, so the loss is ln 2 and the held-out pair accuracy ½; training moves them.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readComparisonFile } from './comparison.js';
import { FORMAT_COMPARISONS_TEST, FORMAT_COMPARISONS_TRAIN } from './shipped-data.js';
import { type DpoServiceClient, trainDpo } from './train-dpo.js';

const dir = mkdtempSync(join(tmpdir(), 'dpo-'));
let server: Awaited<ReturnType<typeof startLocalTinker>>;
let service: ServiceClient;

beforeAll(async () => {
  server = await startLocalTinker({ port: 0, root: join(dir, 'service') });
  service = new ServiceClient({ baseURL: server.baseURL });
});
afterAll(async () => {
  await service.close();
  await server.close();
});

const rows = (logPath: string) =>
  readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, number>);

describe('trainDpo on the embedded service', () => {
  it('starts at dpo_loss = ln 2 and pair accuracy ½, then separates the pairs', async () => {
    const logPath = join(dir, 'run');
    const train = readComparisonFile(FORMAT_COMPARISONS_TRAIN).slice(0, 12);
    const test = readComparisonFile(FORMAT_COMPARISONS_TEST).slice(0, 6);
    const result = await trainDpo(
      {
        logPath,
        learningRate: 2e-2,
        lrSchedule: 'constant',
        loraRank: 4,
        batchSize: 4,
        maxSteps: 3,
        evalEvery: 3,
        dpoBeta: 1,
        saveEvery: 0,
        maxLength: 64,
      },
      {
        dataset: { train, test },
        serviceClient: service as unknown as DpoServiceClient,
        console: false,
        progress: false,
        writeReport: false,
        log: () => {},
      },
    );
    expect(result.status).toBe('completed');
    expect(result.value?.referencePath).toMatch(/^tinker:\/\//);
    const m = rows(logPath);
    // Equal up to float error: the policy's logprobs come from the trainer, the reference's from a sampler (sums of
    // f32 logprobs over whole sequences; seen: margin 7e-6 on the pretrained stand-in).
    expect(m[0]!.dpo_loss).toBeCloseTo(Math.LN2, 4);
    expect(m[0]!.margin).toBeCloseTo(0, 4);
    expect(m[0]!.num_pairs).toBe(4);
    expect(m[0]!['test/pair_accuracy']).toBeCloseTo(0.5, 5);
    expect(m[0]!['test/dpo_loss']).toBeCloseTo(Math.LN2, 4);
    // After the updates the training loss is below ln 2 and the final evaluation row is logged at step 3.
    expect(m[2]!.dpo_loss).toBeLessThan(Math.LN2);
    const last = m.at(-1)!;
    expect(last['test/margin']).toBeGreaterThan(0);
    const checkpoints = readFileSync(join(logPath, 'checkpoints.jsonl'), 'utf8');
    expect(checkpoints).toContain('"reference_sampler_path"');
  });

  it('resumes an interrupted run against the same frozen reference', async () => {
    const logPath = join(dir, 'resume');
    const train = readComparisonFile(FORMAT_COMPARISONS_TRAIN).slice(0, 8);
    const config = {
      logPath,
      learningRate: 1e-2,
      loraRank: 4,
      batchSize: 2,
      maxSteps: 3,
      evalEvery: 0,
      saveEvery: 1,
      maxLength: 64,
      behaviorIfLogDirExists: 'resume' as const,
    };
    const deps = {
      dataset: { train },
      serviceClient: service as unknown as DpoServiceClient,
      console: false,
      progress: false,
      writeReport: false,
      log: () => {},
    };
    class Stop extends Error {}
    await expect(
      trainDpo(config, {
        ...deps,
        onStepLogged: (step) => {
          if (step === 1) throw new Stop('stop');
        },
      }),
    ).rejects.toBeInstanceOf(Stop);
    const first = readFileSync(join(logPath, 'checkpoints.jsonl'), 'utf8').trim().split('\n');
    const reference = (JSON.parse(first[0]!) as { reference_sampler_path: string }).reference_sampler_path;
    const resumed = await trainDpo(config, deps);
    expect(resumed.status).toBe('completed');
    expect(resumed.startStep).toBe(1);
    expect(resumed.value?.referencePath).toBe(reference);
    expect(rows(logPath).map((r) => r.step)).toEqual([0, 1, 2]);
  });
});
