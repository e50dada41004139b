import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import { recipes } from '../recipes.js';
import { rubric } from './rubric.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('cookbook rubric', () => {
  let server: { baseURL: string; close(): Promise<void> };
  const root = mkdtempSync(join(tmpdir(), 'rubric-recipe-'));
  beforeAll(async () => {
    server = await startLocalTinker({ port: 0, root: join(root, 'service') });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is registered and its help names the judge and the data', async () => {
    expect(recipes.map((r) => r.name)).toContain('rubric');
    const c = capture();
    expect(await runCli(['rubric', '--help'], [rubric], c.io)).toBe(0);
    const help = c.out.join('\n');
    for (const key of ['judge_model', 'judge_model_path', 'judge_base_url', 'train_jsonl_path', 'format_coef']) {
      expect(help).toContain(key);
    }
    expect(help).toMatch(/scores are noise/);
  });

  it('refuses a bad data file naming the file, line and field, before training', async () => {
    const file = join(root, 'bad.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ convo: [{ role: 'user', content: 'q' }], rubric_items: [{ rubric_str: 'x' }] })}\n${JSON.stringify({ convo: [{ role: 'user', content: 'q' }], rubric_items: [{ rubric_str: 'x', extraction_regex: '(' }] })}\n`,
    );
    const c = capture();
    const logPath = join(root, 'bad-run');
    const code = await runCli(
      ['rubric', `log_path=${logPath}`, `base_url=${server.baseURL}`, `train_jsonl_path=${file}`],
      [rubric],
      c.io,
    );
    expect(code).not.toBe(0);
    expect(c.err.join('\n')).toContain(`${file}:2, field "rubric_items[0].extraction_regex": does not compile`);
    expect(existsSync(logPath)).toBe(false);
  });

  it('trains a step with the stand-in as policy and judge, and writes the generated data in the JSONL format', async () => {
    const logPath = join(root, 'run');
    const c = capture();
    const args = [
      'max_steps=1',
      'group_size=2',
      'groups_per_batch=2',
      'max_tokens=3',
      'judge_max_tokens=4',
      'num_train=8',
      'num_test=0',
      'lora_rank=4',
    ];
    expect(await runCli(['rubric', `log_path=${logPath}`, `base_url=${server.baseURL}`, ...args], [rubric], c.io)).toBe(
      0,
    );
    const rows = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.length).toBe(1);
    for (const k of ['env/all/rubric_score', 'env/all/rubric_no_score', 'env/all/format', 'env/all/reward/total']) {
      expect(typeof rows[0][k], k).toBe('number');
    }
    const data = readFileSync(join(logPath, 'data', 'train.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(data.length).toBe(8);
    expect(JSON.parse(data[0]!).rubric_items[0].rubric_str).toMatch(
      /^Does the chatbot correctly get the answer \d+\?$/,
    );
  });
});
