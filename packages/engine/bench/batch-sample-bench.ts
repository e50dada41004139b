// Batched sampling across requests (continuous batching in the Sampler): 32 single-sample requests of 32 tokens,
// decoded together vs one at a time, on local/qwen3-tiny and a SmolLM2-135M-shaped model (random weights).
// Run: pnpm --filter @cookbook/engine bench   (env BENCH_BATCH_REQUESTS (32), BENCH_BATCH_TOKENS (32),
// BENCH_BATCH_ALONE_135M (8): how many of the 135M-shape requests the one-at-a-time baseline runs)
import { loadBaseModel, Sampler } from '../src/index.js';
import { randomModel } from '../src/model/base-model.js';
import { SMOL_135M as smol } from './shapes.js';

const nRequests = Number(process.env.BENCH_BATCH_REQUESTS ?? 32);
const tokens = Number(process.env.BENCH_BATCH_TOKENS ?? 32);
const alone135 = Number(process.env.BENCH_BATCH_ALONE_135M ?? 8);

function line(name: string, value: number, unit: string, note: string): void {
  console.log(`${name.padEnd(62)} ${value.toFixed(value < 10 ? 2 : 1).padStart(9)} ${unit.padEnd(6)} ${note}`);
}

const models: [string, () => Promise<ReturnType<typeof randomModel>>, number][] = [
  ['qwen3-tiny', () => loadBaseModel('local/qwen3-tiny'), nRequests],
  ['smollm2-135m-shape', async () => randomModel(smol, 1, 'smollm2-135m-shape'), Math.min(alone135, nRequests)],
];
for (const [name, load, aloneCount] of models) {
  const base = await load();
  const V = base.vocabSize;
  const requests = Array.from({ length: nRequests }, (_, i) => ({
    prompt: Array.from({ length: 16 }, (_, j) => (i * 7919 + j * 31 + 5) % V),
    opts: { numSamples: 1, maxTokens: tokens, seed: i, stop: [] as number[] },
  }));
  const s = new Sampler(base);
  s.sample(requests[0]!.prompt, { ...requests[0]!.opts, maxTokens: 2 }); // warm-up
  // One at a time (the first `aloneCount` requests: the rate per request does not depend on how many).
  let t0 = performance.now();
  let generated = 0;
  for (const r of requests.slice(0, aloneCount)) {
    generated += s.sample(r.prompt, r.opts).sequences[0]!.tokens.length;
  }
  const aloneRate = generated / ((performance.now() - t0) / 1000);
  // All together: every request joins, the batch decodes until each is done.
  t0 = performance.now();
  for (const r of requests) s.join(r.prompt, r.opts);
  generated = 0;
  while (s.batchSize > 0) for (const f of s.decodeStep()) generated += f.result!.sequences[0]!.tokens.length;
  const batchRate = generated / ((performance.now() - t0) / 1000);
  line(
    `sample ${name} ${nRequests}×1 seq × ${tokens} tok one at a time`,
    aloneRate,
    'tok/s',
    `(baseline; ${aloneCount} requests timed)`,
  );
  line(
    `sample ${name} ${nRequests}×1 seq × ${tokens} tok batched`,
    batchRate,
    'tok/s',
    `${(batchRate / aloneRate).toFixed(2)}× one at a time`,
  );
}
