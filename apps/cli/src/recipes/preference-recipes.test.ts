import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFields } from '@cookbook/core';
import { startLocalTinker } from '@cookbook/local-tinker';
import { DpoTrainConfigSchema } from '@cookbook/preference';
import { RLTrainConfigSchema } from '@cookbook/rl';
import { SupervisedTrainConfigSchema } from '@cookbook/supervised';
import { RunConfigSchema } from '@cookbook/training';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import type { Recipe } from '../recipe.js';
import { recipes } from '../recipes.js';
import { expectDerivedFields, fieldsOf } from './__fixtures__/library-fields.js';
import { dpo } from './dpo.js';
import { rlRecipeSchema } from './rl-common.js';
import { rlhfPipeline } from './rlhf-pipeline.js';
import { shorter } from './shorter.js';
import { slRecipeSchema } from './sl-common.js';

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

  it('dpo keeps the library descriptions, types and defaults, and lists its offline defaults', () => {
    const library = fieldsOf(DpoTrainConfigSchema);
    const compared = expectDerivedFields(dpo.schema, library, {
      anyDefault: ['log_path'],
      // The tiny stand-in needs a large step, a high β, a small rank and short runs (see dpo.ts).
      defaults: {
        save_every: 0,
        learning_rate: 1e-2,
        dpo_beta: 1,
        lora_rank: 8,
        batch_size: 8,
        max_length: 128,
        eval_every: 8,
        max_steps: 8,
      },
    });
    expect(compared.length).toBeGreaterThanOrEqual(20);
    expect(library.get('learning_rate')!.defaultValue).toBe(1e-5);
    expect(library.get('dpo_beta')!.defaultValue).toBe(0.1);
    expect(fieldsOf(dpo.schema).get('dataset')!.defaultValue).toBe('format');
  });

  it('shorter keeps the RL library fields (and the RL recipes’ shared ones), with its offline defaults listed', () => {
    const compared = expectDerivedFields(shorter.schema, fieldsOf(RLTrainConfigSchema), {
      anyDefault: ['log_path'],
      defaults: {
        save_every: 0,
        learning_rate: 3e-3,
        max_tokens: 24,
        lora_rank: 8,
        eval_every: 0,
        num_groups_to_log: 2,
        max_steps: 12,
      },
    });
    expect(compared.length).toBeGreaterThanOrEqual(20);
    // The fields every RL recipe adds (rl-common.ts), with shorter's group shape.
    const shared = new Map([...fieldsOf(rlRecipeSchema)].filter(([k]) => !fieldsOf(RLTrainConfigSchema).has(k)));
    expect(
      expectDerivedFields(shorter.schema, shared, { defaults: { group_size: 4, groups_per_batch: 8 } }).sort(),
    ).toEqual(['group_size', 'groups_per_batch', 'renderer_name', 'seed']);
  });

  it('rlhf_pipeline derives each stage field from its library field, with its offline defaults listed', () => {
    const run = fieldsOf(RunConfigSchema);
    const sft = fieldsOf(SupervisedTrainConfigSchema);
    const slRecipe = fieldsOf(slRecipeSchema);
    const rl = fieldsOf(RLTrainConfigSchema);
    const rlRecipe = fieldsOf(rlRecipeSchema);
    const dpoFields = fieldsOf(dpo.schema);
    // rlhf_pipeline key → the field it derives from (stage-3 RL fields carry an rl_ prefix).
    const library = new Map([
      ...run,
      ['model_name', sft.get('model_name')!],
      ['lora_rank', sft.get('lora_rank')!],
      ['batch_size', slRecipe.get('batch_size')!],
      ['max_length', slRecipe.get('max_length')!],
      ['rl_max_tokens', rl.get('max_tokens')!],
      ['rl_group_size', rlRecipe.get('group_size')!],
      ['rl_groups_per_batch', rlRecipe.get('groups_per_batch')!],
      ['eval_every', rl.get('eval_every')!],
      ...['dataset', 'test_path', 'max_train_rows', 'test_size'].map((k) => [k, dpoFields.get(k)!] as const),
    ]);
    const compared = expectDerivedFields(rlhfPipeline.schema, library, {
      anyDefault: ['log_path'],
      defaults: {
        // A pipeline of stages: rerunning it continues the finished stages.
        behavior_if_log_dir_exists: 'resume',
        lora_rank: 8,
        batch_size: 16,
        max_length: 256,
        rl_max_tokens: 12,
        rl_group_size: 4,
        rl_groups_per_batch: 8,
        eval_every: 4,
      },
    });
    expect(compared.sort()).toEqual([...library.keys()].sort());
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
      // The mean length of the step's 4 replies (2 groups × 2), and the closing line reports the first and last step.
      const chars = rows.map((r) => (JSON.parse(r) as Record<string, number>)['env/all/reply_chars']!);
      for (const v of chars) expect(v * 4).toBeCloseTo(Math.round(v * 4), 9);
      expect(c.out.join('\n')).toContain(`reply length ${chars[0]!.toFixed(1)} → ${chars[1]!.toFixed(1)} characters`);
      // Tournament rewards sum to zero within each group.
      expect(Math.abs(m['env/all/reward/total']!)).toBeLessThan(1e-9);
    } finally {
      await server.close();
    }
  });
});
