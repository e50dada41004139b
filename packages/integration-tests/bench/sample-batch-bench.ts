/**
 * Batched sampling across requests through the embedded service: 32 concurrent single-sample asample requests of
 * 32 tokens on local/qwen3-tiny (decoded together by the service) vs the same 32 sent one at a time.
 * Run: pnpm --filter @cookbook/integration-tests bench   (env BENCH_BATCH_REQUESTS (32), BENCH_BATCH_TOKENS (32))
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ModelInput } from '@cookbook/core';
import { startLocalTinker } from '@cookbook/local-tinker';
import { ServiceClient } from '@cookbook/tinker-client';

const MODEL = 'local/qwen3-tiny';
const nRequests = Number(process.env.BENCH_BATCH_REQUESTS ?? 32);
const tokens = Number(process.env.BENCH_BATCH_TOKENS ?? 32);

const root = await mkdtemp(join(tmpdir(), 'cookbook-sample-bench-'));
const service = await startLocalTinker({ root });
const client = new ServiceClient({ baseURL: service.baseURL, warn: () => undefined });
try {
  const sampler = await client.createSamplingClient({ baseModel: MODEL });
  const request = (i: number) =>
    sampler.sample({
      prompt: ModelInput.fromInts(Array.from({ length: 16 }, (_, j) => (i * 7919 + j * 31 + 5) % 150_000)),
      numSamples: 1,
      samplingParams: { maxTokens: tokens, seed: i, stop: [] },
    });
  await request(0); // load the sampler
  let t0 = performance.now();
  let generated = 0;
  for (let i = 0; i < nRequests; i++) generated += (await request(i)).sequences[0]!.tokens.length;
  const alone = generated / ((performance.now() - t0) / 1000);
  const joinedBefore = service.service.samplesJoined;
  t0 = performance.now();
  const all = await Promise.all(Array.from({ length: nRequests }, (_, i) => request(i)));
  const together = all.reduce((a, r) => a + r.sequences[0]!.tokens.length, 0) / ((performance.now() - t0) / 1000);
  const joined = service.service.samplesJoined - joinedBefore;
  const name = `service sample ${MODEL} ${nRequests}×1 seq × ${tokens} tok`;
  console.log(`${`${name} one at a time`.padEnd(72)} ${alone.toFixed(1).padStart(8)} tok/s  (baseline)`);
  console.log(
    `${`${name} concurrent`.padEnd(72)} ${together.toFixed(1).padStart(8)} tok/s  ${(together / alone).toFixed(2)}× one at a time (${joined} joined a running batch)`,
  );
} finally {
  await client.close();
  await service.close({ graceMs: 0 });
  await rm(root, { recursive: true, force: true });
}
