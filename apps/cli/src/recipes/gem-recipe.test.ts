import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configFields, toSnakeCase } from '@cookbook/core';
import { GemTrainConfigSchema } from '@cookbook/gem';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import { recipes } from '../recipes.js';
import { expectDerivedFields, fieldsOf } from './__fixtures__/library-fields.js';
import { learningService } from './__tests__/learning-fixture.js';
import { gem } from './gem.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('gem recipe: config', () => {
  it('is registered; every field has a description and a default; --help lists them', async () => {
    expect(recipes.map((r) => r.name)).toContain('gem');
    const fields = configFields(gem.schema, { keyStyle: 'snake_case' });
    for (const f of fields) {
      expect(f.description, f.path).not.toBe('');
      expect(f.required, f.path).toBe(false);
      expect(f.path).toBe(toSnakeCase(f.path));
    }
    const c = capture();
    expect(await runCli(['gem', '--help'], [gem], c.io)).toBe(0);
    const help = c.out.join('\n');
    for (const f of fields) expect(help).toContain(f.path);
    expect(help).toContain('local/qwen3-tiny, a tiny stand-in');
  });

  it('derives its fields from the library schema (same descriptions, types and defaults; overrides listed)', () => {
    const library = fieldsOf(GemTrainConfigSchema);
    const compared = expectDerivedFields(gem.schema, library, {
      anyDefault: ['log_path'],
      // Offline: the tiny model on short games, with its game template and a larger step.
      defaults: {
        model_name: 'local/qwen3-tiny',
        batch_size: 8,
        learning_rate: 5e-4,
        max_tokens: 8,
        max_steps: 30,
        num_env: 8,
        template: 'qwen3_game',
        load_checkpoint_optimizer: true,
      },
    });
    expect(compared.length).toBe(library.size);
    for (const key of ['env_id', 'num_env', 'env_wrappers', 'template', 'gamma', 'use_rebn', 'batch_size']) {
      expect(library.has(key), key).toBe(true);
    }
  });

  it('refuses bad values by name', async () => {
    const c = capture();
    expect(await runCli(['gem', 'template=chatml'], [gem], c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(/template=chatml/);
  });
});

describe('gem recipe on the embedded service', () => {
  // One embedded service for the file, its warm-start cache beside its data (under logPath('service')).
  const service = learningService('gem-recipe');

  it('warm-starts on player games, trains, and reports the return curve', async () => {
    const logPath = service.logPath('run');
    const c = capture();
    const code = await runCli(
      [
        'gem',
        `log_path=${logPath}`,
        `base_url=${service.baseURL()}`,
        'max_steps=3',
        'batch_size=3',
        'num_env=2',
        'lora_rank=4',
        'warm_start_episodes=2',
        'warm_start_steps=2',
        'warm_start_batch_size=2',
        'behavior_if_log_dir_exists=raise',
      ],
      [gem],
      c.io,
    );
    expect(code, c.err.join('\n')).toBe(0);
    expect(c.err.join('\n')).toMatch(/warm start: \d+ turns from 2 player episodes/);
    expect(
      readdirSync(join(service.logPath('service'), 'warm-start')).some((f) => f.startsWith('gem-game_GuessTheNumber')),
    ).toBe(true);
    const out = c.out.join('\n');
    expect(out).toMatch(/step {4}2 {2}return -?\d\.\d{3}/);
    expect(out).toMatch(/sampler\/episode_return: first third -?\d\.\d{3} → last third -?\d\.\d{3} over 3 steps/);
    const rows = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8').trim().split('\n');
    expect(rows).toHaveLength(3);
    const config = JSON.parse(readFileSync(join(logPath, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(config.load_checkpoint_path).toMatch(/^tinker:\/\//);
    expect(config.warm_start).toBe('auto');
    expect(existsSync(join(logPath, 'checkpoints.jsonl'))).toBe(true);
  });

  it('names an unknown env id with the closest one (exit code 2)', async () => {
    const c = capture();
    const code = await runCli(
      ['gem', `log_path=${service.logPath('bad')}`, `base_url=${service.baseURL()}`, 'env_id=game:Wordle-v0-eazy'],
      [gem],
      c.io,
    );
    expect(code).toBe(2);
    expect(c.err.join('\n')).toMatch(/unknown env id "game:Wordle-v0-eazy"; did you mean "game:Wordle-v0-easy"/);
  });
});
