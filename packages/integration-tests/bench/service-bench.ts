/**
 * Embedded-service overheads: the round trip of a minimal forward_backward and of a future poll, against the
 * engine's own time for the same work, and a pipelined SFT step on local/qwen3-tiny. One line per figure.
 * Run: pnpm --filter @cookbook/local-tinker bench
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { datumFromTokensWeights } from '@cookbook/core';
import { createLoraModel, kernelInfo, loadBaseModel } from '@cookbook/engine';
import { startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';

const MODEL = 'local/qwen3-tiny';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const line = (name: string, value: number, unit: string) =>
  console.log(`${name.padEnd(52)} ${value.toFixed(2)} ${unit}`);

const root = await mkdtemp(join(tmpdir(), 'cookbook-bench-'));
const service = await startLocalTinker({ root });
const client = new ServiceClient({ baseURL: service.baseURL, warn: () => undefined });
try {
  const k = kernelInfo();
  console.log(`kernel ${k.kernel}, blas ${k.blas ?? 'none'}, threads ${k.threads}`);
  const tc = await client.createLoraTrainingClient({ baseModel: MODEL, rank: 8 });
  const tiny = [datumFromTokensWeights([1, 2], [1, 1])];

  // Engine time for the same minimal forward_backward, without HTTP.
  const engineModel = createLoraModel(await loadBaseModel(MODEL), { rank: 8 });
  const engineData = [
    {
      tokens: [1],
      lossFnInputs: {
        target_tokens: { data: [2], dtype: 'int64' as const },
        weights: { data: [1], dtype: 'float32' as const },
      },
    },
  ];
  const engineTimes: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    engineModel.forwardBackward(engineData, 'cross_entropy');
    engineTimes.push(performance.now() - t);
  }
  const rt: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t = performance.now();
    await tc.forwardBackward(tiny, 'cross_entropy');
    rt.push(performance.now() - t);
  }
  line('minimal forward_backward, engine only (median)', median(engineTimes), 'ms');
  line('minimal forward_backward, client round trip (median)', median(rt), 'ms');
  line('  → service + HTTP + polling overhead', median(rt) - median(engineTimes), 'ms');

  // Poll round trip of an already-completed future (one retrieve_future request).
  const sub = await fetch(`${service.baseURL}/api/v1/optim_step`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      adam_params: {},
      model_id: (await client.createLoraTrainingClient({ baseModel: MODEL, rank: 2 })).modelId,
    }),
  });
  const { request_id } = (await sub.json()) as { request_id: string };
  const polls: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    await fetch(`${service.baseURL}/api/v1/retrieve_future`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ request_id }),
    }).then((r) => r.text());
    polls.push(performance.now() - t);
  }
  line('retrieve_future of a completed future (median)', median(polls), 'ms');
  // Long-poll wake-up: time from completion to the poller's answer, for an optim_step submitted while idle.
  const opt: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    await tc.optimStep({ learningRate: 1e-4 });
    opt.push(performance.now() - t);
  }
  line('optim_step submit + long-poll answer (median)', median(opt), 'ms');

  // SFT steps on a 4 × 64-token batch: pipelined (submit both, await later) vs awaiting each call.
  const batch = [0, 1, 2, 3].map((s) =>
    datumFromTokensWeights(
      Array.from({ length: 64 }, (_, j) => 1000 + ((s * 131 + j * 17) % 5000)),
      new Array(64).fill(1),
    ),
  );
  const steps = 10;
  let t = performance.now();
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < steps; i++) {
    pending.push(
      Promise.resolve(tc.forwardBackward(batch, 'cross_entropy')),
      Promise.resolve(tc.optimStep({ learningRate: 1e-3 })),
    );
    if (pending.length > 4) await pending.splice(0, 2)[1];
  }
  await Promise.all(pending);
  const pipelined = (performance.now() - t) / steps;
  t = performance.now();
  for (let i = 0; i < steps; i++) {
    await tc.forwardBackward(batch, 'cross_entropy');
    await tc.optimStep({ learningRate: 1e-3 });
  }
  const serial = (performance.now() - t) / steps;
  line('SFT step 4×64 tokens, pipelined', pipelined, 'ms/step');
  line('SFT step 4×64 tokens, awaiting each call', serial, 'ms/step');
  line('SFT tokens/s, pipelined', (4 * 63 * 1000) / pipelined, 'tok/s');
} finally {
  await client.close();
  await service.close();
  await rm(root, { recursive: true, force: true });
}
