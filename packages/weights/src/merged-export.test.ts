import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TINY, writeAdapterFolder, writeBaseFolder } from './__fixtures__/tiny-models.js';
import { openBaseModelFolder } from './base-folder.js';
import { exportMergedModel } from './merged-export.js';
import { bf16ToF32, f32ToBf16, SafetensorsFile } from './safetensors.js';

function tmp(): string {
  return mkdtempSync(join(tmpdir(), 'weights-merged-'));
}

describe('merged model export', () => {
  it('shards with an index the base loader reads, copies tokenizer files, untied head for an adapted tied head', async () => {
    const d = tmp();
    writeBaseFolder(join(d, 'base'));
    writeAdapterFolder(join(d, 'ckpt'));
    await exportMergedModel({
      adapterDir: join(d, 'ckpt'),
      baseDir: join(d, 'base'),
      outDir: join(d, 'out'),
      dtype: 'float32',
      maxShardBytes: 1500,
    });
    const files = readdirSync(join(d, 'out')).sort();
    expect(files).toContain('model.safetensors.index.json');
    expect(files).toContain('tokenizer.json');
    expect(files.filter((f) => /^model-\d{5}-of-\d{5}\.safetensors$/.test(f)).length).toBeGreaterThan(2);
    const index = JSON.parse(readFileSync(join(d, 'out', 'model.safetensors.index.json'), 'utf8'));
    const reopened = openBaseModelFolder(join(d, 'out'));
    expect(reopened.tiedEmbeddings).toBe(false);
    expect(reopened.byName.has('lm_head.weight')).toBe(true);
    const bytes = reopened.tensors.reduce((s, t) => s + t.entry.dataOffsets[1] - t.entry.dataOffsets[0], 0);
    expect(index.metadata.total_size).toBe(bytes);
  });

  it('bf16 output is the f32 merge rounded to bf16', async () => {
    const d = tmp();
    writeBaseFolder(join(d, 'base'), { ...TINY, tied: false, modelType: 'llama' });
    writeAdapterFolder(join(d, 'ckpt'), { ...TINY, tied: false });
    await exportMergedModel({
      adapterDir: join(d, 'ckpt'),
      baseDir: join(d, 'base'),
      outDir: join(d, 'f32'),
      dtype: 'float32',
    });
    await exportMergedModel({ adapterDir: join(d, 'ckpt'), baseDir: join(d, 'base'), outDir: join(d, 'bf16') });
    const a = SafetensorsFile.open(join(d, 'f32', 'model.safetensors'));
    const b = SafetensorsFile.open(join(d, 'bf16', 'model.safetensors'));
    try {
      expect(b.entries.get('lm_head.weight')?.dtype).toBe('BF16');
      for (const name of a.entries.keys()) {
        const want = a.read(name).data.map((x) => bf16ToF32(f32ToBf16(x)));
        expect(b.read(name).data).toEqual(want);
      }
    } finally {
      a.close();
      b.close();
    }
    expect(JSON.parse(readFileSync(join(d, 'bf16', 'config.json'), 'utf8')).torch_dtype).toBe('bfloat16');
  });

  it('refuses to overwrite without overwrite=true, replaces with it, and checks disk space first', async () => {
    const d = tmp();
    writeBaseFolder(join(d, 'base'));
    writeAdapterFolder(join(d, 'ckpt'));
    const opts = { adapterDir: join(d, 'ckpt'), baseDir: join(d, 'base'), outDir: join(d, 'out') };
    await exportMergedModel(opts);
    writeFileSync(join(d, 'out', 'marker'), 'x');
    await expect(exportMergedModel(opts)).rejects.toThrow(
      /out already exists; choose another folder or pass overwrite=true/,
    );
    await exportMergedModel({ ...opts, overwrite: true });
    expect(existsSync(join(d, 'out', 'marker'))).toBe(false);
    await expect(exportMergedModel({ ...opts, outDir: join(d, 'out2'), freeBytes: () => 1000 })).rejects.toThrow(
      /not enough disk space for .*out2: the export needs about [\d.]+ MB and .* has 1.00 kB free; free some space/,
    );
    expect(existsSync(join(d, 'out2'))).toBe(false);
    expect(readdirSync(d).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('refuses model families it cannot merge, naming config.json', async () => {
    const d = tmp();
    writeBaseFolder(join(d, 'base'), { ...TINY, modelType: 'deepseek_v3' });
    writeAdapterFolder(join(d, 'ckpt'));
    await expect(
      exportMergedModel({ adapterDir: join(d, 'ckpt'), baseDir: join(d, 'base'), outDir: join(d, 'out') }),
    ).rejects.toThrow(
      /config\.json: model_type "deepseek_v3" is not supported; exports support Llama 3 and Qwen3 dense/,
    );
  });
});
