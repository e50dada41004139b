import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFields, resolveLearningRate, toSnakeCase } from '@cookbook/core';
import { startLocalTinker } from '@cookbook/local-tinker';
import { RLTrainConfigSchema } from '@cookbook/rl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import type { Recipe } from '../recipe.js';
import { recipes } from '../recipes.js';
import { mathRl } from './math-rl.js';
import { multiplayer } from './multiplayer.js';
import { rlBasic } from './rl-basic.js';
import { rlLoop } from './rl-loop.js';
import { usesWarmStart, type WarmStartConfig } from './rl-warm-start.js';

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
      expect(c.out.join('\n')).toMatch(/tiny stand-in[\s\S]*Hugging Face checkpoint folder[\s\S]*TINKER_API_KEY/);
    });
  }

  it('rejects bad values with exit code 2', async () => {
    const c = capture();
    expect(await runCli(['math_rl', 'env=algebra'], ours, c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(/env=algebra: expected one of "arithmetic", "math", "gsm8k"/);
    expect(await runCli(['multiplayer', 'env=chess'], ours, c.io)).toBe(2);
  });

  it('warm start: auto for the built-in models only, never over a checkpoint; on refuses what it cannot do', () => {
    const base: WarmStartConfig = {
      warmStart: 'auto',
      warmStartSteps: 1,
      warmStartExamples: 1,
      warmStartBatchSize: 1,
      warmStartLearningRate: 1e-2,
      modelName: 'local/qwen3-tiny',
      loraRank: 4,
      seed: 0,
      loadCheckpointPath: null,
    };
    expect(usesWarmStart(base)).toBe(true);
    expect(usesWarmStart({ ...base, modelName: 'Qwen/Qwen3-8B' })).toBe(false);
    expect(usesWarmStart({ ...base, loadCheckpointPath: 'tinker://run/weights/x' })).toBe(false);
    expect(usesWarmStart(base, false)).toBe(false);
    expect(usesWarmStart({ ...base, warmStart: 'off' })).toBe(false);
    expect(usesWarmStart({ ...base, warmStart: 'on', modelName: 'Qwen/Qwen3-8B' })).toBe(true);
    expect(() => usesWarmStart({ ...base, warmStart: 'on', loadCheckpointPath: 'tinker://run/weights/x' })).toThrow(
      /load_checkpoint_path/,
    );
    expect(() => usesWarmStart({ ...base, warmStart: 'on' }, false)).toThrow(/no demonstrations/);
  });

  it('learning-rate defaults', () => {
    expect(resolveLearningRate('local/qwen3-tiny', null, 'rl')).toBe(1e-3);
    expect(resolveLearningRate('local/qwen3-tiny', 0.5, 'rl')).toBe(0.5);
    expect(resolveLearningRate('meta-llama/Llama-3.1-8B', null, 'rl')).toBeCloseTo(
      resolveLearningRate('meta-llama/Llama-3.1-8B', null, 'supervised') / 10,
      12,
    );
  });

  // Recipe defaults that differ from the library's, on purpose (a tiny offline model; short runs).
  const OFFLINE_DEFAULTS: Record<string, unknown> = {
    log_path: undefined,
    max_tokens: 3,
    max_steps: 30,
    eval_every: 0,
    save_every: 0,
    num_groups_to_log: 2,
  };
  for (const recipe of ours) {
    it(`${recipe.name}: the CLI schema is the library schema's fields, in snake_case, with the library's descriptions`, () => {
      const library = new Map(configFields(RLTrainConfigSchema, { keyStyle: 'snake_case' }).map((f) => [f.path, f]));
      const cli = configFields(recipe.schema, { keyStyle: 'snake_case' });
      let shared = 0;
      for (const f of cli) {
        expect(f.path).toBe(toSnakeCase(f.path));
        const lib = library.get(f.path);
        if (lib === undefined) continue;
        shared++;
        expect(f.description, f.path).toBe(lib.description);
        expect(f.type, f.path).toBe(lib.type);
        // The games' episodes are several turns long (fewer steps); a move is `[5]` and the stop token; RL continues
        // the warm start's optimizer.
        const games: Record<string, unknown> = { max_steps: 20, max_tokens: 4, load_checkpoint_optimizer: true };
        if (recipe.name === 'multiplayer' && f.path in games) {
          expect(f.defaultValue, f.path).toBe(games[f.path]);
        } else if (f.path in OFFLINE_DEFAULTS) {
          if (f.path !== 'log_path') expect(f.defaultValue, f.path).toBe(OFFLINE_DEFAULTS[f.path]);
        } else {
          expect(f.defaultValue, f.path).toEqual(lib.defaultValue);
        }
      }
      expect(shared).toBeGreaterThanOrEqual(9);
    });
  }
});

