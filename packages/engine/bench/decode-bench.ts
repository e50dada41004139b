// Decode bench (issue #17): ms per decode step of a SmolLM2-135M-shaped model (random weights rounded to bf16, as
// the Hub checkpoint stores them) for 1 and 8 sequences, with the sampler's weights in f32 (forced: the baseline)
// and `auto` (which finds them exact in bf16 and reads half the bytes), measured interleaved in one process so
// every figure has its f32 baseline from the same run (ratios hold on a loaded machine; milliseconds do not).
// Then the largest deviation of the sampler's logprobs from the trainer's (f32 forward) on the same 128 tokens:
// on the bf16-exact weights (auto, f32) and on plain f32 random weights rounded by force (bf16, fp16), each also
// with embeddings ×8 (logits of a few units, closer to a trained model's than the bench's near-uniform ones).
// Env: BENCH_DECODE_ROUNDS (default 5) rounds of every configuration, BENCH_DECODE_STEPS (default 32) tokens each,
// BENCH_DECODE_DEVIATION=0 skips the deviation part. Imports only the engine's public API, so the same file also
// runs against an older engine (one without sampler weight formats: both samplers are then f32).
import { loadavg } from 'node:os';
import { createLoraModel, type EngineDatum, kernelInfo, Sampler } from '../src/index.js';
import { randomModel } from '../src/model/base-model.js';
import type { SamplerWeights } from '../src/model/sampling-weights.js';
import { SMOL_135M as smol } from './shapes.js';

const ROUNDS = Number(process.env.BENCH_DECODE_ROUNDS ?? 5);
const STEPS = Number(process.env.BENCH_DECODE_STEPS ?? 32);
const mib = () => process.memoryUsage().rss / 2 ** 20;

/** x rounded to the nearest bf16 value (ties to even), as a float. */
const bf16 = (() => {
  const f = new Float32Array(1);
  const u = new Uint32Array(f.buffer);
  return (x: number) => {
    f[0] = x;
    u[0] = ((u[0]! + 0x7fff + ((u[0]! >>> 16) & 1)) >>> 16) << 16;
    return f[0]!;
  };
})();

/** The 135M-shape model with seeded random weights, embeddings scaled, then optionally rounded to bf16. */
function model(rounded: boolean, embedScale = 1) {
  const m = randomModel(smol, 1, 'smollm2-135m-shape');
  const w = m.weights;
  for (let i = 0; i < w.embed.length; i++) w.embed[i]! *= embedScale;
  if (rounded)
    for (const a of [w.embed, ...w.layers.flatMap((L) => [L.wQKV, L.wO, L.wGateUp, L.wDown])])
      for (let i = 0; i < a.length; i++) a[i] = bf16(a[i]!);
  return m;
}

const info = kernelInfo();
console.log(`kernel: ${info.kernel}, blas: ${info.blas ?? 'none'}, threads: ${info.threads}`);
console.log(`load average at start: ${loadavg()[0]!.toFixed(2)}`);

const base = model(true);
const rss0 = mib();
const samplers: [SamplerWeights, Sampler][] = [
  ['float32', new Sampler(base, null, { weights: 'float32' })],
  ['auto', new Sampler(base)],
];
console.log(
  `sampler weights: auto resolved to ${samplers[1]![1].weightFormat ?? 'float32 (engine without formats)'}; the shared 16-bit copy added ${(mib() - rss0).toFixed(0)} MiB of RSS (the f32 weights, shared with training, stay)`,
);
const prompt = Array.from({ length: 64 }, (_, i) => (i * 7919 + 13) % smol.vocabSize);

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
for (const [, s] of samplers) s.sample(prompt, { numSamples: 8, maxTokens: 4, seed: 1, stop: [] });
for (let r = 0; r < ROUNDS; r++) {
  for (const n of [1, 8]) {
    for (const [f, s] of samplers) {
      const v = times.get(`${f} ${n}`) ?? [];
      v.push(stepMs(s, n));
      times.set(`${f} ${n}`, v);
    }
  }
}
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
const at = (f: string, n: number) => median(times.get(`${f} ${n}`)!);
for (const n of [1, 8]) {
  for (const [f] of samplers) {
    const ms = at(f, n);
    console.log(
      `decode 135M-shape ${f.padEnd(7)} ${n} seq: ${ms.toFixed(1).padStart(6)} ms/step  ×${(ms / at('float32', n)).toFixed(2)} f32 ${n} seq` +
        `  ×${(ms / at(f, 1)).toFixed(2)} its 1 seq  ×${(ms / at('float32', 1)).toFixed(2)} f32 1 seq`,
    );
  }
}
console.log(`load average at end: ${loadavg()[0]!.toFixed(2)}`);
samplers.length = 0;

/** Largest |sampler prompt logprob − trainer logprob| over 128 tokens, per sampler weight format. */
function deviation(m: ReturnType<typeof model>, label: string, formats: SamplerWeights[]): void {
  const lora = createLoraModel(m, { rank: 8 });
  const tokens = Array.from({ length: 129 }, (_, i) => (i * 4099 + 7) % smol.vocabSize);
  const datum: EngineDatum = {
    tokens: tokens.slice(0, -1),
    lossFnInputs: { target_tokens: { data: tokens.slice(1), dtype: 'int64' } },
  };
  const trainer = lora.forward([datum], 'cross_entropy').lossFnOutputs[0]!.logprobs!.data as number[];
  let mean = 0;
  for (const v of trainer) mean += Math.abs(v) / trainer.length;
  for (const f of formats) {
    const s = new Sampler(m, null, { weights: f });
    const got = s.sample(tokens, { numSamples: 1, maxTokens: 1, includePromptLogprobs: true, stop: [] });
    let worst = 0;
    for (let i = 1; i < tokens.length; i++)
      worst = Math.max(worst, Math.abs(got.promptLogprobs![i]! - trainer[i - 1]!));
    const name = f === 'auto' ? `auto→${s.weightFormat ?? 'float32'}` : f;
    console.log(
      `logprob deviation from the trainer, ${label.padEnd(30)} ${name.padEnd(14)}: max ${worst.toExponential(2)} (mean |logprob| ${mean.toFixed(2)})`,
    );
  }
}
if (process.env.BENCH_DECODE_DEVIATION === '0') process.exit(0);
deviation(base, 'bf16-exact weights', ['float32', 'auto']);
deviation(model(true, 8), 'bf16-exact weights, embed ×8', ['float32', 'auto']);
deviation(model(false), 'f32 weights', ['auto', 'bfloat16', 'float16']);
deviation(model(false, 8), 'f32 weights, embed ×8', ['auto', 'bfloat16', 'float16']);
