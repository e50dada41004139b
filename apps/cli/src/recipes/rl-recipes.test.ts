import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFields } from '@cookbook/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import type { Recipe } from '../recipe.js';
import { recipes } from '../recipes.js';
import { mathRl } from './math-rl.js';
import { multiplayer } from './multiplayer.js';
import { rlBasic } from './rl-basic.js';
import { resolveRlLearningRate } from './rl-common.js';
import { rlLoop } from './rl-loop.js';

const ours: Recipe[] = [rlBasic, rlLoop, mathRl, multiplayer];

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('RL recipes: config', () => {
  it('are registered', () => {
    const names = recipes.map((r) => r.name);
    for (const name of ['rl_basic', 'rl_loop', 'math_rl', 'multiplayer']) expect(names).toContain(name);
  });

  for (const recipe of ours) {
    it(`${recipe.name}: every field has a description and a default`, async () => {
      for (const f of configFields(recipe.schema)) {
        expect(f.description, f.path).not.toBe('');
        expect(f.required, f.path).toBe(false);
      }
      const c = capture();
      expect(await runCli([recipe.name, '--help'], ours, c.io)).toBe(0);
      expect(c.out.join('\n')).toContain('model_name');
    });
  }

  it('rejects bad values with exit code 2', async () => {
    const c = capture();
    expect(await runCli(['math_rl', 'env=algebra'], ours, c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(/env=algebra: expected one of "arithmetic", "math", "gsm8k"/);
    expect(await runCli(['multiplayer', 'env=chess'], ours, c.io)).toBe(2);
  });

  it('learning-rate defaults', () => {
    expect(resolveRlLearningRate('local/qwen3-tiny', null)).toBe(3e-3);
    expect(resolveRlLearningRate('local/qwen3-tiny', 0.5)).toBe(0.5);
    expect(resolveRlLearningRate('meta-llama/Llama-3.1-8B', null)).toBeGreaterThan(0);
  });
});

type LocalTinkerModule = {
  startLocalTinker(o: { port?: number; root?: string }): Promise<{ baseURL: string; close(): Promise<void> }>;
};
const localTinker: LocalTinkerModule | undefined = await import('@cookbook/local-tinker' as string).then(
  (m: LocalTinkerModule) => m,
  () => undefined,
);

describe.skipIf(localTinker === undefined)('RL recipes on the embedded service', () => {
  let server: { baseURL: string; close(): Promise<void> };
  const root = mkdtempSync(join(tmpdir(), 'rl-recipes-'));
  beforeAll(async () => {
    server = await localTinker!.startLocalTinker({ port: 0, root: join(root, 'service') });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('math_rl saves every step and resumes on the real service', async () => {
    const logPath = join(root, 'resume');
    const args = (steps: number, behavior: string) => [
      'math_rl',
      `log_path=${logPath}`,
      `base_url=${server.baseURL}`,
      `max_steps=${steps}`,
      'groups_per_batch=2',
      'group_size=2',
      'max_tokens=2',
      'lora_rank=4',
      'save_every=1',
      `behavior_if_log_dir_exists=${behavior}`,
    ];
    expect(await runCli(args(2, 'raise'), ours, capture().io)).toBe(0);
    const c = capture();
    expect(await runCli(args(3, 'resume'), ours, c.io)).toBe(0);
    const steps = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { step: number }).step);
    expect(steps).toEqual([0, 1, 2]);
    const names = readFileSync(join(logPath, 'checkpoints.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { name: string }).name);
    expect(names).toEqual(['000001', 'final', 'final']);
  });

  const small = ['max_steps=2', 'groups_per_batch=2', 'group_size=2', 'max_tokens=3', 'lora_rank=4'];
  const cases: [string, string[]][] = [
    ['rl_basic', []],
    ['math_rl', ['env=math', 'num_test_problems=2', 'eval_every=1']],
    ['math_rl', ['max_steps_off_policy=1']],
    ['math_rl', ['num_minibatches=2']],
    ['multiplayer', ['env=guess_number', 'max_turns=2']],
    ['rl_loop', []],
  ];
  for (const [name, args] of cases) {
    it(`${name} ${args.join(' ')} runs and writes metrics`, async () => {
      const logPath = join(root, `${name}-${args.join('-').replace(/\W+/g, '_')}`);
      const c = capture();
      const extra =
        name === 'rl_loop'
          ? ['max_steps=2', 'batch_size=2', 'group_size=2', 'max_tokens=3', 'lora_rank=4']
          : [...small, 'behavior_if_log_dir_exists=raise'];
      const code = await runCli(
        [name, `log_path=${logPath}`, `base_url=${server.baseURL}`, ...extra, ...args],
        ours,
        c.io,
      );
      expect(code, c.err.join('\n')).toBe(0);
      const rows = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8').trim().split('\n');
      expect(rows).toHaveLength(2);
      expect(JSON.parse(rows[0]!)).toHaveProperty(['env/all/reward/total']);
      expect(c.out.join('\n')).toMatch(/reward/);
      if (name !== 'rl_loop') expect(existsSync(join(logPath, 'checkpoints.jsonl'))).toBe(true);
      if (args.includes('eval_every=1')) expect(JSON.parse(rows[0]!)).toHaveProperty(['test/env/all/reward/total']);
    });
  }
});
