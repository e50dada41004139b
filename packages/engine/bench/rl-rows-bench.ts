/**
 * Training cost of RL-shaped data: most rows of an RL datum are observation tokens whose advantage is 0, and only
 * the action tokens carry a gradient. The head's backward (most of a small model's cost) runs only on rows with a
 * gradient, so such a datum trains faster than one whose every row has a gradient. One line per figure, with the
 * ratio to the all-rows baseline measured in the same run.
 * Run: pnpm --filter @cookbook/engine bench
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createLoraModel, type EngineDatum, loadBaseModel } from '../src/index.js';

function rlDatum(n: number, V: number, actionRows: number): EngineDatum {
  const toks = Array.from({ length: n + 1 }, (_, i) => (i * 7919 + 13) % V);
  const adv = Array.from({ length: n }, (_, i) => (i >= n - actionRows ? 1 : 0));
  return {
    tokens: toks.slice(0, -1),
    lossFnInputs: {
      target_tokens: { data: toks.slice(1), dtype: 'int64' },
      logprobs: { data: Array.from({ length: n }, () => -2), dtype: 'float32' },
      advantages: { data: adv, dtype: 'float32' },
    },
  };
}

const base = await loadBaseModel('local/qwen3-tiny');
const m = createLoraModel(base, { rank: 32 });
const time = (data: EngineDatum[]) => {
  m.forwardBackward(data, 'importance_sampling');
  const reps = 3;
  const t0 = performance.now();
  for (let r = 0; r < reps; r++) m.forwardBackward(data, 'importance_sampling');
  return (performance.now() - t0) / reps / 1000;
};
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
const all = time([rlDatum(512, base.vocabSize, 512)]);
const line = (label: string, s: number) =>
  console.log(`${label.padEnd(62)} ${s.toFixed(3).padStart(8)} s  ×${(all / s).toFixed(2)} vs every row`);
line('train qwen3-tiny importance_sampling 512 rows, every row', all);
line('train qwen3-tiny importance_sampling 512 rows, 64 with a gradient', time([rlDatum(512, base.vocabSize, 64)]));
line('train qwen3-tiny importance_sampling 512 rows, 16 with a gradient', time([rlDatum(512, base.vocabSize, 16)]));
