// Engine benchmark: GEMM throughput per kernel and transpose, LoRA training and sampling speed for
// local/qwen3-tiny and a SmolLM2-135M-shaped model (random weights in memory), peak RSS.
import {
  createLoraModel,
  type EngineDatum,
  kernelInfo,
  loadBaseModel,
  type ModelConfig,
  randomModel,
  sgemmJs,
} from '../src/index.js';
import { nativeAddon } from '../src/kernels/kernel.js';

let peakRss = 0;
const sampleRss = () => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
};
const timer = setInterval(sampleRss, 50);

function line(name: string, value: number, unit: string): void {
  sampleRss();
  console.log(`${name.padEnd(58)} ${value.toFixed(value < 10 ? 2 : 1).padStart(10)} ${unit}`);
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
      line(`gemm ${name} ${M}x${N}x${K} ${tA ? 'T' : 'N'}${tB ? 'T' : 'N'}`, g, 'GFLOP/s');
    }
  }
}

function ceDatum(n: number, V: number): EngineDatum {
  const toks = Array.from({ length: n + 1 }, (_, i) => (i * 7919 + 13) % V);
  return { tokens: toks.slice(0, -1), lossFnInputs: { target_tokens: { data: toks.slice(1), dtype: 'int64' } } };
}

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
  line(`train ${name} LoRA r32 fwd+bwd 512 tokens`, fb / 1000, 's');
  line(`train ${name} tokens/s`, 512 / (fb / 1000), 'tok/s');
  m.optimStep({ learningRate: 1e-4 });
  const s = m.sampler();
  const prompt = ceDatum(64, base.vocabSize).tokens as number[];
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
    line(`sample ${name} ${n} seq: ms per decode step`, dt / steps, 'ms');
    line(`sample ${name} ${n} seq: tokens/s`, toks / (dt / 1000), 'tok/s');
  }
}
clearInterval(timer);
line('peak rss', peakRss / 2 ** 20, 'MiB');
