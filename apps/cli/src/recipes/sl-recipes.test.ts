import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFields, resolveLearningRate, toSnakeCase } from '@cookbook/core';
import { startLocalTinker } from '@cookbook/local-tinker';
import { readConversationFile, SupervisedTrainConfigSchema } from '@cookbook/supervised';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import type { Recipe } from '../recipe.js';
import { recipes } from '../recipes.js';
import { EXAMPLE_SENTENCES, promptDistillation } from './prompt-distillation.js';
import { slBasic } from './sl-basic.js';
import { EXAMPLE_CONVERSATIONS } from './sl-common.js';
import { slLoop } from './sl-loop.js';

const ours: Recipe[] = [slBasic, slLoop, promptDistillation];

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('supervised recipes', () => {
  it('are registered', () => {
    const names = recipes.map((r) => r.name);
    for (const name of ['sl_basic', 'sl_loop', 'prompt_distillation']) expect(names).toContain(name);
  });

  for (const recipe of ours) {
    it(`${recipe.name}: every field has a description and a default, and --help lists them`, async () => {
      for (const f of configFields(recipe.schema)) {
        expect(f.description, f.path).not.toBe('');
        expect(f.required, f.path).toBe(false);
      }
      const c = capture();
      expect(await runCli([recipe.name, '--help'], ours, c.io)).toBe(0);
      const help = c.out.join('\n');
      expect(help).toMatch(/log_path\s+string\s+\(default: "\.cookbook-runs\//);
      expect(help).toMatch(
        /behavior_if_log_dir_exists\s+"ask" \| "delete" \| "resume" \| "raise"\s+\(default: "ask"\)/,
      );
      expect(help).toContain('model_name');
    });
  }

  // Recipe defaults that differ from the library's, on purpose (short offline runs).
  const RECIPE_DEFAULTS: Record<string, Record<string, unknown>> = {
    sl_basic: { max_steps: 40, infrequent_eval_every: 20 },
    sl_loop: { max_steps: 30, save_every: 10 },
    prompt_distillation: { num_epochs: 4, eval_every: 5, infrequent_eval_every: 0 },
  };
  for (const recipe of ours) {
    it(`${recipe.name}: the CLI schema is the library schema's fields, in snake_case, with the library's descriptions`, () => {
      const library = new Map(
        configFields(SupervisedTrainConfigSchema, { keyStyle: 'snake_case' }).map((f) => [f.path, f]),
      );
      const overrides = RECIPE_DEFAULTS[recipe.name] ?? {};
      let shared = 0;
      for (const f of configFields(recipe.schema, { keyStyle: 'snake_case' })) {
        expect(f.path).toBe(toSnakeCase(f.path));
        const lib = library.get(f.path);
        if (lib === undefined || f.path === 'log_path') continue;
        shared++;
        expect(f.description, f.path).toBe(lib.description);
        expect(f.type, f.path).toBe(lib.type);
        expect(f.defaultValue, f.path).toEqual(f.path in overrides ? overrides[f.path] : lib.defaultValue);
      }
      expect(shared).toBeGreaterThanOrEqual(9);
    });
  }

  const badArgs: [string[], RegExp][] = [
    [['batch_sz=2'], /unknown config key "batch_sz"; did you mean "batch_size"/],
    [['batch_size=abc'], /batch_size=abc: expected a number/],
    [['batch_size=0'], /batch_size/],
    [['behavior_if_log_dir_exists=maybe'], /expected one of "ask", "delete", "resume", "raise"/],
    [['train_on_what=everything'], /train_on_what=everything: expected one of/],
    [['lr_schedule=cosin'], /did you mean "cosine"/],
    [['max_steps'], /not of the form key=value/],
  ];
  for (const [args, pattern] of badArgs) {
    it(`sl_basic rejects ${args.join(' ')} with a config error and exit code 2`, async () => {
      const c = capture();
      expect(await runCli(['sl_basic', ...args], ours, c.io)).toBe(2);
      expect(c.err.join('\n')).toMatch(pattern);
      expect(c.err.join('\n')).toContain('cookbook sl_basic --help');
    });
  }

  it('sl_basic reports a malformed dataset with file and line and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sl-cli-'));
    const data = join(dir, 'bad.jsonl');
    writeFileSync(
      data,
      '{"messages": [{"role": "user", "content": "hi"}]}\n{"messages": [{"role": "bot", "content": "x"}]}\n',
    );
    const logPath = join(dir, 'run');
    const c = capture();
    const run = runCli(
      ['sl_basic', `dataset=${data}`, `log_path=${logPath}`, 'base_url=http://127.0.0.1:9'],
      ours,
      c.io,
    );
    expect(await run).toBe(1);
    expect(c.err.join('\n')).toMatch(/^cookbook: .*bad\.jsonl:2.*messages\[0\]\.role/m);
    expect(existsSync(logPath)).toBe(false);
  });

  it('sl_basic refuses a dataset path that does not exist', async () => {
    const c = capture();
    expect(await runCli(['sl_basic', 'dataset=/no/such/file.jsonl'], ours, c.io)).toBe(2);
    expect(c.err.join('\n')).toContain('cookbook: dataset=/no/such/file.jsonl: no such file /no/such/file.jsonl');
  });

  it('ships a valid example conversation file and sentence list', () => {
    const rows = readConversationFile(EXAMPLE_CONVERSATIONS);
    expect(rows.length).toBeGreaterThanOrEqual(50);
    expect(rows.length).toBeLessThanOrEqual(200);
    expect(existsSync(EXAMPLE_SENTENCES)).toBe(true);
  });

  it('picks a learning rate per model', () => {
    expect(resolveLearningRate('local/qwen3-tiny', null, 'supervised')).toBe(1e-2);
    expect(resolveLearningRate('Qwen/Qwen3-8B', null, 'supervised')).toBeCloseTo(4.73e-4, 5);
    expect(resolveLearningRate('Qwen/Qwen3-8B', 3e-4, 'supervised')).toBe(3e-4);
    expect(() => resolveLearningRate('acme/unknown', null, 'supervised')).toThrow(/learning_rate/);
  });
});

