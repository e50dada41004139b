import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { linearModules, TINY, writeAdapterFolder, writeBaseFolder } from './__fixtures__/tiny-models.js';
import { exportMergedModel } from './merged-export.js';
import { exportPeftAdapter } from './peft-export.js';
import { SafetensorsFile } from './safetensors.js';

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'weights-peft-'));
}

function readAll(file: string): Map<string, { shape: number[]; data: Float32Array }> {
  const f = SafetensorsFile.open(file);
  try {
    return new Map([...f.entries.keys()].map((k) => [k, f.read(k)]));
  } finally {
    f.close();
  }
}

describe('PEFT adapter export', () => {
  it('writes the module names, rank, alpha and target modules PEFT expects', async () => {
    const d = tmp();
    writeBaseFolder(join(d, 'base'));
    writeAdapterFolder(join(d, 'ckpt'), TINY, { rank: 2, alpha: 32, baseModel: 'Qwen/Qwen3-8B' });
    await exportPeftAdapter({ adapterDir: join(d, 'ckpt'), baseDir: join(d, 'base'), outDir: join(d, 'peft') });
    const cfg = JSON.parse(readFileSync(join(d, 'peft', 'adapter_config.json'), 'utf8'));
    expect(cfg).toMatchObject({
      peft_type: 'LORA',
      task_type: 'CAUSAL_LM',
      r: 2,
      lora_alpha: 32,
      base_model_name_or_path: 'Qwen/Qwen3-8B',
      target_modules: ['down_proj', 'gate_proj', 'k_proj', 'lm_head', 'o_proj', 'q_proj', 'up_proj', 'v_proj'],
      bias: 'none',
      fan_in_fan_out: false,
    });
    const t = readAll(join(d, 'peft', 'adapter_model.safetensors'));
    expect(t.get('base_model.model.model.layers.1.mlp.down_proj.lora_A.weight')?.shape).toEqual([2, TINY.inter]);
    expect(t.get('base_model.model.model.layers.1.mlp.down_proj.lora_B.weight')?.shape).toEqual([TINY.hidden, 2]);
    // Tinker's name for the output head becomes the HF module PEFT targets.
    expect(t.get('base_model.model.lm_head.lora_B.weight')?.shape).toEqual([TINY.vocab, 2]);
    expect([...t.keys()].some((k) => k.includes('unembed_tokens'))).toBe(false);
    expect(t.size).toBe(2 * (linearModules(TINY).length + 1));
  });

  it("PEFT's formula W + (alpha/r)·B·A over the exported adapter gives the merged export's weights", async () => {
    const d = tmp();
    const base = writeBaseFolder(join(d, 'base'));
    writeAdapterFolder(join(d, 'ckpt'), TINY, { rank: 4, alpha: 16 });
    await exportPeftAdapter({ adapterDir: join(d, 'ckpt'), outDir: join(d, 'peft') });
    await exportMergedModel({
      adapterDir: join(d, 'ckpt'),
      baseDir: join(d, 'base'),
      outDir: join(d, 'merged'),
      dtype: 'float32',
    });
    const cfg = JSON.parse(readFileSync(join(d, 'peft', 'adapter_config.json'), 'utf8')) as {
      r: number;
      lora_alpha: number;
    };
    const peft = readAll(join(d, 'peft', 'adapter_model.safetensors'));
    const merged = readAll(join(d, 'merged', 'model.safetensors'));
    const scaling = cfg.lora_alpha / cfg.r;
    // PEFT's LoRA layer: weight + scaling * (lora_B.weight @ lora_A.weight), written out here by hand.
    const peftMerge = (module: string, W: Float32Array) => {
      const A = peft.get(`base_model.model.${module}.lora_A.weight`)!;
      const B = peft.get(`base_model.model.${module}.lora_B.weight`)!;
      const [out, r] = B.shape as [number, number];
      const inF = A.shape[1]!;
      const res = new Float64Array(out * inF);
      for (let o = 0; o < out; o++) {
        for (let i = 0; i < inF; i++) {
          let acc = 0;
          for (let k = 0; k < r; k++) acc += B.data[o * r + k]! * A.data[k * inF + i]!;
          res[o * inF + i] = W[o * inF + i]! + scaling * acc;
        }
      }
      return res;
    };
    let maxDiff = 0;
    let maxDelta = 0;
    for (const [module] of linearModules(TINY)) {
      const W = base.get(`${module}.weight`)!.data;
      const want = peftMerge(module, W);
      const got = merged.get(`${module}.weight`)!.data;
      for (let i = 0; i < want.length; i++) {
        maxDiff = Math.max(maxDiff, Math.abs(want[i]! - got[i]!));
        maxDelta = Math.max(maxDelta, Math.abs(want[i]! - W[i]!));
      }
    }
    // The tied head carries an adapter: the merge unties it, the embedding stays the base's.
    const embed = base.get('model.embed_tokens.weight')!.data;
    const head = peftMerge('lm_head', embed);
    const gotHead = merged.get('lm_head.weight')!.data;
    for (let i = 0; i < head.length; i++) maxDiff = Math.max(maxDiff, Math.abs(head[i]! - gotHead[i]!));
    expect(merged.get('model.embed_tokens.weight')!.data).toEqual(embed);
    expect(maxDelta).toBeGreaterThan(0.01); // the adapter changes the weights visibly
    expect(maxDiff).toBeLessThan(1e-6);
    const mergedCfg = JSON.parse(readFileSync(join(d, 'merged', 'config.json'), 'utf8'));
    expect(mergedCfg.tie_word_embeddings).toBe(false);
    expect(mergedCfg.torch_dtype).toBe('float32');
  });

  it('refuses an adapter trained on another base model, naming the module and both shapes', async () => {
    const d = tmp();
    writeBaseFolder(join(d, 'base'), { ...TINY, hidden: 16 });
    writeAdapterFolder(join(d, 'ckpt'), TINY, { baseModel: 'local/qwen3-tiny' });
    await expect(
      exportPeftAdapter({ adapterDir: join(d, 'ckpt'), baseDir: join(d, 'base'), outDir: join(d, 'peft') }),
    ).rejects.toThrow(
      /does not fit the base model .*base: lm_head is \[16,16\] in the base but the adapter maps 8 → 16 \(the adapter was trained on "local\/qwen3-tiny"\)/,
    );
    await expect(
      exportMergedModel({ adapterDir: join(d, 'ckpt'), baseDir: join(d, 'base'), outDir: join(d, 'merged') }),
    ).rejects.toThrow(/does not fit the base model/);
  });

  it('names the file of a corrupt or incomplete adapter', async () => {
    const d = tmp();
    writeAdapterFolder(join(d, 'ckpt'));
    writeFileSync(join(d, 'ckpt', 'adapter_config.json'), '{"r": 0, "lora_alpha": 32}');
    await expect(exportPeftAdapter({ adapterDir: join(d, 'ckpt'), outDir: join(d, 'o') })).rejects.toThrow(
      /adapter_config\.json: "r" must be a positive integer, got 0/,
    );
    writeFileSync(join(d, 'ckpt', 'adapter_config.json'), '{"r": 2, "lora_alpha": 32}');
    writeFileSync(join(d, 'ckpt', 'cookbook_lora.json'), '{"sha256": "00"}');
    await expect(exportPeftAdapter({ adapterDir: join(d, 'ckpt'), outDir: join(d, 'o') })).rejects.toThrow(
      /adapter_model\.safetensors is corrupt: its SHA-256 does not match/,
    );
    await expect(exportPeftAdapter({ adapterDir: join(d, 'nothing'), outDir: join(d, 'o') })).rejects.toThrow(
      /nothing is not a folder/,
    );
  });
});
