import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bf16ToF32, exportMergedModel, f16ToF32, f32ToBf16, f32ToF16, SafetensorsFile } from '@cookbook/weights';
import { afterAll, describe, expect, it } from 'vitest';
import { createLoraModel, loadSampler } from './lora-model.js';
import type { EngineDatum } from './losses.js';
import {
  builtinLayersFile,
  listBuiltinModels,
  loadBaseModel,
  randomModel,
  saveHfCheckpoint,
} from './model/base-model.js';
import { hfTensors } from './model/weights.js';
import { randn, testAdam, tinyConfig } from './test-utils.js';

const root = mkdtempSync(join(tmpdir(), 'engine-ckpt-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const datum: EngineDatum = {
  tokens: [1, 5, 9, 2, 7],
  lossFnInputs: { target_tokens: { data: [5, 9, 2, 7, 3], dtype: 'int64' } },
};

describe('checkpoints', () => {
  it('lists the built-in models and loads them with real vocabularies and EOS ids', async () => {
    expect(listBuiltinModels().map((m) => m.name)).toEqual(['local/qwen3-tiny', 'local/llama3-tiny']);
    const q = await loadBaseModel('local/qwen3-tiny');
    expect(q.vocabSize).toBe(151936);
    expect(q.eosTokenIds).toEqual([151645, 151643]);
    expect(q.config.tieWordEmbeddings).toBe(true);
    const q2 = await loadBaseModel('local/qwen3-tiny');
    expect(q2.weights.layers[1]!.wQKV).toEqual(q.weights.layers[1]!.wQKV);
    await expect(loadBaseModel('nope/model')).rejects.toThrow(/unknown model "nope\/model"/);
  }, 60_000);

  it("the built-ins' shapes come from the model catalog, unchanged", async () => {
    const common = { intermediateSize: 192, numLayers: 2, numHeads: 4, numKvHeads: 2, headDim: 16, hiddenSize: 64 };
    expect((await loadBaseModel('local/qwen3-tiny', { init: true })).config).toEqual({
      ...common,
      arch: 'qwen3',
      vocabSize: 151936,
      rmsNormEps: 1e-6,
      ropeTheta: 1_000_000,
      ropeScaling: null,
      tieWordEmbeddings: true,
      maxPositionEmbeddings: 4096,
      bosTokenId: 151643,
      eosTokenIds: [151645, 151643],
    });
    const llama = await loadBaseModel('local/llama3-tiny');
    expect(llama.config).toEqual({
      ...common,
      arch: 'llama',
      vocabSize: 128256,
      rmsNormEps: 1e-5,
      ropeTheta: 500_000,
      ropeScaling: { factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPositionEmbeddings: 8192 },
      tieWordEmbeddings: false,
      maxPositionEmbeddings: 4096,
      bosTokenId: 128000,
      eosTokenIds: [128001, 128009, 128008],
    });
    expect(llama.tokenizerDir).toMatch(/tokenizer-llama3[/\\]models$/);
  }, 60_000);

  it('local/qwen3-tiny ships pretrained layers and embedding rows over its seeded init; init: true is the init', async () => {
    const q = await loadBaseModel('local/qwen3-tiny');
    const init = await loadBaseModel('local/qwen3-tiny', { init: true });
    const file = SafetensorsFile.open(builtinLayersFile('local/qwen3-tiny')!);
    try {
      const ids = Array.from(file.read('cookbook.embed_rows.ids').data);
      const C = q.config.hiddenSize;
      for (const t of hfTensors(q.config, q.weights)) {
        if (t.name === 'model.embed_tokens.weight') continue;
        expect(Array.from(t.data), t.name).toEqual(Array.from(file.read(t.name).data));
      }
      expect(q.weights.layers[0]!.wQKV).not.toEqual(init.weights.layers[0]!.wQKV);
      const shipped = new Set(ids);
      expect(ids.length).toBeGreaterThan(50);
      const rows = file.read('cookbook.embed_rows.weight').data;
      expect(Array.from(q.weights.embed.subarray(ids[0]! * C, ids[0]! * C + C))).toEqual(
        Array.from(rows.subarray(0, C)),
      );
      // every other row is the seeded random init
      const other = [0, 1000, 151_000].find((id) => !shipped.has(id))!;
      expect(q.weights.embed.subarray(other * C, other * C + C)).toEqual(
        init.weights.embed.subarray(other * C, other * C + C),
      );
    } finally {
      file.close();
    }
    // llama3-tiny has no pretrained layers: its weights are the seeded init either way
    expect(builtinLayersFile('local/llama3-tiny')).toBeNull();
  }, 60_000);

  it('round-trips f16/bf16 conversions', () => {
    for (const x of [0, 1, -2.5, 65504, 1e-5, 2.71]) {
      expect(f16ToF32(f32ToF16(x))).toBeCloseTo(x, x > 100 ? -1 : 2);
      expect(bf16ToF32(f32ToBf16(x))).toBeCloseTo(x, x > 100 ? -3 : 1);
    }
  });

  it('writes HF checkpoints the loader reads back (f32 exact, bf16, f16, sharded) with tokenizer files', async () => {
    const llama = await loadBaseModel('local/llama3-tiny');
    const base = randomModel(
      { ...tinyConfig('llama', false), eosTokenIds: llama.eosTokenIds },
      2,
      'x',
      llama.tokenizerDir,
    );
    const m = createLoraModel(base, { rank: 2 });
    const ref = m.forward([datum], 'cross_entropy').lossFnOutputs[0]!.logprobs!.data as Float32Array;
    for (const [dtype, shard] of [
      ['float32', undefined],
      ['bfloat16', undefined],
      ['float16', 4_000],
    ] as const) {
      const dir = join(root, `hf-${dtype}`);
      await saveHfCheckpoint(base, dir, { dtype, maxShardBytes: shard });
      expect(existsSync(join(dir, 'tokenizer.json'))).toBe(true);
      if (shard) expect(existsSync(join(dir, 'model.safetensors.index.json'))).toBe(true);
      const back = await loadBaseModel(dir);
      expect(back.config).toEqual(base.config);
      expect(back.eosTokenIds.sort()).toEqual([...base.eosTokenIds].sort());
      const lp = createLoraModel(back, { rank: 2 }).forward([datum], 'cross_entropy').lossFnOutputs[0]!.logprobs!
        .data as Float32Array;
      if (dtype === 'float32') {
        expect(back.weights.layers[0]!.wGateUp).toEqual(base.weights.layers[0]!.wGateUp);
        expect(lp).toEqual(ref);
      } else {
        for (let i = 0; i < lp.length; i++) expect(lp[i]).toBeCloseTo(ref[i]!, 2);
      }
    }
    expect(readdirSync(root).filter((f) => f.includes('.tmp-'))).toEqual([]);
  }, 60_000);

  it('saves and loads training state bit-exactly (weights, Adam moments, step)', async () => {
    const base = randomModel(tinyConfig('qwen3', true), 1, 'tiny', null);
    const a = createLoraModel(base, { rank: 3, seed: 4 });
    for (let s = 0; s < 3; s++) {
      a.forwardBackward([datum], 'cross_entropy');
      a.optimStep(testAdam(1e-2));
    }
    const dir = join(root, 'state');
    await a.saveState(dir);
    const b = createLoraModel(base, { rank: 3, seed: 99 });
    await b.loadState(dir);
    expect(b.lora.params).toEqual(a.lora.params);
    expect(b.step).toBe(3);
    a.forwardBackward([datum], 'cross_entropy');
    b.forwardBackward([datum], 'cross_entropy');
    a.optimStep(testAdam(1e-2));
    b.optimStep(testAdam(1e-2));
    expect(b.lora.params).toEqual(a.lora.params);
    await a.saveState(dir, { optimizer: false });
    await expect(b.loadState(dir)).rejects.toThrow(/without optimizer state/);
    await b.loadState(dir, { optimizer: false });
    const c = createLoraModel(base, { rank: 4 });
    await expect(c.loadState(dir, { optimizer: false })).rejects.toThrow(/does not match/);
  });

  it('exports a PEFT adapter (sampler weights) and a merged checkpoint that agree with the adapter', async () => {
    const base = randomModel(tinyConfig('qwen3', true), 1, 'tiny', null);
    const m = createLoraModel(base, { rank: 2 });
    m.lora.params.set(randn(m.lora.params.length, 3, 0.05));
    const dir = join(root, 'peft');
    await m.saveSamplerWeights(dir);
    const cfg = JSON.parse(readFileSync(join(dir, 'adapter_config.json'), 'utf8'));
    expect(cfg).toMatchObject({ peft_type: 'LORA', r: 2, lora_alpha: 32, base_model_name_or_path: 'tiny' });
    expect(cfg.target_modules).toEqual([
      'q_proj',
      'k_proj',
      'v_proj',
      'o_proj',
      'gate_proj',
      'up_proj',
      'down_proj',
      'lm_head',
    ]);
    const f = SafetensorsFile.open(join(dir, 'adapter_model.safetensors'));
    expect(f.entries.has('base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight')).toBe(true);
    expect(f.entries.get('base_model.model.lm_head.lora_B.weight')!.shape).toEqual([61, 2]);
    f.close();
    const opts = { numSamples: 1, maxTokens: 6, temperature: 0, includePromptLogprobs: true, stop: [] };
    const want = m.sampler().sample([1, 2, 3], opts);
    expect(loadSampler(base, dir).sample([1, 2, 3], opts)).toEqual(want);
    // The merged export users run (`@cookbook/weights`, from the adapter folder and the base on disk) reproduces the
    // engine's own LoRA forward: the head, tied in the base and carrying an adapter, is written untied.
    const baseDir = join(root, 'peft-base');
    await saveHfCheckpoint(base, baseDir, { dtype: 'float32' });
    const merged = join(root, 'merged');
    await exportMergedModel({ adapterDir: dir, baseDir, outDir: merged, dtype: 'float32' });
    const mb = await loadBaseModel(merged);
    expect(mb.config.tieWordEmbeddings).toBe(false);
    expect(hfTensors(mb.config, mb.weights).some((t) => t.name === 'lm_head.weight')).toBe(true);
    const got = loadSampler(mb).sample([1, 2, 3], opts);
    expect(got.sequences[0]!.tokens).toEqual(want.sequences[0]!.tokens);
    for (let i = 1; i < got.promptLogprobs!.length; i++) {
      expect(got.promptLogprobs![i]).toBeCloseTo(want.promptLogprobs![i]!, 4);
    }
  });
});
