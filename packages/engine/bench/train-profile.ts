// Where a SmolLM2-135M-shaped LoRA r32 forward+backward over 512 tokens spends its time: the step runs in a child
// process under `node --cpu-prof`, and each profile sample (main thread; a native GEMM's time lands on the JS frame
// that called it) is charged to the layer function the transformer called (its outermost engine layer frame). Prints shares of the sampled time, which
// a loaded machine distorts less than seconds.
// Run: node --conditions=@cookbook/source --import tsx bench/train-profile.ts   (env: PROFILE_STEPS, default 3)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLoraModel } from '../src/index.js';
import { randomModel } from '../src/model/base-model.js';
import { ceDatum, SMOL_135M as smol } from './shapes.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * Category of a stack (leaf first), from its outermost frame in a known engine file: the layer function the
 * transformer called (the head's GEMMs run through linear.ts helpers but count as the head).
 */
const FILES: [RegExp, string][] = [
  [/layers\/linear\.ts$/, 'block projections'],
  [/layers\/attention\.ts$/, 'attention (scores, softmax, weighted values)'],
  [/layers\/rope\.ts$/, 'attention (RoPE)'],
  [/layers\/rmsnorm\.ts$/, 'RMSNorm (incl. q/k norms)'],
  [/layers\/swiglu\.ts$/, 'SwiGLU'],
  [/layers\/unembed\.ts$|losses\.ts$/, 'head'],
  [/lora\.ts$|adamw\.ts$/, 'LoRA bookkeeping'],
];

const has = (stack: ProfileNode[], test: (n: ProfileNode) => boolean) => stack.some(test);
const isLora = (n: ProfileNode) => /^lora(Forward|Backward)$/.test(n.callFrame.functionName);

/** Splits the projections into base GEMMs and LoRA products, the head into its GEMMs and its softmax + loss. */
function refine(cat: string, stack: ProfileNode[]): string {
  if (cat === 'block projections') {
    return has(stack, isLora) ? 'block LoRA products (x·A, h·B and their gradients)' : 'block base GEMMs (x·Wᵀ, dy·W)';
  }
  if (cat === 'head') {
    return has(stack, (n) => /layers\/linear\.ts$/.test(n.callFrame.url))
      ? 'unembedding GEMMs (logits, ∂x, LoRA head)'
      : 'softmax + cross-entropy over the vocabulary';
  }
  return cat;
}

function categorize(stack: ProfileNode[]): string {
  const leaf = stack[0]!.callFrame.functionName;
  if (leaf === '(garbage collector)') return 'allocation + GC';
  if (leaf === '(idle)') return '(idle)';
  for (const n of [...stack].reverse()) {
    const { url, functionName } = n.callFrame;
    if (/transformer\.ts$/.test(url) && (functionName === 'ensure' || functionName === 'TrainWorkspace')) {
      return 'allocation + GC';
    }
    for (const [re, cat] of FILES) if (re.test(url)) return refine(cat, stack);
  }
  for (const n of stack) {
    if (/transformer\.ts$/.test(n.callFrame.url)) return 'transformer glue (copies, residuals, head row compaction)';
  }
  if (leaf === '(program)') return 'other (V8, outside JS)';
  return 'other (data packing, setup)';
}

const steps = Number(process.env.PROFILE_STEPS ?? 3);
if (process.argv[2] === 'child') {
  const base = randomModel(smol, 1, 'smollm2-135m-shape');
  const m = createLoraModel(base, { rank: 32 });
  const data = [ceDatum(512, base.vocabSize)];
  m.forwardBackward(data, 'cross_entropy'); // warm-up: workspace allocation, JIT, OpenBLAS threads
  // The timed steps' window on the profile's clock (V8's profile timestamps are monotonic µs, as hrtime).
  const us = () => Number(process.hrtime.bigint() / 1000n);
  const from = us();
  for (let i = 0; i < steps; i++) m.forwardBackward(data, 'cross_entropy');
  const to = us();
  console.log(JSON.stringify({ msPerStep: (to - from) / 1000 / steps, from, to }));
} else {
  const dir = mkdtempSync(join(tmpdir(), 'train-profile-'));
  const self = fileURLToPath(import.meta.url);
  const out = execFileSync(
    process.execPath,
    ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--cpu-prof-interval=500', ...process.execArgv, self, 'child'],
    { encoding: 'utf8' },
  );
  const { msPerStep, from, to } = JSON.parse(out.trim().split('\n').at(-1)!) as {
    msPerStep: number;
    from: number;
    to: number;
  };
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
  const prof = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
  rmSync(dir, { recursive: true, force: true });
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  // Each sample covers the interval up to the next one; count those inside the timed steps' window.
  const share = new Map<string, number>();
  let total = 0;
  let t = prof.startTime;
  for (let i = 0; i < prof.samples.length; i++) {
    t += prof.timeDeltas[i] ?? 0;
    const dt = prof.timeDeltas[i + 1] ?? 0;
    if (t < from || t >= to) continue;
    const stack: ProfileNode[] = [];
    for (let cur: number | undefined = prof.samples[i]; cur !== undefined; cur = parent.get(cur)) {
      stack.push(byId.get(cur)!);
    }
    const cat = categorize(stack);
    if (cat === '(idle)') continue;
    share.set(cat, (share.get(cat) ?? 0) + dt);
    total += dt;
  }
  const covered = total / (to - from);
  console.log(
    `135m-shape LoRA r32 fwd+bwd 512 tokens: ${msPerStep.toFixed(0)} ms/step over ${steps} profiled steps (samples cover ${(100 * covered).toFixed(0)} % of them); shares of sampled time:`,
  );
  for (const [cat, us] of [...share].sort((x, y) => y[1] - x[1])) {
    console.log(`  ${cat.padEnd(60)} ${((100 * us) / total).toFixed(1).padStart(5)} %`);
  }
}
