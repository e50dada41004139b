/**
 * Pretrains the layers of the built-in stand-in `local/qwen3-tiny` and writes them to the engine package's
 * `weights/` folder (every tensor but the embedding, which stays the seeded random one). Run once by a maintainer,
 * offline; the result ships with the engine. Usage (from the repository root):
 *
 *   node --conditions=@cookbook/source --import tsx apps/cli/scripts/pretrain-standin.ts [key=value …]
 *
 * Keys: steps (phase 1, over the corpus's own vocabulary), full_steps (phase 2, over the whole vocabulary, so the
 * rest of the 151,936 tokens learn to stay unlikely), batch, lr, examples, seed, out. Full-parameter training of
 * the layers by the engine's FullModel on the corpus of standin-corpus.ts; the embedding is not trained.
 */
import type { Datum } from '@cookbook/core';
import {
  BaseModel,
  builtinLayersFile,
  type EngineDatum,
  FullModel,
  loadBaseModel,
  loadSampler,
} from '@cookbook/engine';
import { resolveModelSetup } from '@cookbook/renderers';
import { demonstrationDatums } from '../src/recipes/rl-warm-start.js';
import { CORPUS_FAMILIES, standinCorpus } from './standin-corpus.js';

const MODEL = 'local/qwen3-tiny';
const args = Object.fromEntries(process.argv.slice(2).map((a) => a.split('=', 2) as [string, string]));
const num = (k: string, d: number) => (args[k] === undefined ? d : Number(args[k]));
const steps = num('steps', 3000);
const fullSteps = num('full_steps', 200);
const batch = num('batch', 64);
const lr = num('lr', 3e-3);
const examples = num('examples', 60_000);
const seed = num('seed', 0);
const out = args.out ?? builtinLayersFile(MODEL)!;

function engineDatum(d: Datum): EngineDatum {
  return {
    tokens: d.modelInput.toInts(),
    lossFnInputs: {
      target_tokens: { data: Array.from(d.lossFnInputs.target_tokens!.data as ArrayLike<number>), dtype: 'int64' },
      weights: { data: Array.from(d.lossFnInputs.weights!.data as ArrayLike<number>), dtype: 'float32' },
    },
  };
}

const { renderer } = resolveModelSetup({ modelName: MODEL });
const full = await loadBaseModel(MODEL, { init: true });
const corpus = standinCorpus(examples, seed);
const data = demonstrationDatums(
  corpus.map((c) => c.conversation),
  renderer,
).map(engineDatum);
const heldOut = standinCorpus(CORPUS_FAMILIES.length * 30, seed + 1);
// One datum per trainable turn (a chat has several): each datum's family, for the per-family held-out loss.
const heldFamilies: string[] = [];
const heldData = heldOut.flatMap((c) => {
  const ds = demonstrationDatums([c.conversation], renderer).map(engineDatum);
  for (const _ of ds) heldFamilies.push(c.family);
  return ds;
});

// Phase 1 runs on a copy of the model whose vocabulary is the corpus's tokens only (the same embedding rows, the
// same layer tensors: the layers trained here are the full model's), ~100× cheaper in the output head.
const ids = [
  ...new Set([...data, ...heldData].flatMap((d) => [...d.tokens, ...(d.lossFnInputs.target_tokens!.data as number[])])),
].sort((a, b) => a - b);
const index = new Map(ids.map((id, i) => [id, i]));
const C = full.config.hiddenSize;
const subEmbed = new Float32Array(ids.length * C);
ids.forEach((id, i) => {
  subEmbed.set(full.weights.embed.subarray(id * C, id * C + C), i * C);
});
const sub = new BaseModel(
  `${MODEL} (corpus vocabulary)`,
  { ...full.config, vocabSize: ids.length },
  { embed: subEmbed, lmHead: subEmbed, layers: full.weights.layers, finalNorm: full.weights.finalNorm },
  [],
  null,
);
const remap = (d: EngineDatum): EngineDatum => ({
  tokens: d.tokens.map((t) => index.get(t)!),
  lossFnInputs: {
    target_tokens: { data: (d.lossFnInputs.target_tokens!.data as number[]).map((t) => index.get(t)!), dtype: 'int64' },
    weights: d.lossFnInputs.weights!,
  },
});