describe('RL recipes on the embedded service', () => {
  let server: { baseURL: string; close(): Promise<void> };
  const root = mkdtempSync(join(tmpdir(), 'rl-recipes-'));
  beforeAll(async () => {
    server = await startLocalTinker({ port: 0, root: join(root, 'service') });
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
      'warm_start=off',
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

  it('rl_loop run twice into one log path follows the log-dir policy', async () => {
    const logPath = join(root, 'rl-loop-twice');
    const args = (behavior: string) => [
      'rl_loop',
      `log_path=${logPath}`,
      `base_url=${server.baseURL}`,
      'max_steps=1',
      'batch_size=1',
      'group_size=2',
      'max_tokens=2',
      'lora_rank=4',
      'warm_start=off',
      `behavior_if_log_dir_exists=${behavior}`,
    ];
    expect(await runCli(args('raise'), ours, capture().io)).toBe(0);
    const refused = capture();
    expect(await runCli(args('raise'), ours, refused.io)).toBe(2);
    expect(refused.err.join('\n')).toMatch(
      /^cookbook: log dir .* already exists; pass behavior_if_log_dir_exists=resume/,
    );
    expect(await runCli(args('delete'), ours, capture().io)).toBe(0);
    const rows = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8').trim().split('\n');
    expect(rows).toHaveLength(1);
    const c = capture();
    expect(await runCli(args('resume'), ours, c.io)).toBe(0);
    expect(c.err.join('\n')).toContain('already finished');
    expect(readFileSync(join(logPath, 'metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('rl_loop says once, with a count, when steps have no training signal', async () => {
    const logPath = join(root, 'rl-loop-no-signal');
    const c = capture();
    const args = ['max_steps=2', 'batch_size=1', 'group_size=1', 'max_tokens=1', 'lora_rank=4', 'warm_start=off'];
    expect(await runCli(['rl_loop', `log_path=${logPath}`, `base_url=${server.baseURL}`, ...args], ours, c.io)).toBe(0);
    const err = c.err.join('\n');
    // A group of one rollout has nothing to compare its reward with: every advantage is 0, every group is skipped.
    expect(err.match(/has no training signal/g)).toHaveLength(1);
    expect(err).toContain('2 of 2 steps had no training signal');
    const rows = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8').trim().split('\n');
    expect(rows.map((r) => (JSON.parse(r) as Record<string, number>)['env/all/frac_groups_with_signal'])).toEqual([
      0, 0,
    ]);
  });

  const small = ['max_steps=2', 'groups_per_batch=2', 'group_size=2', 'max_tokens=3', 'lora_rank=4', 'warm_start=off'];
  const cases: [string, string[]][] = [
    ['rl_basic', []],
    ['math_rl', ['env=math', 'num_test_problems=2', 'eval_every=1']],
    ['math_rl', ['max_steps_off_policy=1']],
    ['math_rl', ['num_minibatches=2']],
    ['multiplayer', ['env=guess_number', 'max_turns=2']],
    ['multiplayer', ['env=tic_tac_toe']],
    ['rl_loop', []],
  ];
  for (const name of ['rl_basic', 'rl_loop', 'multiplayer']) {
    it(`${name}: the same seed repeats a run exactly (every metric but the timings)`, async () => {
      const args =
        name === 'rl_loop'
          ? ['max_steps=2', 'batch_size=2', 'group_size=4', 'max_tokens=3', 'lora_rank=4', 'warm_start=off']
          : [
              ...small.filter((a) => !a.startsWith('group_size=')),
              'group_size=4',
              ...(name === 'multiplayer' ? ['env=tic_tac_toe'] : []),
            ];
      const untimedRows = async (dir: string) => {
        const c = capture();
        const logPath = join(root, `repeat-${name}-${dir}`);
        const code = await runCli(
          [name, `log_path=${logPath}`, `base_url=${server.baseURL}`, 'seed=3', ...args],
          ours,
          c.io,
        );
        expect(code, c.err.join('\n')).toBe(0);
        return readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => Object.entries(JSON.parse(l) as object).filter(([k]) => !k.startsWith('time/')));
      };
      const a = await untimedRows('a');
      expect(a).toHaveLength(2);
      expect(await untimedRows('b')).toEqual(a);
    });
  }

  it('multiplayer max_episode_turns cuts every game at the limit and says so in the summaries', async () => {
    const logPath = join(root, 'multiplayer-limited');
    const c = capture();
    const args = [...small, 'env=guess_number', 'max_turns=4', 'max_episode_turns=1'];
    expect(
      await runCli(['multiplayer', `log_path=${logPath}`, `base_url=${server.baseURL}`, ...args], ours, c.io),
    ).toBe(0);
    const summaries = readFileSync(join(logPath, 'iteration_000000', 'train_rollout_summaries.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { total_reward: number; steps: { logs: Record<string, string> }[] });
    expect(summaries.length).toBeGreaterThan(0);
    for (const s of summaries) {
      expect(s.steps).toHaveLength(1);
      // A first guess that is not the secret would go on (max_turns=4): the limit cut it.
      if (s.total_reward <= 0) expect(s.steps[0]!.logs.truncation).toBe('max_turns');
    }
    const row = JSON.parse(readFileSync(join(logPath, 'metrics.jsonl'), 'utf8').split('\n')[0]!) as Record<
      string,
      number
    >;
    expect(row['env/all/truncated/max_turns']).toBeGreaterThan(0);
    const hparams = JSON.parse(readFileSync(join(logPath, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(hparams.max_episode_turns).toBe(1);
  });

  for (const [name, args] of cases) {
    it(`${name} ${args.join(' ')} runs and writes metrics`, async () => {
      const logPath = join(root, `${name}-${args.join('-').replace(/\W+/g, '_')}`);
      const c = capture();
      const extra =
        name === 'rl_loop'
          ? ['max_steps=2', 'batch_size=2', 'group_size=2', 'max_tokens=3', 'lora_rank=4', 'warm_start=off']
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
      for (const row of rows) expect(JSON.parse(row)).toHaveProperty(['env/all/frac_groups_with_signal']);
      expect(c.out.join('\n')).toMatch(/reward/);
      if (name !== 'rl_loop') expect(existsSync(join(logPath, 'checkpoints.jsonl'))).toBe(true);
      if (args.includes('eval_every=1')) expect(JSON.parse(rows[0]!)).toHaveProperty(['test/env/all/reward/total']);
      if (name === 'multiplayer') {
        // The settings left null are recorded resolved: the offline learning rate, the env's groups per step and
        // warm-start length; max_turns is guess_number's and twenty_questions' setting, so tic-tac-toe leaves it null.
        const hparams = JSON.parse(readFileSync(join(logPath, 'config.json'), 'utf8')) as Record<string, unknown>;
        expect(hparams.learning_rate).toBe(1e-3);
        if (args.includes('env=tic_tac_toe')) {
          expect(hparams.groups_per_batch).toBe(2);
          expect(hparams.max_turns).toBeNull();
        }
        expect(hparams.warm_start_steps).toBe(args.includes('env=guess_number') ? 200 : 100);
      }
    });
  }
});
