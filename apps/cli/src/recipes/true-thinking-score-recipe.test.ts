import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalTinker } from '@cookbook/local-tinker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import { recipes } from '../recipes.js';
import { trueThinkingScore } from './true-thinking-score.js';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('cookbook true_thinking_score', () => {
  let server: { baseURL: string; close(): Promise<void> };
  const root = mkdtempSync(join(tmpdir(), 'tts-recipe-'));
  beforeAll(async () => {
    server = await startLocalTinker({ port: 0, root: join(root, 'service') });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('is registered; its help names the data sets and the reasoning source', async () => {
    expect(recipes.map((r) => r.name)).toContain('true_thinking_score');
    const c = capture();
    expect(await runCli(['true_thinking_score', '--help'], [trueThinkingScore], c.io)).toBe(0);
    const help = c.out.join('\n');
    for (const key of ['dataset', 'reasoning', 'n_problems', 'max_tokens', 'seed']) expect(help).toContain(key);
  });

  it('scores shipped problems on the stand-in (seed 8: the square problem, without numbers, is skipped) and writes the page', async () => {
    const logPath = join(root, 'run');
    const c = capture();
    const args = [`log_path=${logPath}`, `base_url=${server.baseURL}`, 'n_problems=2', 'seed=8'];
    expect(await runCli(['true_thinking_score', ...args], [trueThinkingScore], c.io)).toBe(0);
    expect(c.out.join('\n')).toMatch(
      /1 of 2 problems scored \(1 without numbers skipped\), 2 steps: mean TTS \d\.\d{4}/,
    );
    for (const f of ['tts.html', 'tts_per_problem.jsonl', 'tts_summary.json', 'metrics.jsonl', 'config.json']) {
      expect(existsSync(join(logPath, f)), f).toBe(true);
    }
    const per = readFileSync(join(logPath, 'tts_per_problem.jsonl'), 'utf8').trim().split('\n');
    expect(per.length).toBe(2);
  });
});
