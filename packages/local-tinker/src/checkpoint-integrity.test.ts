import { closeSync, openSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ceDatum, json, post, result, servicesClosedAfterEach, submitAndWait } from './__tests__/direct.js';
import type { LocalTinkerService } from './service.js';

const service = servicesClosedAfterEach();

function corrupt(file: string): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, Buffer.alloc(16, 0xff), 0, 16, statSync(file).size - 64);
  } finally {
    closeSync(fd);
  }
}

/** A model trained one step and saved (state + sampler weights) as `ckpt`. */
async function trainedAndSaved(s: LocalTinkerService, base?: string) {
  const session = json(await post(s, 'create_session', {})).session_id as string;
  const created = await submitAndWait(s, 'create_model', {
    session_id: session,
    model_seq_id: 0,
    base_model: base ?? 'local/qwen3-tiny',
    lora_config: { rank: 4 },
  });
  const model = created.model_id as string;
  await submitAndWait(s, 'forward_backward', {
    model_id: model,
    forward_backward_input: { data: [ceDatum([5, 6, 7, 8])], loss_fn: 'cross_entropy' },
  });
  await submitAndWait(s, 'optim_step', { model_id: model, adam_params: { learning_rate: 0.01 } });
  const state = (await submitAndWait(s, 'save_weights', { model_id: model, path: 'ckpt' })).path as string;
  const sampler = (await submitAndWait(s, 'save_weights_for_sampler', { model_id: model, path: 'ckpt' }))
    .path as string;
  const dir = (kind: string) => join(s.storage.root, 'runs', encodeURIComponent(model), kind, 'ckpt');
  return { session, model, state, sampler, dir };
}

describe('corrupt checkpoints are refused (regression: load_weights succeeded and the next loss was NaN)', () => {
  it('load_weights of a corrupted state fails as a user error naming the file inside the root, never the root', async () => {
    const s = await service();
    const { session, state, dir } = await trainedAndSaved(s);
    corrupt(join(dir('weights'), 'state', 'lora_state.safetensors'));
    const r = await submitAndWait(s, 'load_weights', { session_id: session, model_seq_id: 1, path: state });
    expect(r.category).toBe('user');
    expect(String(r.error)).toMatch(
      /<service root>\/runs\/.*\/weights\/ckpt\/state\/lora_state\.safetensors is corrupt/,
    );
    expect(String(r.error)).not.toContain(s.storage.root);
  });

  it('a sampler over corrupted sampler weights fails clearly (regression: one token over and over)', async () => {
    const s = await service();
    const { session, sampler, dir } = await trainedAndSaved(s);
    corrupt(join(dir('sampler_weights'), 'adapter', 'adapter_model.safetensors'));
    const created = await post(s, 'create_sampling_session', {
      session_id: session,
      sampling_session_seq_id: 0,
      model_path: sampler,
    });
    const id = json(created).sampling_session_id;
    const sample = await post(s, 'asample', {
      sampling_session_id: id,
      prompt: { chunks: [{ tokens: [1, 2, 3] }] },
      sampling_params: { max_tokens: 4 },
    });
    const r = await result(s, json(sample).request_id);
    expect(r.category).toBe('user');
    expect(String(r.error)).toMatch(/adapter_model\.safetensors is corrupt/);
  });
});

describe('the base model a checkpoint records is checked (regression: a qwen3 state loaded into a llama model)', () => {
  it('load_weights into a model of another base model is a user error naming both', async () => {
    const s = await service();
    const { state } = await trainedAndSaved(s);
    const llama = (
      await submitAndWait(s, 'create_model', {
        session_id: json(await post(s, 'create_session', {})).session_id,
        model_seq_id: 0,
        base_model: 'local/llama3-tiny',
        lora_config: { rank: 4 },
      })
    ).model_id as string;
    const r = await submitAndWait(s, 'load_weights', { model_id: llama, seq_id: 1, path: state });
    expect(r.category).toBe('user');
    expect(String(r.error)).toMatch(/saved for base model "local\/qwen3-tiny", not "local\/llama3-tiny"/);
  });
});
