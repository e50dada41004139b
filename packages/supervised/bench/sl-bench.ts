/**
 * sl_basic on the embedded service: wall time, and where a step's time goes — waiting on the service's futures
 * (forward_backward + optim_step results) versus the client building and submitting batches.
 * Usage: pnpm --filter @cookbook/supervised bench   (env BENCH_STEPS, BENCH_BATCH_SIZE, BENCH_SUBMIT_AHEAD)
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { fromConversationFile, trainSupervised } from '../src/index.js';
import type { SupervisedServiceClient } from '../src/types.js';

const steps = Number(process.env.BENCH_STEPS ?? 36);
const batchSize = Number(process.env.BENCH_BATCH_SIZE ?? 4);
const submitAhead = Number(process.env.BENCH_SUBMIT_AHEAD ?? 1);
const data = fileURLToPath(new URL('../../../apps/cli/data/example-conversations.jsonl', import.meta.url));
if (!existsSync(data)) throw new Error(`bench data not found: ${data}`);

const dir = mkdtempSync(join(tmpdir(), 'sl-bench-'));
const server = await startLocalTinker({ port: 0, root: join(dir, 'service') });
const service = new ServiceClient({ baseURL: server.baseURL });
const perStep: Record<string, number>[] = [];
const t0 = performance.now();
try {
  await trainSupervised(
    {
      logPath: join(dir, 'run'),
      modelName: 'local/qwen3-tiny',
      learningRate: 1e-2,
      maxSteps: steps,
      saveEvery: 20,
      evalEvery: 10,
      submitAhead,
      behaviorIfLogDirExists: 'delete',
    },
    {
      dataset: fromConversationFile({
        filePath: data,
        common: { modelNameForTokenizer: 'local/qwen3-tiny', batchSize, maxLength: 512 },
        testSize: 16,
      }),
      serviceClient: service as unknown as SupervisedServiceClient,
      console: false,
      progress: false,
      log: () => {},
      onStepLogged: (_step, m) => perStep.push(m),
    },
  );
} finally {
  await service.close();
  await server.close();
}
const wall = (performance.now() - t0) / 1000;
const sum = (key: string) => perStep.reduce((a, m) => a + (m[key] ?? 0), 0);
const n = perStep.length;
const fmt = (x: number) => x.toFixed(3);
const stepTotal = sum('time/total');
console.log(`sl_basic wall time (${n} steps, batch ${batchSize}, submit_ahead ${submitAhead}): ${wall.toFixed(1)} s`);
console.log(`mean step time: ${fmt(stepTotal / n)} s`);
console.log(
  `mean wait on service futures per step: ${fmt(sum('time/await_results') / n)} s (${((100 * sum('time/await_results')) / stepTotal).toFixed(1)}% of step time)`,
);
console.log(`mean client batch building (get_batch) per step: ${fmt(sum('time/get_batch') / n)} s`);
console.log(`mean client submit (serialise + enqueue) per step: ${fmt(sum('time/submit') / n)} s`);
console.log(`evaluation time total: ${fmt(sum('time/evaluation'))} s`);
console.log(`tokens per second (train): ${(sum('num_tokens') / stepTotal).toFixed(0)}`);
rmSync(dir, { recursive: true, force: true });
