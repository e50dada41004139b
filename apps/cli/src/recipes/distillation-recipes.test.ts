import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFields } from '@cookbook/core';
import { OffPolicyDistillationConfigSchema, OnPolicyDistillationConfigSchema } from '@cookbook/distillation';
import { startLocalTinker } from '@cookbook/local-tinker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import type { Recipe } from '../recipe.js';
import { recipes } from '../recipes.js';
import { expectDerivedFields, fieldsOf } from './__fixtures__/library-fields.js';
import { offPolicyDistillation } from './off-policy-distillation.js';
import { onPolicyDistillation } from './on-policy-distillation.js';

const ours: Recipe[] = [onPolicyDistillation, offPolicyDistillation];

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

function rows(logPath: string): Record<string, number>[] {
  return readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, number>);
}

describe('distillation recipes: config', () => {
  it('are registered', () => {
    const names = recipes.map((r) => r.name);
    expect(names).toContain('on_policy_distillation');
    expect(names).toContain('off_policy_distillation');
  });

  const libraries = [OnPolicyDistillationConfigSchema, OffPolicyDistillationConfigSchema];
  // Recipe defaults that differ from the library's, on purpose: short offline runs on the tiny model.
  const OFFLINE_DEFAULTS: Record<string, Record<string, unknown>> = {
    on_policy_distillation: {
      save_every: 0,
      max_tokens: 12,
      lora_rank: 16,
      eval_every: 0,
      num_groups_to_log: 2,
      max_steps: 10,
    },
    off_policy_distillation: {
      save_every: 0,
      lora_rank: 16,
      learning_rate: 3e-3,
      num_epochs: 2,
      eval_every: 6,
      // The tiny teacher spreads its mass thinly: the service maximum K.
      n_teacher_targets: 64,
    },
  };
  ours.forEach((recipe, i) => {
    it(`${recipe.name}: every field is described and defaulted; the library's fields keep their descriptions`, async () => {
      for (const f of configFields(recipe.schema, { keyStyle: 'snake_case' })) {
        expect(f.description, f.path).not.toBe('');
        expect(f.required, f.path).toBe(false);
      }
      const c = capture();
      expect(await runCli([recipe.name, '--help'], ours, c.io)).toBe(0);
      for (const key of ['teacher_model', 'teacher_checkpoint', 'teacher_sft_steps'])
        expect(c.out.join('\n')).toContain(key);
    });

    it(`${recipe.name}: the library's fields keep their description, type and default (overrides listed)`, () => {
      const compared = expectDerivedFields(recipe.schema, fieldsOf(libraries[i]!), {
        anyDefault: ['log_path'],
        defaults: OFFLINE_DEFAULTS[recipe.name],
      });
      expect(compared.length).toBeGreaterThanOrEqual(15);
    });
  });
});

describe('distillation recipes on the embedded service', () => {
  let server: { baseURL: string; close(): Promise<void> };
  const root = mkdtempSync(join(tmpdir(), 'distillation-recipes-'));
  beforeAll(async () => {
    server = await startLocalTinker({ port: 0, root: join(root, 'service') });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('on_policy_distillation with a named teacher logs teacher_kl', async () => {
    const logPath = join(root, 'on');
    const c = capture();
    const args = [
      'on_policy_distillation',
      `log_path=${logPath}`,
      `base_url=${server.baseURL}`,
      'teacher_model=local/qwen3-tiny',
      'max_steps=1',
      'groups_per_batch=1',
      'group_size=2',
      'max_tokens=3',
      'lora_rank=4',
    ];
    expect(await runCli(args, ours, c.io)).toBe(0);
    expect(rows(logPath)[0]).toHaveProperty(['teacher_kl/dataset_0']);
    expect(c.out.join('\n')).toMatch(/teacher_kl .* → /);
    const config = JSON.parse(readFileSync(join(logPath, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(config.teacher_model).toBe('local/qwen3-tiny');
  });

  it('off_policy_distillation with a named teacher logs the distillation loss and test/nll', async () => {
    const logPath = join(root, 'off');
    const args = [
      'off_policy_distillation',
      `log_path=${logPath}`,
      `base_url=${server.baseURL}`,
      'teacher_model=local/qwen3-tiny',
      'max_steps=1',
      'batch_size=2',
      'test_size=2',
      'lora_rank=4',
      'n_teacher_targets=4',
    ];
    expect(await runCli(args, ours, capture().io)).toBe(0);
    const r = rows(logPath);
    expect(r[0]).toHaveProperty(['train/distill_loss']);
    expect(r.at(-1)).toHaveProperty(['test/nll']);
  });

  it('a teacher with another tokenizer fails with a message naming both models', async () => {
    const c = capture();
    const code = await runCli(
      [
        'on_policy_distillation',
        `log_path=${join(root, 'mismatch')}`,
        `base_url=${server.baseURL}`,
        'teacher_model=local/llama3-tiny',
      ],
      ours,
      c.io,
    );
    expect(code).not.toBe(0);
    expect(c.err.join('\n')).toMatch(
      /teacher local\/llama3-tiny and the student local\/qwen3-tiny must share one tokenizer/,
    );
  });
});