describe('prompt_distillation on the embedded service', () => {
  let server: { baseURL: string; close(): Promise<void> };
  const root = mkdtempSync(join(tmpdir(), 'prompt-distillation-'));
  beforeAll(async () => {
    server = await startLocalTinker({ port: 0, root: join(root, 'service') });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('labels once, trains in the same run, reuses the labels on resume and relabels after delete', async () => {
    const logPath = join(root, 'run');
    const args = (steps: number, behavior: string) => [
      'prompt_distillation',
      `log_path=${logPath}`,
      `base_url=${server.baseURL}`,
      `max_steps=${steps}`,
      'batch_size=4',
      'lora_rank=4',
      'eval_every=0',
      'save_every=1',
      `behavior_if_log_dir_exists=${behavior}`,
    ];
    const first = capture();
    expect(await runCli(args(1, 'raise'), ours, first.io)).toBe(0);
    expect(first.err.join('\n')).toMatch(/wrote \d+ teacher-labelled conversations/);
    // One config.json for the whole run: the recipe's fields and the teacher prompt.
    const config = JSON.parse(readFileSync(join(logPath, 'config.json'), 'utf8')) as Record<string, unknown>;
    expect(config).toMatchObject({ questions_file: 'example', max_steps: 1 });
    expect(config.teacher_prompt).toContain('language identification');
    const labels = readFileSync(join(logPath, 'teacher-data.jsonl'), 'utf8');

    const resumed = capture();
    expect(await runCli(args(2, 'resume'), ours, resumed.io)).toBe(0);
    expect(resumed.err.join('\n')).toContain('reusing teacher data');
    const steps = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { step: number }).step);
    expect(steps).toEqual([0, 1]);
    expect(readFileSync(join(logPath, 'teacher-data.jsonl'), 'utf8')).toBe(labels);

    const again = capture();
    expect(await runCli(args(1, 'delete'), ours, again.io)).toBe(0);
    expect(again.err.join('\n')).toMatch(/wrote \d+ teacher-labelled conversations/);
    expect(readFileSync(join(logPath, 'metrics.jsonl'), 'utf8').trim().split('\n')).toHaveLength(1);
  });
});
