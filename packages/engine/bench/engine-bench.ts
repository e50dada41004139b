// Engine benchmark: GEMM throughput per kernel and transpose, LoRA training and sampling speed for
// local/qwen3-tiny and a SmolLM2-135M-shaped model (random weights in memory), peak RSS.
import { createLoraModel, kernelInfo, loadBaseModel, type ModelConfig } from '../src/index.js';
import { nativeAddon } from '../src/kernels/kernel.js';
import { sgemmJs } from '../src/kernels/sgemm-js.js';
import { randomModel } from '../src/model/base-model.js';
import { ceDatum, SMOL_135M as smol } from './shapes.js';

let peakRss = 0;
const sampleRss = () => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};
const timer = setInterval(sampleRss, 50);

/** One figure, with its ratio to a baseline measured in the same run when there is one. */
function line(name: string, value: number, unit: string, ratio?: string): void {
  sampleRss();
  const v = `${name.padEnd(58)} ${value.toFixed(value < 10 ? 2 : 1).padStart(10)} ${unit}`;
  console.log(ratio === undefined ? v : `${v.padEnd(80)} ${ratio}`);
}

type Gemm = typeof sgemmJs;

function gflops(f: Gemm, tA: boolean, tB: boolean, M: number, N: number, K: number, minMs: number): number {
  const A = new Float32Array(M * K).map((_, i) => (i % 7) * 0.1);
  const B = new Float32Array(K * N).map((_, i) => (i % 5) * 0.1);
  const C = new Float32Array(M * N);
  f(tA, tB, M, N, K, 1, A, tA ? M : K, B, tB ? K : N, 0, C, N);
  let reps = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < minMs) {
    f(tA, tB, M, N, K, 1, A, tA ? M : K, B, tB ? K : N, 0, C, N);
    reps++;
  }
  return (2 * M * N * K * reps) / ((performance.now() - t0) / 1000) / 1e9;
}

const info = kernelInfo();
console.log(`kernel: ${info.kernel}, blas: ${info.blas ?? 'none'}, threads: ${info.threads}`);

const kernels: [string, Gemm][] = [['js', sgemmJs]];
const nat = nativeAddon();
const own = nativeAddon('own');
if (nat) {
  nat.setThreads(info.threads);
  kernels.push([`native(${nat.info().blas ?? 'own'})`, nat.sgemm]);
}
if (own) {
  own.setThreads(info.threads);
  kernels.push(['native(own avx2 kernel)', own.sgemm]);
}
// Pure-TS GEMM rates per transpose (512×1536×576): the baseline of every native GEMM line.
const jsRate = new Map<string, number>();
let nativeRate = 0;
const shapes: [number, number, number][] = [
  [1024, 1024, 1024],
  [512, 1536, 576],
];
for (const [name, f] of kernels) {
  for (const [M, N, K] of shapes) {
    if (name === 'js' && M === 1024) continue;
    for (const [tA, tB] of [
      [false, false],
      [false, true],
      [true, false],
      [true, true],
    ] as const) {
      const g = gflops(f, tA, tB, M, N, K, name === 'js' ? 300 : 500);
      const tr = `${tA ? 'T' : 'N'}${tB ? 'T' : 'N'}`;
      if (name === 'js') jsRate.set(tr, g);
      else if (nativeRate === 0 && M === 512 && tr === 'NN') nativeRate = g;
      const js = jsRate.get(tr);
      const ratio =
        name === 'js' || js === undefined ? undefined : `×${(g / js).toFixed(0)} pure TS (512x1536x576 ${tr})`;
      line(`gemm ${name} ${M}x${N}x${K} ${tr}`, g, 'GFLOP/s', ratio);
    }
  }
}

/**
 * Seconds the matrix products of one LoRA forward+backward over T tokens would take at `gflops`: the projections,
 * MLP and head forward, their input gradients backward (base weights are frozen: no weight gradients), and the two
 * attention products each way. LoRA's own products (rank ≪ width) are left out, so the floor is a lower bound.
 */
function gemmFloorSeconds(c: ModelConfig, T: number, gflops: number): number {
  const QD = c.numHeads * c.headDim;
  const KD = c.numKvHeads * c.headDim;
  const perTokenLayer = 2 * (c.hiddenSize * (QD + 2 * KD) + QD * c.hiddenSize + 3 * c.hiddenSize * c.intermediateSize);
  const attention = 2 * 2 * T * QD; // scores and weighted values, per token (causal halves this; kept as a bound)
  const forward = T * (c.numLayers * (perTokenLayer + attention / 2) + 2 * c.hiddenSize * c.vocabSize);
  return (2 * forward) / (gflops * 1e9);
}

const models: [string, () => Promise<ReturnType<typeof randomModel>>][] = [
  ['qwen3-tiny', () => loadBaseModel('local/qwen3-tiny')],
  ['smollm2-135m-shape', async () => randomModel(smol, 1, 'smollm2-135m-shape')],
];
for (const [name, load] of models) {
  const base = await load();
  const m = createLoraModel(base, { rank: 32 });
  const data = [ceDatum(512, base.vocabSize)];
  m.forwardBackward(data, 'cross_entropy');
  m.zeroGrad();
  const reps = 3;
  let t0 = performance.now();
  for (let r = 0; r < reps; r++) m.forwardBackward(data, 'cross_entropy');
  const fb = (performance.now() - t0) / reps;
  const floor = gemmFloorSeconds(base.config, 512, nativeRate || (jsRate.get('NN') ?? 1));
  line(
    `train ${name} LoRA r32 fwd+bwd 512 tokens`,
    fb / 1000,
    's',
    `×${(fb / 1000 / floor).toFixed(2)} its GEMM floor (${floor.toFixed(2)} s)`,
  );
  line(`train ${name} tokens/s`, 512 / (fb / 1000), 'tok/s');
  m.optimStep({ learningRate: 1e-4, beta1: 0.9, beta2: 0.95, eps: 1e-12, weightDecay: 0, gradClipNorm: 0 });
  const s = m.sampler();
  const prompt = ceDatum(64, base.vocabSize).tokens as number[];
  let oneSeqMs = 0;
  for (const n of [1, 8]) {
    s.sample(prompt, { numSamples: n, maxTokens: 4, seed: 1, stop: [] });
    const steps = 32;
    t0 = performance.now();
    s.sample(prompt, { numSamples: n, maxTokens: 1, seed: 1, stop: [] });
    const prefill = performance.now() - t0;
    t0 = performance.now();
    const r = s.sample(prompt, { numSamples: n, maxTokens: steps + 1, seed: 1, stop: [] });
    const dt = performance.now() - t0 - prefill;
    const toks = r.sequences.reduce((a, q) => a + q.tokens.length, 0) - n;
    if (n === 1) oneSeqMs = dt / steps;
    line(
      `sample ${name} ${n} seq: ms per decode step`,
      dt / steps,
      'ms',
      n === 1 ? '(baseline)' : `×${(dt / steps / oneSeqMs).toFixed(2)} one sequence`,
    );
    line(`sample ${name} ${n} seq: tokens/s`, toks / (dt / 1000), 'tok/s');
  }
}
clearInterval(timer);
line('peak rss (whole bench: both models, training and sampling)', peakRss / 2 ** 20, 'MiB');
