/**
 * End to end against the embedded service (`@cookbook/local-tinker`): real LoRA training on local/qwen3-tiny, a run
 * interrupted mid-way and resumed logs exactly the metrics of an uninterrupted run.
 */
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { describe, expect, it } from 'vitest';
import { arithmeticLines, tempDir, writeLines } from './__tests__/helpers.js';
import { readCheckpointSummary, readMetricRows, runSft, type SftOptions } from './__tests__/run-helpers.js';
import { fromConversationFile } from './conversation-file.js';
import type { SupervisedServiceClient } from './types.js';

class Crash extends Error {}

describe('trainSupervised on the embedded service', () => {
  it('resumes an interrupted run to the same metrics as an uninterrupted one', async () => {
    const dir = tempDir();
    const server = await startLocalTinker({ port: 0, root: join(dir, 'service') });
    const service = new ServiceClient({ baseURL: server.baseURL });
    try {
      const data = writeLines(dir, 'conv.jsonl', arithmeticLines(16));
      const config = (logPath: string, extra: Partial<SftOptions> = {}): SftOptions => ({
        logPath,
        modelName: 'local/qwen3-tiny',
        dataset: fromConversationFile({
          filePath: data,
          common: { modelNameForTokenizer: 'local/qwen3-tiny', batchSize: 2, maxLength: 48 },
          testSize: 4,
        }),
        serviceClient: service as unknown as SupervisedServiceClient,
        learningRate: 1e-2,
        loraRank: 8,
        maxSteps: 5,
        saveEvery: 2,
        evalEvery: 3,
        behaviorIfLogDirExists: 'resume',
        console: false,
        writeReport: false,
        log: () => {},
        ...extra,
      });
      const refPath = join(dir, 'ref');
      await runSft(config(refPath));
      const ref = readMetricRows(refPath);
      expect(ref.at(-1)!['test/nll'] as number).toBeLessThan(ref[0]!['test/nll'] as number);

      const runPath = join(dir, 'run');
      await expect(
        runSft(
          config(runPath, {
            onStepLogged: (step) => {
              if (step === 3) throw new Crash('interrupted');
            },
          }),
        ),
      ).rejects.toBeInstanceOf(Crash);
      const resumed = await runSft(config(runPath));
      expect(resumed.startStep).toBe(2);
      expect(readMetricRows(runPath)).toEqual(ref);
      expect(readCheckpointSummary(runPath)).toEqual(readCheckpointSummary(refPath));
    } finally {
      await service.close();
      await server.close();
    }
  }, 120_000);
});
