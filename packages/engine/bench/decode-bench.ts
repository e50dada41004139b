// Decode bench (issue #17): ms per decode step of a SmolLM2-135M-shaped model (random weights) for 1 and 8
// sequences with the sampler's weights in f32, bf16 and fp16, measured interleaved in one process so every figure
// has an f32 baseline from the same run (ratios hold on a loaded machine; seconds do not). Then the largest
// deviation of the sampler's logprobs from the trainer's (f32 forward) on the same tokens, per format, on the bench
// weights and on a sharper variant (embeddings ×8: logits of a few units, closer to a trained model's).
// Env: BENCH_DECODE_ROUNDS (default 5) rounds of every configuration, BENCH_DECODE_STEPS (default 32) tokens each.
import { loadavg } from 'node:os';
import { createLoraModel, type EngineDatum, kernelInfo, type ModelConfig, randomModel, Sampler } from '../src/index.js';
import type { WeightFormat } from '../src/kernels/half.js';

const smol: ModelConfig = {
  arch: 'llama',
  vocabSize: 49152,
  hiddenSize: 576,
  intermediateSize: 1536,
  numLayers: 30,
  numHeads: 9,
  numKvHeads: 3,
  headDim: 64,
  rmsNormEps: 1e-5,
  ropeTheta: 100000,
  ropeScaling: null,
  tieWordEmbeddings: true,
  maxPositionEmbeddings: 8192,
  bosTokenId: 1,
  eosTokenIds: [2],
};
const ROUNDS = Number(process.env.BENCH_DECODE_ROUNDS ?? 5);
const STEPS = Number(process.env.BENCH_DECODE_STEPS ?? 32);
const FORMATS: WeightFormat[] = ['float32', 'bfloat16', 'float16'];

const info = kernelInfo();
console.log(`kernel: ${info.kernel}, blas: ${info.blas ?? 'none'}, threads: ${info.threads}`);
console.log(`load average at start: ${loadavg()[0]!.toFixed(2)}`);

const base = randomModel(smol, 1, 'smollm2-135m-shape');
const prompt = Array.from({ length: 64 }, (_, i) => (i * 7919 + 13) % smol.vocabSize);
const samplers = new Map(FORMATS.map((f) => [f, new Sampler(base, null, { weights: f })]));

/** ms per decode step: a run of STEPS + 1 tokens minus a run of 1 token (the prefill and first pick). */
function stepMs(s: Sampler, n: number): number {
  let t0 = performance.now();
  s.sample(prompt, { numSamples: n, maxTokens: 1, seed: 1, stop: [] });
  const prefill = performance.now() - t0;
  t0 = performance.now();
  s.sample(prompt, { numSamples: n, maxTokens: STEPS + 1, seed: 1, stop: [] });
  return (performance.now() - t0 - prefill) / STEPS;
}

const times = new Map<string, number[]>();
for (const s of samplers.values()) s.sample(prompt, { numSamples: 8, maxTokens: 4, seed: 1, stop: [] });
for (let r = 0; r < ROUNDS; r++) {
  for (const n of [1, 8]) {
    for (const f of FORMATS) {
      const key = `${f} ${n}`;
      const v = times.get(key) ?? [];
      v.push(stepMs(samplers.get(f)!, n));
      times.set(key, v);
    }
  }
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const f32one = median(times.get('float32 1')!);
for (const n of [1, 8]) {
  for (const f of FORMATS) {
    const ms = median(times.get(`${f} ${n}`)!);
    const vsF32 = ms / median(times.get(`float32 ${n}`)!);
    const vsOne = ms / median(times.get(`${f} 1`)!);
    console.log(
      `decode 135M-shape ${f.padEnd(8)} ${n} seq: ${ms.toFixed(1).padStart(6)} ms/step  ×${vsF32.toFixed(2)} f32 ${n} seq` +
        `  ×${vsOne.toFixed(2)} its 1 seq  ×${(ms / f32one).toFixed(2)} f32 1 seq`,
    );
  }
}
console.log(`load average at end: ${loadavg()[0]!.toFixed(2)}`);

/** Largest |sampler prompt logprob − trainer logprob| over the prompt, per format. */
function deviation(model: typeof base, label: string): void {
  const m = createLoraModel(model, { rank: 8 });
  const tokens = Array.from({ length: 129 }, (_, i) => (i * 4099 + 7) % smol.vocabSize);
  const datum: EngineDatum = {
    tokens: tokens.slice(0, -1),
    lossFnInputs: { target_tokens: { data: tokens.slice(1), dtype: 'int64' } },
  };
  const trainer = m.forward([datum], 'cross_entropy').lossFnOutputs[0]!.logprobs!.data as number[];
  for (const f of FORMATS) {
    const s = new Sampler(model, null, { weights: f });
    const got = s.sample(tokens, { numSamples: 1, maxTokens: 1, includePromptLogprobs: true, stop: [] });
    let worst = 0;
    let mean = 0;
    for (let i = 1; i < tokens.length; i++) {
      const d = Math.abs(got.promptLogprobs![i]! - trainer[i - 1]!);
      worst = Math.max(worst, d);
      mean += Math.abs(trainer[i - 1]!);
    }
    console.log(
      `logprob deviation from the trainer, ${label}, ${f.padEnd(8)}: max ${worst.toExponential(2)} over 128 tokens` +
        ` (mean |logprob| ${(mean / 128).toFixed(2)})`,
    );
  }
}
deviation(base, 'bench weights');
samplers.clear();
const sharp = randomModel(smol, 1, 'smollm2-135m-shape-sharp');
for (let i = 0; i < sharp.weights.embed.length; i++) sharp.weights.embed[i]! *= 8;
deviation(sharp, 'embeddings ×8');
