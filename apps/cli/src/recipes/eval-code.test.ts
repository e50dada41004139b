/**
 * The code benchmarks end to end through `cookbook eval`: the offline samples of `mbpp` and `livecodebench` sampled
 * from the stand-in model, graded in the local sandbox, reported with pass@k in results.json and upstream's
 * `<benchmark>/result.json`; then replies replaced by correct programs and graded again (`regrade=true`), so the
 * scores are shown to come from running the code.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isolatedPythonAvailable } from '@cookbook/sandbox';
import { describe, expect, it, vi } from 'vitest';
import { runCli } from '../cli.js';
import { evalRecipe } from './eval.js';

const run = isolatedPythonAvailable() || process.env.CI === 'true';

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

const VOWELS = "```python\ndef count_vowels(s):\n    return sum(c in 'aeiouAEIOU' for c in s)\n```";
const SUM = '```python\ninput()\nprint(sum(map(int, input().split())))\n```';

describe.runIf(run)('eval runs the code benchmarks in the sandbox [bubblewrap]', () => {
  it('samples, grades and reports mbpp and livecodebench offline; a regrade of correct programs scores them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-eval-code-'));
    // A service root of this file's own: another test file's embedded service may hold the run's shared root.
    vi.stubEnv('COOKBOOK_LOCAL_TINKER_ROOT', join(dir, 'service'));
    const log = join(dir, 'r');
    const args = [
      'eval',
      'model_name=local/qwen3-tiny',
      'benchmarks=mbpp:sample,livecodebench:sample',
      'num_samples=2',
      'max_tokens=4',
      `log_path=${log}`,
      `eval_store=${join(dir, 'store')}`,
    ];
    const c = capture();
    expect(await runCli(args, [evalRecipe], c.io)).toBe(0);
    expect(c.out.join('\n')).toMatch(/mbpp\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+3\s+/);
    const summary = JSON.parse(readFileSync(join(log, 'results.json'), 'utf8'));
    for (const name of ['mbpp', 'livecodebench']) {
      expect(summary[name]).toMatchObject({ num_examples: 3, num_errors: 0 });
      expect(Object.keys(summary[name])).toEqual(expect.arrayContaining(['pass@1', 'pass@2']));
    }
    const upstream = JSON.parse(readFileSync(join(log, 'livecodebench', 'result.json'), 'utf8'));
    expect(upstream).toMatchObject({ name: 'livecodebench', num_examples: 6 });
    expect(Object.keys(upstream.metrics)).toEqual(
      expect.arrayContaining(['livecodebench/pass_at_1', 'livecodebench/easy/pass_at_1']),
    );

    // One of the two samples of count_vowels and of the stdin sum problem now holds a correct program.
    const path = join(log, 'results.jsonl');
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    const edited = lines.map((line) => {
      const r = JSON.parse(line) as { id: string; sample_index: number; prompt: { content: string }[] };
      if (r.sample_index !== 0) return line;
      if (r.id === 'mbpp/mbpp_9001') return JSON.stringify({ ...r, response: VOWELS });
      if (r.prompt[0]!.content.includes('You are given N integers')) return JSON.stringify({ ...r, response: SUM });
      return line;
    });
    writeFileSync(path, `${edited.join('\n')}\n`);
    const re = capture();
    expect(await runCli([...args, 'regrade=true'], [evalRecipe], re.io)).toBe(0);
    expect(re.out.join('\n')).toMatch(/re-graded 12 samples \(2 changed/);
    const after = JSON.parse(readFileSync(join(log, 'results.json'), 'utf8'));
    for (const name of ['mbpp', 'livecodebench']) {
      expect(after[name]).toMatchObject({ num_correct: 1, 'pass@1': 1 / 6, 'pass@2': 1 / 3 });
    }
    vi.unstubAllEnvs();
  }, 120_000);
});
