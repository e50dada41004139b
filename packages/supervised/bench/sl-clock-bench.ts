/**
 * Service clock cycles per SFT step under the embedded service's clock-cycle model (as on the hosted service):
 * sl_basic's pipelined loop (the next step submitted before the last one is awaited) vs the same loop awaiting each
 * step (submit_ahead 0) vs a loop that awaits each call (forward_backward, then optim_step). Counted in cycles, so
 * the figures do not depend on the machine's load.
 * Usage: pnpm --filter @cookbook/supervised bench   (env BENCH_CLOCK_CYCLE_MS (300), BENCH_CLOCK_STEPS (12))
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { fromConversationFile, trainSupervised } from '../src/index.js';
import type { SupervisedServiceClient, SupervisedTrainingClient } from '../src/types.js';

const cycleMs = Number(process.env.BENCH_CLOCK_CYCLE_MS ?? 300);
const steps = Number(process.env.BENCH_CLOCK_STEPS ?? 12);
const data = fileURLToPath(new URL('../../../apps/cli/data/example-conversations.jsonl', import.meta.url));
if (!existsSync(data)) throw new Error(`bench data not found: ${data}`);

const dir = mkdtempSync(join(tmpdir(), 'sl-clock-bench-'));
const server = await startLocalTinker({ port: 0, root: join(dir, 'service'), clockCycleMs: cycleMs });
const clock = server.service.clock!;
const service = new ServiceClient({ baseURL: server.baseURL });

/** A training client whose every call waits for the previous call's result before it is sent. */
function awaitingEachCall(client: SupervisedTrainingClient): SupervisedTrainingClient {
  let last: Promise<unknown> = Promise.resolve();
  const chain = <T>(send: () => PromiseLike<T>): Promise<T> => {
    const p = last.then(send);
    last = p.catch(() => undefined);
    return p;
  };
  return new Proxy(client, {
    get(target, key, receiver) {
      if (key === 'forwardBackward' || key === 'optimStep') {
        const f = Reflect.get(target, key, receiver) as (...a: unknown[]) => PromiseLike<unknown>;
        return (...args: unknown[]) => chain(() => f.apply(target, args));
      }
      return Reflect.get(target, key, receiver);
    },
  }) as SupervisedTrainingClient;
}

async function run(
  name: string,
  submitAhead: number,
  wrap?: (c: SupervisedTrainingClient) => SupervisedTrainingClient,
) {
  const client: SupervisedServiceClient = wrap
    ? {
        createLoraTrainingClient: async (...a) => wrap(await service.createLoraTrainingClient(...a)),
        createTrainingClientFromState: async (...a) => wrap(await service.createTrainingClientFromState(...a)),
      }
    : (service as unknown as SupervisedServiceClient);
  const from = clock.records.length;
  await trainSupervised(
    {
      logPath: join(dir, name),
      modelName: 'local/qwen3-tiny',
      learningRate: 1e-2,
      maxSteps: steps,
      saveEvery: 0,
      evalEvery: 0,
      submitAhead,
      behaviorIfLogDirExists: 'delete',
    },
    {
      dataset: fromConversationFile({
        filePath: data,
        common: { modelNameForTokenizer: 'local/qwen3-tiny', batchSize: 4, maxLength: 512 },
        testSize: 16,
      }),
      serviceClient: client,
      console: false,
      progress: false,
      log: () => {},
    },
  );
  // Cycles from the one running the first forward_backward to the one running the last optim_step, idle ones included.
  const ran = clock.records.slice(from);
  const first = ran.find((r) => (r.ops.forwardBackward ?? 0) > 0)!;
  const last = ran.findLast((r) => (r.ops.optimStep ?? 0) > 0)!;
  const overran = ran.filter((r) => r.durationMs > cycleMs * 1.05).length;
  return { cycles: (last.tick - first.tick + 1) / steps, overran, cyclesRun: ran.length };
}

try {
  console.log(`SFT under ${cycleMs} ms clock cycles: ${steps} steps of sl_basic (local/qwen3-tiny, batch 4)`);
  const results = [
    { name: 'sl_basic pipelined (submit_ahead 1)', ...(await run('pipelined', 1)) },
    { name: 'sl_basic awaiting each step (submit_ahead 0)', ...(await run('each-step', 0)) },
    { name: 'awaiting each call (fwd_bwd, then optim)', ...(await run('each-call', 0, awaitingEachCall)) },
  ];
  const base = results[0]!.cycles;
  for (const r of results) {
    console.log(
      `${`sft cycles/step ${r.name}`.padEnd(62)} ${r.cycles.toFixed(2).padStart(6)} cycles/step  ` +
        `(${(r.cycles / base).toFixed(2)}× pipelined; ${r.overran} of ${r.cyclesRun} cycles overran ${cycleMs} ms)`,
    );
  }
} finally {
  await service.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
