import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFields } from '@cookbook/core';
import { startLocalTinker } from '@cookbook/local-tinker';
import { DpoTrainConfigSchema } from '@cookbook/preference';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import type { Recipe } from '../recipe.js';
import { recipes } from '../recipes.js';
import { dpo } from './dpo.js';
import { rlhfPipeline } from './rlhf-pipeline.js';
import { shorter } from './shorter.js';

const ours: Recipe[] = [dpo, shorter, rlhfPipeline];

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('preference recipes', () => {
  it('are registered', () => {
    const names = recipes.map((r) => r.name);
    for (const name of ['dpo', 'shorter', 'rlhf_pipeline']) expect(names).toContain(name);
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
      expect(help).toContain('model_name');
    });
  }

  it('dpo keeps the library descriptions and documents the offline defaults', () => {
    const library = new Map(configFields(DpoTrainConfigSchema, { keyStyle: 'snake_case' }).map((f) => [f.path, f]));
    const fields = configFields(dpo.schema, { keyStyle: 'snake_case' });
    for (const f of fields) {
      const lib = library.get(f.path);
      if (lib !== undefined) expect(f.description, f.path).toBe(lib.description);
    }
    const byName = new Map(fields.map((f) => [f.path, f]));
    expect(library.get('learning_rate')!.defaultValue).toBe(1e-5);
    expect(library.get('dpo_beta')!.defaultValue).toBe(0.1);
    expect(byName.get('dataset')!.defaultValue).toBe('format');
  });

  it('dpo names the file and line of a bad comparison and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpo-cli-'));
    const data = join(dir, 'bad.jsonl');
    writeFileSync(
      data,
      '{"comparison": {"prompt_conversation": [], "completion_A": [], "completion_B": []}, "label": "A"}\n',
    );
    const c = capture();
    const code = await runCli(
      ['dpo', `dataset=${data}`, `log_path=${join(dir, 'run')}`, 'base_url=http://127.0.0.1:9'],
      ours,
      c.io,
    );
    expect(code).toBe(1);
    expect(existsSync(join(dir, 'run'))).toBe(false);
    expect(c.err.join('\n')).toMatch(
      /bad\.jsonl:1, field "comparison\.prompt_conversation": the conversation has no messages/,
    );
  });

  it('dpo refuses an unknown data set name', async () => {
    const c = capture();
    expect(await runCli(['dpo', 'dataset=nope'], ours, c.io)).toBe(2);
    expect(c.err.join('\n')).toMatch(/dataset=nope: not a known data set \(format, hhh, helpsteer3, ultrafeedback\)/);
  });

  it('rlhf_pipeline with run_sft=false names the missing stage', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rlhf-cli-'));
    const c = capture();
    const code = await runCli(
      ['rlhf_pipeline', 'run_sft=false', `log_path=${dir}`, 'base_url=http://127.0.0.1:9'],
      ours,
      c.io,
    );
    expect(code).toBe(2);
    expect(c.err.join('\n')).toMatch(/run_sft=false but .*sft holds no finished SFT stage/);
  });

  it('shorter runs pairwise-preference RL on the embedded service and logs reply lengths', async () => {
    const root = mkdtempSync(join(tmpdir(), 'shorter-cli-'));
    const server = await startLocalTinker({ port: 0, root: join(root, 'service') });
    try {
      const logPath = join(root, 'run');
      const c = capture();
      const args = ['warm_start_steps=0', 'max_steps=2', 'group_size=2', 'groups_per_batch=2', 'max_tokens=4'];
      const code = await runCli(['shorter', `log_path=${logPath}`, `base_url=${server.baseURL}`, ...args], ours, c.io);
      expect(code, c.err.join('\n')).toBe(0);
      const rows = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8').trim().split('\n');
      expect(rows).toHaveLength(2);
      const m = JSON.parse(rows[0]!) as Record<string, number>;
      expect(m['env/all/reply_chars']).toBeGreaterThanOrEqual(0);
      // Tournament rewards sum to zero within each group.
      expect(Math.abs(m['env/all/reward/total']!)).toBeLessThan(1e-9);
    } finally {
      await server.close();
    }
  });
});