function familyLoss(m: FullModel, set: EngineDatum[]): string {
  const sums = new Map<string, [number, number]>();
  for (let i = 0; i < set.length; i += 64) {
    const chunk = set.slice(i, i + 64);
    const r = m.forwardBackward(chunk, 'cross_entropy', undefined, false);
    chunk.forEach((d, j) => {
      const lp = r.lossFnOutputs[j]!.logprobs!.data as Float32Array;
      const w = d.lossFnInputs.weights!.data as number[];
      let s = 0;
      let n = 0;
      for (let k = 0; k < w.length; k++) {
        s -= lp[k]! * w[k]!;
        n += w[k]!;
      }
      const f = heldFamilies[i + j]!;
      const acc = sums.get(f) ?? [0, 0];
      sums.set(f, [acc[0] + s, acc[1] + n]);
    });
  }
  return [...sums].map(([f, [s, n]]) => `${f} ${(s / n).toFixed(2)}`).join(', ');
}

function train(
  m: FullModel,
  set: EngineDatum[],
  n: number,
  label: string,
  evalSet: EngineDatum[],
  maskRows: (m: FullModel) => void = () => {},
): void {
  const t0 = Date.now();
  let offset = 0;
  for (let step = 0; step < n; step++) {
    const b = set.slice(offset, offset + batch);
    offset = (offset + batch) % Math.max(1, set.length - batch);
    const r = m.forwardBackward(b, 'cross_entropy');
    maskRows(m);
    const w = b.reduce((s, d) => s + (d.lossFnInputs.weights!.data as number[]).reduce((x, y) => x + y, 0), 0);
    for (let i = 0; i < m.grads.length; i++) m.grads[i]! /= w;
    const rate = lr * (1 - step / n);
    const adam = { learningRate: rate, beta1: 0.9, beta2: 0.99, eps: 1e-8, weightDecay: 0, gradClipNorm: 1 };
    const { gradNorm } = m.optimStep(adam);
    if (step % 100 === 0 || step === n - 1) {
      const s = ((Date.now() - t0) / 1000).toFixed(0);
      const line = `${label} step ${step}: loss ${(r.metrics['loss:sum']! / w).toFixed(3)} grad ${gradNorm.toFixed(2)} (${s}s)`;
      console.log(step % 500 === 0 || step === n - 1 ? `${line}\n  held-out: ${familyLoss(m, evalSet)}` : line);
    }
  }
}

// The embedding rows of the corpus's tokens are trained too (and shipped); every other row stays the seeded random
// one. Its scale starts at std 0.02, so the head's logits start near zero whatever the layers compute.
full.weights.finalNorm.fill(num('head_scale', 1));
const phase1 = new FullModel(sub, { embedding: true });
console.log(`phase 1: ${phase1.numParams} parameters, ${ids.length} corpus tokens, ${data.length} examples`);
train(phase1, data.map(remap), steps, 'phase 1', heldData.map(remap));
full.weights.finalNorm.set(sub.weights.finalNorm);
ids.forEach((id, i) => {
  full.weights.embed.set(sub.weights.embed.subarray(i * C, i * C + C), id * C);
});
const phase2 = new FullModel(full, { embedding: true });
// Phase 2 trains the same rows only: the others (every token the corpus lacks) keep their seeded values.
const keep = new Uint8Array(full.vocabSize);
for (const id of ids) keep[id] = 1;
const maskRows = (m: FullModel) => {
  const g = m.embedGrad;
  if (g === null) return;
  for (let v = 0; v < keep.length; v++) if (keep[v] === 0) g.fill(0, v * C, v * C + C);
};
if (fullSteps > 0) train(phase2, data.slice().reverse(), fullSteps, 'phase 2', heldData, maskRows);

// Greedy answers on held-out prompts, per family.
const sampler = loadSampler(full);
const right = new Map<string, [number, number]>();
heldOut.forEach((c, i) => {
  // The last answer is the one graded; the exchanges before it are the chat's history.
  const want = String(c.conversation.at(-1)!.content).trim();
  const prompt = renderer.buildGenerationPrompt(c.conversation.slice(0, -1)).toInts();
  const r = sampler.sample(prompt, {
    numSamples: 1,
    maxTokens: 24,
    temperature: 0,
    stop: renderer.getStopSequences() as number[],
  });
  const text = renderer.tokenizer
    .decode(r.sequences[0]!.tokens)
    .replace(/<\|im_end\|>$/, '')
    .trim();
  const ok = text === want;
  const acc = right.get(c.family) ?? [0, 0];
  right.set(c.family, [acc[0] + (ok ? 1 : 0), acc[1] + 1]);
  if (i < CORPUS_FAMILIES.length) console.log(`  ${c.family}: ${JSON.stringify(text)} (want ${JSON.stringify(want)})`);
});
console.log(`greedy exact match: ${[...right].map(([f, [a, n]]) => `${f} ${a}/${n}`).join(', ')}`);
phase2.saveLayers(
  out,
  {
    format: 'cookbook-standin-layers',
    model: MODEL,
    steps: String(steps),
    full_steps: String(fullSteps),
    seed: String(seed),
  },
  ids,
);
console.log(`wrote ${out}`);
