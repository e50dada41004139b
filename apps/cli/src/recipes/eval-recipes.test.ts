import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFields } from '@cookbook/core';
import { BenchmarkEvaluator, BenchmarkRunConfigSchema, benchmarkFromTaskFile, readTaskFile } from '@cookbook/eval';
import { readMetrics } from '@cookbook/logging';
import { getRenderer } from '@cookbook/renderers';
import { fromConversationFile, trainSupervised } from '@cookbook/supervised';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli.js';
import { expectDerivedFields, fieldsOf } from './__fixtures__/library-fields.js';
import { evalRecipe } from './eval.js';
import { evalCompare } from './eval-compare.js';
import { SHIPPED_TASKS, shippedTaskPath } from './eval-tasks.js';
import { EXAMPLE_CONVERSATIONS } from './sl-common.js';

const recipes = [evalRecipe, evalCompare];
function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe('eval recipes', () => {
  it('every field has a description and a default; the shipped task files parse', () => {
    for (const f of configFields(evalRecipe.schema)) {
      expect(f.description, f.path).not.toBe('');
      expect(f.required, f.path).toBe(false);
    }
    for (const name of Object.keys(SHIPPED_TASKS))
      expect(readTaskFile(shippedTaskPath(name)!).length).toBeGreaterThan(5);
  });

  it('derives its fields from the library schema (same descriptions, types and defaults; overrides listed)', () => {
    const library = fieldsOf(BenchmarkRunConfigSchema);
    const compared = expectDerivedFields(evalRecipe.schema, library, {
      anyDefault: ['log_path'],
      // A rerun continues the benchmarks it has not finished instead of asking.
      defaults: { behavior_if_log_dir_exists: 'resume', eval_store: '.cookbook-runs/eval_store' },
    });
    expect(compared.length).toBe(library.size);
  });

  it('evaluates a base model offline, resumes, re-grades and compares', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-eval-'));
    const a = join(dir, 'a');
    const store = join(dir, 'store');
    const args = [
      'model_name=local/qwen3-tiny',
      'benchmarks=concise,followups',
      'max_examples=2',
      'max_tokens=6',
      `eval_store=${store}`,
    ];
    const c = capture();
    expect(await runCli(['eval', ...args, `log_path=${a}`], recipes, c.io)).toBe(0);
    expect(c.out.join('\n')).toMatch(/concise\s+[\d.]+\s+[\d.]+\s+2\s+/);
    for (const f of ['results.jsonl', 'results.json', 'results.html', 'metrics.jsonl', 'config.json', 'report.html']) {
      expect(existsSync(join(a, f)), f).toBe(true);
    }
    for (const f of ['concise/result.json', 'concise/trajectories.jsonl', 'followups/result.json', 'summary.json']) {
      expect(existsSync(join(a, f)), f).toBe(true);
    }
    const first = readFileSync(join(a, 'results.jsonl'), 'utf8');
    expect(first.trim().split('\n')).toHaveLength(4);
    // The same command again resumes: nothing is sampled, nothing appended.
    const again = capture();
    expect(await runCli(['eval', ...args, `log_path=${a}`], recipes, again.io)).toBe(0);
    expect(again.err.join('\n')).toContain('resuming: 4 of 4 samples already in results.jsonl');
    expect(readFileSync(join(a, 'results.jsonl'), 'utf8')).toBe(first);
    const re = capture();
    expect(await runCli(['eval', ...args, `log_path=${a}`, 'regrade=true'], recipes, re.io)).toBe(0);
    expect(re.out.join('\n')).toMatch(/re-graded 4 samples \(0 changed, 0 kept as they were\)/);

    const b = join(dir, 'b');
    expect(await runCli(['eval', ...args, 'seed=1', `log_path=${b}`], recipes, capture().io)).toBe(0);
    const cmp = capture();
    expect(await runCli(['eval_compare', `a=${a}`, `b=${b}`, `log_path=${join(dir, 'cmp')}`], recipes, cmp.io)).toBe(0);
    expect(cmp.out.join('\n')).toMatch(/benchmark\s+a score\s+b score\s+delta/);
    expect(existsSync(join(dir, 'cmp', 'compare.html'))).toBe(true);
    // Both evals are runs of the one store (the resumed one kept its run).
    expect(readFileSync(join(store, 'runs.jsonl'), 'utf8').trim().split('\n')).toHaveLength(2);
  }, 120_000);

  it('reports a malformed task file by file, line and field, and a folder without results', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-eval-bad-'));
    const task = join(dir, 'mine.jsonl');
    writeFileSync(task, '{"question": "ok?", "answer": "yes"}\n{"question": 5, "answer": "x"}\n');
    const c = capture();
    const code = await runCli(
      ['eval', 'model_name=local/qwen3-tiny', `benchmarks=${task}`, `log_path=${join(dir, 'r')}`],
      recipes,
      c.io,
    );
    expect(code).not.toBe(0);
    expect(c.err.join('\n')).toContain(`${task}:2, field "question": expected a non-empty string`);
    expect(existsSync(join(dir, 'r'))).toBe(false);
    const d = capture();
    expect(await runCli(['eval_compare', `a=${dir}`, `b=${dir}`], recipes, d.io)).toBe(2);
    expect(d.err.join('\n')).toMatch(/a=.*: unknown eval folder format: expected results\.json/);
  });

  it('runs upstream benchmarks from their offline samples, writing upstream results; lists known names', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-eval-native-'));
    const c = capture();
    const args = ['eval', 'model_name=local/qwen3-tiny', 'max_tokens=4', `eval_store=${join(dir, 'store')}`];
    expect(
      await runCli([...args, 'benchmarks=aime_2025:sample,gpqa:sample', `log_path=${join(dir, 'r')}`], recipes, c.io),
    ).toBe(0);
    expect(c.out.join('\n')).toMatch(/aime_2025\s+[\d.]+\s+[\d.]+\s+3\s+/);
    const result = JSON.parse(readFileSync(join(dir, 'r', 'gpqa', 'result.json'), 'utf8'));
    expect(result).toMatchObject({ name: 'gpqa', num_examples: 3, num_errors: 0 });
    const bad = capture();
    expect(await runCli([...args, 'benchmarks=aime_2099', `log_path=${join(dir, 'x')}`], recipes, bad.io)).toBe(2);
    expect(bad.err.join('\n')).toMatch(
      /unknown benchmark "aime_2099"; choose concise, .*, gsm8k, math500, aime_2025, aime_2026, .*supergpqa, ifbench, mbpp, livecodebench, mmlu, ifeval \(a native one with :sample/,
    );
  }, 120_000);

  it('runs inside the SFT loop as an evaluator, logging eval/<benchmark>/…', async () => {
    const logPath = join(mkdtempSync(join(tmpdir(), 'cli-eval-sft-')), 'run');
    const renderer = getRenderer('qwen3_disable_thinking', getTokenizer('local/qwen3-tiny'));
    const concise = benchmarkFromTaskFile(shippedTaskPath('concise')!, { name: 'concise' });
    const result = await trainSupervised(
      { logPath, maxSteps: 2, evalEvery: 0, infrequentEvalEvery: 2, saveEvery: 0, behaviorIfLogDirExists: 'raise' },
      {
        dataset: fromConversationFile({
          filePath: EXAMPLE_CONVERSATIONS,
          common: {
            modelNameForTokenizer: 'local/qwen3-tiny',
            rendererName: 'qwen3_disable_thinking',
            batchSize: 4,
            maxLength: 128,
          },
        }),
        infrequentEvaluators: [
          () => new BenchmarkEvaluator({ benchmarks: [concise], renderer, maxExamples: 2, maxTokens: 8 }),
        ],
        console: false,
        progress: false,
        log: () => undefined,
      },
    );
    expect(result.status).toBe('completed');
    const { rows } = await readMetrics(join(logPath, 'metrics.jsonl'));
    const evalRows = rows.filter((r) => typeof r['eval/concise/score'] === 'number');
    expect(evalRows.map((r) => r.step)).toEqual([0, 2]);
    expect(evalRows[0]).toMatchObject({ 'eval/concise/num_examples': 2, 'eval/concise/num_errors': 0 });
    expect(existsSync(join(logPath, 'transcripts', 'benchmarks_step_000002.html'))).toBe(true);
  }, 120_000);
});
