import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CheckpointError } from '@cookbook/core';
import { sha256File, writeSafetensors } from '@cookbook/weights';
import { afterAll, describe, expect, it } from 'vitest';
import { createLoraModel, loadSampler } from './lora-model.js';
import type { EngineDatum } from './losses.js';
import { randomModel } from './model/base-model.js';
import { testAdam, tinyConfig } from './test-utils.js';

const root = mkdtempSync(join(tmpdir(), 'engine-integrity-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const datum: EngineDatum = {
  tokens: [1, 5, 9, 2, 7],
  lossFnInputs: { target_tokens: { data: [5, 9, 2, 7, 3], dtype: 'int64' } },
};
const lora = { rank: 4, seed: 3 };

/** A model trained one step, saved as a training state and a PEFT adapter under `name`. */
async function saved(name: string, baseName = 'tiny-a') {
  const base = randomModel(tinyConfig('qwen3', true), 1, baseName, null);
  const m = createLoraModel(base, lora);
  m.forwardBackward([datum], 'cross_entropy');
  m.optimStep(testAdam(0.05));
  const dir = join(root, name);
  await m.saveState(join(dir, 'state'));
  await m.exportPeftAdapter(join(dir, 'adapter'));
  return { base, m, dir };
}

/** Writes 16 bytes of 0xFF into the tensor data of a safetensors file (past its header). */
function corrupt(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, Buffer.alloc(16, 0xff), 0, 16, statSync(file).size - 64);
  } finally {
    closeSync(fd);
  }
}

async function failure(p: Promise<unknown> | (() => unknown)): Promise<Error> {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

describe('checkpoint integrity (regression: 16 bytes of 0xFF loaded silently and the next loss was NaN)', () => {
  it('writeSafetensors returns the SHA-256 of the file it wrote', () => {
    const file = join(root, 'x.safetensors');
    const sha = writeSafetensors(file, [{ name: 't', shape: [3], data: new Float32Array([1, 2, 3]) }]);
    expect(sha).toBe(sha256File(file));
    expect(sha).toMatch(/^[0-9a-f]{64}$/);
  });

  it('a corrupted training state is refused, naming the file, and the model is left as it was', async () => {
    const { base, dir } = await saved('corrupt-state');
    const file = join(dir, 'state', 'lora_state.safetensors');
    corrupt(file);
    const into = createLoraModel(base, lora);
    const before = Float32Array.from(into.lora.params);
    const err = await failure(into.loadState(join(dir, 'state')));
    expect(err).toBeInstanceOf(CheckpointError);
    expect(err.message).toContain(`${file} is corrupt: its SHA-256 does not match`);
    expect(into.lora.params).toEqual(before);
  });

  it('without a recorded checksum (older checkpoints) a non-finite value is still refused', async () => {
    const { base, dir } = await saved('corrupt-old');
    const metaFile = join(dir, 'state', 'state.json');
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as Record<string, unknown>;
    delete meta.sha256;
    writeFileSync(metaFile, JSON.stringify(meta));
    corrupt(join(dir, 'state', 'lora_state.safetensors'));
    const err = await failure(createLoraModel(base, lora).loadState(join(dir, 'state')));
    expect(err).toBeInstanceOf(CheckpointError);
    expect(err.message).toMatch(/lora_state\.safetensors is corrupt: tensor adam_v holds a non-finite value \(NaN\)/);
  });

  it('a corrupted adapter (sampler weights) is refused, naming the file', async () => {
    const { base, dir } = await saved('corrupt-adapter');
    const file = join(dir, 'adapter', 'adapter_model.safetensors');
    corrupt(file);
    const err = await failure(() => loadSampler(base, join(dir, 'adapter')));
    expect(err).toBeInstanceOf(CheckpointError);
    expect(err.message).toContain(`${file} is corrupt`);
  });

  it('an intact checkpoint still loads bit-exactly', async () => {
    const { base, m, dir } = await saved('intact');
    const into = createLoraModel(base, lora);
    await into.loadState(join(dir, 'state'));
    expect(into.lora.params).toEqual(m.lora.params);
    expect(() => loadSampler(base, join(dir, 'adapter'))).not.toThrow();
  });
});

describe('the recorded base model is checked on load (regression: a qwen3 state loaded into a llama model)', () => {
  it('a training state saved on another base model is refused, naming both', async () => {
    const { dir } = await saved('other-base', 'base-one');
    const other = randomModel(tinyConfig('qwen3', true), 1, 'base-two', null);
    const err = await failure(createLoraModel(other, lora).loadState(join(dir, 'state')));
    expect(err).toBeInstanceOf(CheckpointError);
    expect(err.message).toMatch(/state\.json: this state was saved for base model "base-one", not "base-two"/);
  });

  it('sampler weights saved on another base model are refused', async () => {
    const { dir } = await saved('other-base-adapter', 'base-one');
    const other = randomModel(tinyConfig('qwen3', true), 1, 'base-two', null);
    const err = await failure(() => loadSampler(other, join(dir, 'adapter')));
    expect(err).toBeInstanceOf(CheckpointError);
    expect(err.message).toMatch(
      /cookbook_lora\.json: these weights were saved for base model "base-one", not "base-two"/,
    );
  });
});
