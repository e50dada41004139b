/**
 * Seconds per DPO step on the embedded service, split into reference logprobs (the frozen sampler scores every
 * chosen and rejected sequence), forward/backward (`forwardBackwardCustom` with the DPO loss: a forward pass, the
 * loss on the client, a weighted backward pass) and the optimizer step. Each part is awaited alone, so the parts add
 * up to the step (the training loop overlaps the next batch's reference logprobs with the current step).
 * Usage: pnpm --filter @cookbook/preference bench   (env BENCH_STEPS, BENCH_PAIRS, BENCH_RANK)
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { getRecommendedRendererName, getRenderer } from '@cookbook/renderers';
import { ServiceClient } from '@cookbook/tinker-client';
import { getTokenizer } from '@cookbook/tokenizers';
import { dpoDataset } from '../src/dpo-data.js';
import { referenceSequenceLogprobs } from '../src/dpo-evaluator.js';
import { dpoLoss } from '../src/dpo-loss.js';
import { FORMAT_COMPARISONS_TRAIN, readComparisonFile } from '../src/index.js';

const steps = Number(process.env.BENCH_STEPS ?? 5);
const pairs = Number(process.env.BENCH_PAIRS ?? 8);
const rank = Number(process.env.BENCH_RANK ?? 8);
const model = 'local/qwen3-tiny';

const dir = mkdtempSync(join(tmpdir(), 'dpo-bench-'));
const server = await startLocalTinker({ port: 0, root: join(dir, 'service') });
const service = new ServiceClient({ baseURL: server.baseURL });
const rows: { ref: number; fb: number; opt: number; tokens: number }[] = [];
try {
  const renderer = getRenderer(getRecommendedRendererName(model), getTokenizer(model));
  const train = dpoDataset(readComparisonFile(FORMAT_COMPARISONS_TRAIN), pairs, renderer, 128);
  const client = await service.createLoraTrainingClient({ baseModel: model, rank });
  const saved = await client.saveWeightsForSampler('reference');
  const reference = await service.createSamplingClient({ modelPath: saved.path! });
  for (let step = 0; step < steps; step++) {
    const data = train.getBatch(step % train.length);
    let t = performance.now();
    const ref = await referenceSequenceLogprobs(reference, data);
    const tRef = (performance.now() - t) / 1000;
    t = performance.now();
    await client.forwardBackwardCustom(data, (d, lp) => dpoLoss(d, lp, ref, 1));
    const tFb = (performance.now() - t) / 1000;
    t = performance.now();
    await client.optimStep({ learningRate: 1e-2 });
    const tOpt = (performance.now() - t) / 1000;
    rows.push({ ref: tRef, fb: tFb, opt: tOpt, tokens: data.reduce((a, d) => a + d.modelInput.length, 0) });
  }
} finally {
  await service.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
// The first step includes warm-up (model load, first sampler); report it apart.
const steady = rows.slice(1);
const mean = (k: 'ref' | 'fb' | 'opt') => steady.reduce((a, r) => a + r[k], 0) / Math.max(1, steady.length);
const fmt = (x: number) => x.toFixed(3);
console.log(
  `DPO step on ${model} (LoRA rank ${rank}, ${pairs} pairs = ${2 * pairs} sequences, ~${rows[0]?.tokens} tokens)`,
);
console.log(
  `first step: reference ${fmt(rows[0]!.ref)} s, forward/backward ${fmt(rows[0]!.fb)} s, optimizer ${fmt(rows[0]!.opt)} s`,
);
console.log(
  `steady mean over ${steady.length} steps: reference logprobs ${fmt(mean('ref'))} s, forward/backward ${fmt(mean('fb'))} s, ` +
    `optimizer ${fmt(mean('opt'))} s, total ${fmt(mean('ref') + mean('fb') + mean('opt'))} s`,
);
