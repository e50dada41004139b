/**
 * Wall time per RL step on the embedded service: synchronous vs streaming minibatches vs async off-policy, same
 * task (one-token "even digit" answers from a warm-started tiny model), same batch shape.
 * With BENCH_CLOCK_CYCLE_MS=N the service runs in N ms clock cycles (as the hosted service does), where the
 * streaming and async loops exist to win; the bench script runs it both ways.
 * Run: pnpm --filter @cookbook/rl bench   (env: BENCH_STEPS, BENCH_GROUPS, BENCH_GROUP_SIZE, BENCH_MAX_TOKENS,
 * BENCH_CLOCK_CYCLE_MS, BENCH_NUM_SUBSTEPS)
 */

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { getTokenizer } from '@cookbook/tokenizers';
import { digitTask, evenDigitDataset, warmStartOnDigits } from '../src/__fixtures__/digit-task.js';
import type { RLTrainConfigInput } from '../src/train/config.js';
import { train } from '../src/train/train.js';

// 16 steps: a pipelined loop needs a few steps to reach its steady state (async's first steps overlap sampling with
// training and overrun their cycles); over 8 steps that start-up was half of the measured span.
const steps = Number(process.env.BENCH_STEPS ?? 16);
const groups = Number(process.env.BENCH_GROUPS ?? 4);
const groupSize = Number(process.env.BENCH_GROUP_SIZE ?? 8);
const maxTokens = Number(process.env.BENCH_MAX_TOKENS ?? 1);
const cycleMs = Number(process.env.BENCH_CLOCK_CYCLE_MS ?? 0);
const numSubsteps = Number(process.env.BENCH_NUM_SUBSTEPS ?? 1);

const root = mkdtempSync(join(tmpdir(), 'rl-bench-'));
const server = await startLocalTinker({
  port: 0,
  root: join(root, 'service'),
  ...(cycleMs > 0 ? { clockCycleMs: cycleMs } : {}),
});
const clock = server.service.clock;
const service = new ServiceClient({ baseURL: server.baseURL });
const task = digitTask(getTokenizer('local/qwen3-tiny'));
const sft = await service.createLoraTrainingClient({ baseModel: 'local/qwen3-tiny', rank: 8 });
await warmStartOnDigits(sft, task);
const warm = (await sft.saveState('warm')).path;

const modes: { name: string; extra: Partial<RLTrainConfigInput> }[] = [
  { name: 'sync', extra: {} },
  { name: 'stream_minibatch', extra: { streamMinibatchConfig: { groupsPerBatch: groups, numMinibatches: 2 } } },
  { name: 'async (off-policy ≤ 1)', extra: { asyncConfig: { groupsPerBatch: groups, maxStepsOffPolicy: 1 } } },
];

const where = cycleMs > 0 ? `under ${cycleMs} ms clock cycles` : 'no clock cycles';
console.log(
  `RL step wall time (${where}): ${steps} steps × ${groups} groups × ${groupSize} samples, max_tokens ${maxTokens}, ${numSubsteps} substep(s)`,
);
const results: { mode: string; secPerStep: number; cyclesPerStep: number; finalEven: number }[] = [];
for (const mode of modes) {
  const logPath = join(root, mode.name.replace(/\W+/g, '_'));
  const start = performance.now();
  const fromCycle = clock?.records.length ?? 0;
  // When each step's metrics were logged: a pipelined loop (async) logs step i after sending step i + 1, so its
  // own `time/total` overlaps the next step's; the interval between logged steps is the loop's throughput.
  const loggedAt: number[] = [];
  await train(
    {
      logPath: logPath,
      loadCheckpointPath: warm,
      learningRate: 3e-3,
      numSubsteps,
      maxTokens: maxTokens,
      evalEvery: 0,
      saveEvery: 0,
      numGroupsToLog: 0,
      behaviorIfLogDirExists: 'raise',
      ...mode.extra,
    },
    {
      datasetBuilder: async () => ({
        train: evenDigitDataset(task, { numBatches: steps, groupsPerBatch: groups, groupSize }),
      }),
      serviceClient: service,
      console: false,
      onStep: () => loggedAt.push(performance.now()),
    },
  );
  const seconds = (performance.now() - start) / 1000;
  const rows = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, number>);
  // Exclude the first step (warm-up of the model on the service) from the per-step figure.
  const avg = (key: string) => rows.slice(1).reduce((a, r) => a + (r[key] ?? 0), 0) / Math.max(1, rows.length - 1);
  // Steady state: from the first step's log to the last one's (the first step includes the model's warm-up).
  const perStep = (loggedAt.at(-1)! - loggedAt[0]!) / 1000 / Math.max(1, loggedAt.length - 1);
  const finalEven = rows.at(-1)?.['env/all/even'] ?? 0;
  const ran = clock?.records.slice(fromCycle) ?? [];
  const cyclesPerStep = ran.length > 0 ? (ran.at(-1)!.tick - ran[0]!.tick + 1) / steps : 0;
  results.push({ mode: mode.name, secPerStep: perStep, cyclesPerStep, finalEven });
  const cycles = ran.length > 0 ? ` ${cyclesPerStep.toFixed(2)} cycles/step,` : '';
  console.log(
    `  ${mode.name.padEnd(24)} ${perStep.toFixed(3)} s/step (run ${seconds.toFixed(1)} s),${cycles} final even rate ${finalEven.toFixed(2)}` +
      ` [sample ${avg('time/sample').toFixed(2)} / wait ${avg('time/wait_for_samples').toFixed(2)} / train ${avg('time/train').toFixed(2)} s]`,
  );
}
const sync = results[0]!;
for (const r of results) {
  // Cycles per step do not depend on the machine's speed as long as a batch's sampling fits in a cycle.
  const inCycles =
    r.cyclesPerStep > 0
      ? `, ${r.cyclesPerStep.toFixed(2)} cycles/step  ${(sync.cyclesPerStep / r.cyclesPerStep).toFixed(2)}× sync in cycles`
      : '';
  console.log(
    `${`rl s/step ${r.mode} (${where})`.padEnd(62)} ${r.secPerStep.toFixed(3).padStart(7)} s/step  ${(sync.secPerStep / r.secPerStep).toFixed(2)}× the speed of sync${inCycles}`,
  );
}
await service.close();
await server.close();
