/**
 * Two figures for @cookbook/gem:
 * 1. Env steps per second per game id (pure env, no model): random valid-looking actions (`sampleRandomAction`),
 *    resets when an episode ends, for BENCH_ENV_SECONDS (default 0.5) per id.
 * 2. The `gem` trainer's seconds per step split into sampling and training, on the embedded service
 *    (local/qwen3-tiny, GuessTheNumber-v0-easy, the recipe's batch/env/token settings (BENCH_BATCH_SIZE, default 8), no warm start), over
 *    BENCH_STEPS steps (default 3; 0 skips it).
 * Run: pnpm --filter @cookbook/gem bench   (figures go in the notes, never into tests)
 */
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';
import { make, registeredEnvIds } from '../src/index.js';
import { trainGem } from '../src/trainer/train.js';

const envSeconds = Number(process.env.BENCH_ENV_SECONDS ?? 0.5);
const steps = Number(process.env.BENCH_STEPS ?? 3);
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);

console.log('env steps/s (pure env, random actions):');
for (const id of registeredEnvIds().filter((x) => x.startsWith('game:') && !x.startsWith('game:WikiGame'))) {
  const env = make(id, { seed: 0 });
  await env.reset(0);
  let n = 0;
  let episodes = 0;
  const start = performance.now();
  while (performance.now() - start < envSeconds * 1000) {
    for (let i = 0; i < 50; i++) {
      const r = await env.step(env.sampleRandomAction());
      n++;
      if (r.terminated || r.truncated) {
        episodes++;
        await env.reset();
      }
    }
  }
  const secs = (performance.now() - start) / 1000;
  console.log(
    `  ${id.padEnd(34)} ${Math.round(n / secs)
      .toString()
      .padStart(9)} steps/s  (${episodes} episodes)`,
  );
}

if (steps > 0) {
  const root = mkdtempSync(join(tmpdir(), 'gem-bench-'));
  const server = await startLocalTinker({ port: 0, root: join(root, 'service') });
  const service = new ServiceClient({ baseURL: server.baseURL, warn: () => {} });
  const sample: number[] = [];
  const train: number[] = [];
  try {
    await trainGem(
      {
        logPath: join(root, 'run'),
        modelName: 'local/qwen3-tiny',
        envId: 'game:GuessTheNumber-v0-easy',
        template: 'qwen3_game',
        batchSize: Number(process.env.BENCH_BATCH_SIZE ?? 8),
        numEnv: 8,
        maxTokens: 8,
        loraRank: 8,
        maxSteps: steps,
      },
      {
        serviceClient: service,
        console: false,
        progress: false,
        log: () => {},
        onStep: (_, m) => {
          sample.push(m['time/sample']!);
          train.push(m['time/train']!);
        },
      },
    );
  } finally {
    await service.close();
    await server.close();
  }
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(
    `gem trainer, ${steps} steps (batch ${process.env.BENCH_BATCH_SIZE ?? 8}, 8 envs, max_tokens 8): ` +
      `sample ${avg(sample).toFixed(2)} s/step, train ${avg(train).toFixed(2)} s/step`,
  );
}
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
