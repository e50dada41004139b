import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import { recipes } from '../recipes.js';
import { sdft } from './sdft.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('cookbook sdft', () => {
  let server: { baseURL: string; close(): Promise<void> };
  const root = mkdtempSync(join(tmpdir(), 'sdft-recipe-'));
  beforeAll(async () => {
    server = await startLocalTinker({ port: 0, root: join(root, 'service') });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is registered; its help names the three modes', async () => {
    expect(recipes.map((r) => r.name)).toContain('sdft');
    const c = capture();
    expect(await runCli(['sdft', '--help'], [sdft], c.io)).toBe(0);
    const help = c.out.join('\n');
    for (const key of ['topk', 'reverse', 'demo_template', 'teacher_sync_every', 'skip_first_tokens']) {
      expect(help).toContain(key);
    }
  });

  it('refuses a teacher template without the reference answer before creating the run', async () => {
    const logPath = join(root, 'bad');
    const c = capture();
    const code = await runCli(
      ['sdft', `log_path=${logPath}`, `base_url=${server.baseURL}`, 'demo_template={question} Answer it.'],
      [sdft],
      c.io,
    );
    expect(code).not.toBe(0);
    expect(c.err.join('\n')).toMatch(/demo_template has no \{golden_answer\} field/);
    expect(existsSync(logPath)).toBe(false);
  });

  it('trains a step in each mode (top-K, reverse KL, advantage with a teacher re-sync) on the stand-in, logging the per-token KL', async () => {
    for (const [i, mode] of [[], ['reverse=true'], ['topk=0', 'teacher_sync_every=1']].entries()) {
      const logPath = join(root, `run${i}`);
      const c = capture();
      const args = [
        'max_steps=1',
        'groups_per_batch=2',
        'group_size=1',
        'max_tokens=8',
        'skip_first_tokens=0',
        'lora_rank=4',
        ...mode,
      ];
      expect(await runCli(['sdft', `log_path=${logPath}`, `base_url=${server.baseURL}`, ...args], [sdft], c.io)).toBe(
        0,
      );
      const rows = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(rows.length).toBe(1);
      expect(Number.isFinite(rows[0]['sdft/kl'])).toBe(true);
      expect(rows[0]['sdft/positions']).toBeGreaterThan(0);
      if (mode.includes('reverse=true')) expect(Number.isFinite(rows[0]['sdft/reverse_kl'])).toBe(true);
      const cps = readFileSync(join(logPath, 'checkpoints.jsonl'), 'utf8');
      expect(cps).toContain('"final":true');
    }
  });
});
