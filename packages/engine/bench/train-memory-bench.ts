// Peak RSS of SmolLM2-135M-shaped LoRA r32 forward+backward steps over 512 tokens, each figure measured in a process
// of its own (the kernel's high-water mark, `maxRSS`), with its ratio to a baseline measured in the same run: a
// process that loads the same weights and LoRA adapter and runs nothing (the floor the step's memory adds to).
// Run: node --conditions=@cookbook/source --import tsx bench/train-memory-bench.ts
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLoraModel } from '../src/index.js';
import { randomModel } from '../src/model/base-model.js';
import { ceDatum, SMOL_135M as smol } from './shapes.js';

const MiB = (kib: number) => kib / 1024;

const mode = process.argv[2];
if (mode === 'weights' || mode === 'train') {
  // Child: one measurement, printed as JSON on the last line.
  const base = randomModel(smol, 1, 'smollm2-135m-shape');
  const m = createLoraModel(base, { rank: 32 });
  const afterLoad = MiB(process.resourceUsage().maxRSS);
  // Four steps, as the engine bench times them (a warm-up and three): garbage of earlier steps counts too.
  if (mode === 'train') for (let i = 0; i < 4; i++) m.forwardBackward([ceDatum(512, base.vocabSize)], 'cross_entropy');
  console.log(JSON.stringify({ afterLoadMiB: afterLoad, peakMiB: MiB(process.resourceUsage().maxRSS) }));
} else {
  const self = fileURLToPath(import.meta.url);
  const run = (m: string) => {
    const out = execFileSync(process.execPath, [...process.execArgv, self, m], { encoding: 'utf8' });
    return JSON.parse(out.trim().split('\n').at(-1)!) as { afterLoadMiB: number; peakMiB: number };
  };
  const floor = run('weights');
  const train = run('train');
  const line = (name: string, mib: number, ratio: string) =>
    console.log(`${`${name.padEnd(58)} ${mib.toFixed(0).padStart(10)} MiB`.padEnd(80)} ${ratio}`);
  line('peak rss 135m-shape weights + LoRA r32, nothing run', floor.peakMiB, '(baseline, own process)');
  line(
    'peak rss 135m-shape LoRA r32 fwd+bwd 512 tokens (4 steps)',
    train.peakMiB,
    `×${(train.peakMiB / floor.peakMiB).toFixed(2)} baseline, +${(train.peakMiB - floor.peakMiB).toFixed(0)} MiB (own process)`,
  );
}
