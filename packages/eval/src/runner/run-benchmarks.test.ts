import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { arithmeticBenchmark, arithmeticRespond, FakeSampler, renderer } from '../__fixtures__/fake-sampler.js';
import type { Benchmark } from '../benchmark.js';
import { passAtK } from '../pass-at-k.js';
import { benchmarkFromExamples } from '../tasks/jsonl-tasks.js';
import { regradeResults } from './regrade.js';
import type { SampleRecord } from './results.js';
import { type BenchmarkRunConfigInput, runBenchmarks } from './run-benchmarks.js';

const here = dirname(fileURLToPath(import.meta.url));
const tmp = () => mkdtempSync(join(tmpdir(), 'eval-run-'));
const lines = (path: string): SampleRecord[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as SampleRecord);

function run(config: BenchmarkRunConfigInput, benchmarks: readonly Benchmark[], sampler: FakeSampler) {
  return runBenchmarks(
    { behaviorIfLogDirExists: 'resume', modelName: 'fake', ...config },
    { benchmarks, samplingClient: sampler, renderer, progress: false, log: () => undefined },
  );
}

describe('runBenchmarks', () => {
  it('writes results files with exactly the listed fields, and pass@k from the samples', async () => {
    const logPath = tmp();
    const mc = benchmarkFromExamples('mc', [
      { id: 'm1', messages: [{ role: 'user', content: 'Pick' }], choices: ['x', 'y'], answer: 'B' },
    ]);
    const sampler = new FakeSampler((users, seed) =>
      users[0] === 'Pick' ? 'Answer: B' : arithmeticRespond(users, seed),
    );
    const result = await run({ logPath, numSamples: 4, passK: [1, 2, 4] }, [arithmeticBenchmark(3), mc], sampler);
    expect(result.status).toBe('completed');
    expect(sampler.calls).toBe(16);
    const records = lines(join(logPath, 'results.jsonl'));
    expect(records).toHaveLength(16);
    const required = ['answer', 'correct', 'id', 'prompt', 'response', 'sample_index', 'score', 'stop_reason'];
    const optional = ['extracted', 'time_seconds', 'tokens'];
    for (const r of records) {
      expect(Object.keys(r)).toEqual(expect.arrayContaining(required));
      expect(Object.keys(r).filter((k) => !required.includes(k) && !optional.includes(k))).toEqual([]);
      expect(r.tokens).toHaveLength(1);
      expect(r.time_seconds).toBeGreaterThanOrEqual(0);
    }
    expect(records.find((r) => r.id === 'arith/q1')).toMatchObject({ answer: '6', stop_reason: 'stop' });
    const summary = JSON.parse(readFileSync(join(logPath, 'results.json'), 'utf8'));
    expect(Object.keys(summary)).toEqual(['arith', 'mc']);
    expect(Object.keys(summary.arith).sort()).toEqual(
      ['num_correct', 'num_errors', 'num_examples', 'num_truncated', 'pass@1', 'pass@2', 'pass@4', 'score'].sort(),
    );
    const arith = records.filter((r) => r.id.startsWith('arith/'));
    const perExample = ['q0', 'q1', 'q2'].map((q) => arith.filter((r) => r.id === `arith/${q}` && r.correct).length);
    expect(summary.arith.num_correct).toBe(perExample.reduce((a, b) => a + b, 0));
    expect(summary.arith['pass@2']).toBeCloseTo(perExample.reduce((a, c) => a + passAtK(4, c, 2), 0) / 3, 12);
    expect(summary.mc).toMatchObject({ score: 1, num_examples: 1, num_correct: 4, 'pass@1': 1 });
    const metrics = JSON.parse(readFileSync(join(logPath, 'metrics.jsonl'), 'utf8').trim());
    expect(metrics).toMatchObject({ step: 0, 'eval/mc/score': 1, 'eval/arith/num_examples': 3 });
    expect(readFileSync(join(logPath, 'results.html'), 'utf8')).toContain('arith/q2');
  });

  it('shows progress in samples done / total with an ETA, counting reused samples as done', async () => {
    const logPath = tmp();
    let text = '';
    const progress = {
      write: (s: string) => {
        text += s;
      },
      isTTY: false,
    };
    const deps = { samplingClient: new FakeSampler(arithmeticRespond), renderer, log: () => undefined, progress };
    await runBenchmarks(
      { behaviorIfLogDirExists: 'resume', modelName: 'fake', logPath, maxExamples: 4 },
      { ...deps, benchmarks: [arithmeticBenchmark(10)] },
    );
    expect(text.trimEnd().split('\n').at(-1)).toMatch(/^sample 4\/4 100% \[\d+:\d\d<0:00, .*sample\/s\]/);
    text = '';
    await runBenchmarks(
      { behaviorIfLogDirExists: 'resume', modelName: 'fake', logPath },
      { ...deps, benchmarks: [arithmeticBenchmark(10)] },
    );
    const shown = text.trimEnd().split('\n');
    expect(shown[0]).toMatch(/^sample 5\/10 {2}50% \[/); // 4 reused, then the first new one
    expect(shown.at(-1)).toMatch(/^sample 10\/10 100% /);
  });

  it('keeps concurrency bounded, times out stuck samples and records errors without stopping', async () => {
    const logPath = tmp();
    const sampler = new FakeSampler((users, seed) => {
      if (users[0]!.startsWith('What is 5 +')) return new Promise<string>(() => undefined); // never answers
      return arithmeticRespond(users, seed);
    }, 5);
    const result = await run({ logPath, concurrency: 3, timeoutSeconds: 0.3 }, [arithmeticBenchmark(8)], sampler);
    expect(result.status).toBe('completed');
    expect(sampler.maxInFlight).toBeLessThanOrEqual(3);
    const records = lines(join(logPath, 'results.jsonl'));
    expect(records).toHaveLength(8);
    const stuck = records.find((r) => r.id === 'arith/q3')!;
    expect(stuck).toMatchObject({ correct: false, score: 0, stop_reason: null, error: 'timed out after 0.3 s' });
    expect(JSON.parse(readFileSync(join(logPath, 'results.json'), 'utf8')).arith.num_errors).toBe(1);
  });

  it('gives each sample its own seed whatever the concurrency', async () => {
    const seeds = async (concurrency: number) => {
      const logPath = tmp();
      await run(
        { logPath, numSamples: 3, concurrency },
        [arithmeticBenchmark(4)],
        new FakeSampler((_, s) => `seed ${s}`),
      );
      return Object.fromEntries(
        lines(join(logPath, 'results.jsonl')).map((r) => [`${r.id}#${r.sample_index}`, r.response]),
      );
    };
    const a = await seeds(1);
    expect(await seeds(7)).toEqual(a);
    expect(new Set(Object.values(a)).size).toBe(12);
  });

  it('plays multi-turn examples, grading every turn', async () => {
    const logPath = tmp();
    const b = benchmarkFromExamples(
      'followups',
      [
        {
          id: 'f1',
          messages: [{ role: 'user', content: 'What is 4 + 8?' }],
          answer: '12',
          turns: [{ content: 'Now multiply that by 3.', answer: '36' }],
        },
      ],
      'contains',
    );
    const sampler = new FakeSampler((users) => (users.length === 1 ? '4 + 8 = 12.' : '12 * 3 = 35.'));
    await run({ logPath }, [b], sampler);
    const [r] = lines(join(logPath, 'results.jsonl'));
    expect(r!.prompt.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(r).toMatchObject({ response: '12 * 3 = 35.', correct: false, score: 0.5 });
  });

  it('resumes without redoing finished samples, after a truncated last line', async () => {
    const logPath = tmp();
    await run({ logPath, numSamples: 2 }, [arithmeticBenchmark(5)], new FakeSampler(arithmeticRespond));
    const full = readFileSync(join(logPath, 'results.jsonl'), 'utf8').split('\n');
    writeFileSync(join(logPath, 'results.jsonl'), `${full.slice(0, 4).join('\n')}\n{"id":"arith/q4","sam`);
    const again = new FakeSampler(arithmeticRespond);
    const result = await run({ logPath, numSamples: 2 }, [arithmeticBenchmark(5)], again);
    expect(result.value).toMatchObject({ reused: 4, sampled: 6 });
    expect(again.calls).toBe(6);
    const records = lines(join(logPath, 'results.jsonl'));
    expect(records).toHaveLength(10);
    expect(new Set(records.map((r) => `${r.id}#${r.sample_index}`)).size).toBe(10);
    // More samples later: only the new indices are drawn.
    const more = new FakeSampler(arithmeticRespond);
    await run({ logPath, numSamples: 3 }, [arithmeticBenchmark(5)], more);
    expect(more.calls).toBe(5);
  });

  it('resumes after the process is killed mid-run', async () => {
    const logPath = tmp();
    const child = spawn(
      process.execPath,
      ['--conditions=@cookbook/source', '--import', 'tsx', join(here, '..', '__fixtures__', 'kill-child.ts'), logPath],
      { cwd: join(here, '..', '..'), stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    let done = false;
    void exited.then(() => {
      done = true;
    });
    const path = join(logPath, 'results.jsonl');
    const count = () => (existsSync(path) ? readFileSync(path, 'utf8').split('\n').length - 1 : 0);
    while (!done && count() < 6) await new Promise((r) => setTimeout(r, 5));
    if (done) throw new Error(`child exited before being killed: ${stderr}`);
    child.kill('SIGKILL');
    await exited;
    const before = lines(path).length;
    expect(before).toBeGreaterThanOrEqual(6);
    expect(before).toBeLessThan(24);
    const resumed = new FakeSampler(arithmeticRespond);
    const result = await run({ logPath, numSamples: 2, concurrency: 2 }, [arithmeticBenchmark(12)], resumed);
    expect(result.status).toBe('completed');
    expect(resumed.calls).toBe(24 - before);
    const records = lines(path);
    expect(new Set(records.map((r) => `${r.id}#${r.sample_index}`)).size).toBe(24);
    expect(JSON.parse(readFileSync(join(logPath, 'results.json'), 'utf8')).arith.num_examples).toBe(12);
  }, 60_000);

  it('refuses to resume with other sampling settings, touching nothing', async () => {
    const logPath = tmp();
    await run({ logPath }, [arithmeticBenchmark(2)], new FakeSampler(arithmeticRespond));
    const before = readFileSync(join(logPath, 'results.jsonl'), 'utf8');
    const config = readFileSync(join(logPath, 'config.json'), 'utf8');
    await expect(
      run({ logPath, temperature: 0.5 }, [arithmeticBenchmark(2)], new FakeSampler(arithmeticRespond)),
    ).rejects.toThrow(/temperature: 1 there, 0.5 now/);
    expect(readFileSync(join(logPath, 'results.jsonl'), 'utf8')).toBe(before);
    expect(readFileSync(join(logPath, 'config.json'), 'utf8')).toBe(config);
  });

  it('re-grades saved replies without sampling', async () => {
    const logPath = tmp();
    const strict = benchmarkFromExamples(
      'arith',
      [{ id: 'q0', messages: [{ role: 'user', content: 'What is 2 + 1?' }], answer: '3' }],
      'exact_match',
    );
    await run({ logPath, numSamples: 2 }, [strict], new FakeSampler(() => 'It is 3.'));
    expect(JSON.parse(readFileSync(join(logPath, 'results.json'), 'utf8')).arith.num_correct).toBe(0);
    const lenient = benchmarkFromExamples('arith', strict.examples, 'contains');
    const out = await regradeResults(logPath, [lenient]);
    expect(out).toMatchObject({ regraded: 2, changed: 2, kept: 0 });
    expect(out.summary.arith).toMatchObject({ num_correct: 2, score: 1, 'pass@1': 1, 'pass@2': 1 });
    expect(lines(join(logPath, 'results.jsonl')).every((r) => r.correct && r.response === 'It is 3.')).toBe(true);
    expect(JSON.parse(readFileSync(join(logPath, 'metrics.jsonl'), 'utf8'))['eval/arith/score']).toBe(1);
    await expect(regradeResults(tmp(), [lenient])).rejects.toThrow(/no results.jsonl to re-grade/);
  });
});
