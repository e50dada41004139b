/**
 * An eval writes upstream's layout beside its own files — `<benchmark>/result.json` and `trajectories.jsonl` with
 * exactly upstream's fields, `summary.json` — and records itself in an eval store (`runs.jsonl` + `runs/<id>/`);
 * a resumed eval updates its own store run instead of adding one.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeSampler, renderer } from '../__fixtures__/fake-sampler.js';
import { loadNativeBenchmark } from '../native/registry.js';
import { regradeResults } from './regrade.js';
import { runBenchmarks } from './run-benchmarks.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'eval-upstream-'));
const json = (path: string) => JSON.parse(readFileSync(path, 'utf8'));
const jsonl = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

/** Answers AIME sample questions (81 right; 24 as \boxed{25}, wrong) and MMLU-Redux ones with a letter. */
const sampler = () =>
  new FakeSampler((users) => {
    const u = users.at(-1) ?? '';
    if (u.includes('3^4')) return 'It is \\boxed{81}.';
    if (u.includes('divisors')) return 'So \\boxed{25}.';
    if (u.includes('closest to the Sun')) return 'The answer is (B).';
    if (u.includes('influenza') || u.includes('Influenza')) return 'Answer: A';
    return 'I am not sure.';
  });

async function evalOnce(logPath: string, store: string, s: FakeSampler) {
  const benchmarks = await Promise.all(['aime_2025:sample', 'mmlu_redux:sample'].map((n) => loadNativeBenchmark(n)));
  return runBenchmarks(
    {
      logPath,
      behaviorIfLogDirExists: 'resume',
      modelName: 'fake',
      modelPath: 'tinker://r/sampler_weights/final',
      evalStore: store,
    },
    { benchmarks, samplingClient: s, renderer, progress: false, log: () => undefined },
  );
}

describe('upstream result format and eval store', () => {
  it('writes result.json and trajectories.jsonl with upstream fields, per-subject metrics and the store index', async () => {
    const logPath = join(tmp(), 'eval');
    const store = join(tmp(), 'store');
    expect((await evalOnce(logPath, store, sampler())).status).toBe('completed');

    const aime = json(join(logPath, 'aime_2025', 'result.json'));
    expect(Object.keys(aime)).toEqual([
      'name',
      'score',
      'num_examples',
      'num_correct',
      'num_errors',
      'num_truncated',
      'metrics',
      'time_seconds',
      'pass_at_k',
    ]);
    expect(aime).toMatchObject({ name: 'aime_2025', num_examples: 3, num_correct: 1, num_errors: 0, pass_at_k: {} });
    expect(aime.score).toBeCloseTo(1 / 3, 12);
    expect(aime.metrics.total_turns).toBe(3);
    expect(aime.metrics.total_ac_tokens).toBeGreaterThan(0);

    const redux = json(join(logPath, 'mmlu_redux', 'result.json'));
    expect(redux.metrics).toMatchObject({
      'mmlu_redux/accuracy': 2 / 3,
      'mmlu_redux/astronomy/accuracy': 0.5,
      'mmlu_redux/virology/accuracy': 1,
    });

    const trajectories = jsonl(join(logPath, 'aime_2025', 'trajectories.jsonl'));
    expect(trajectories).toHaveLength(3);
    const t = trajectories.find((x) => x.logs.extracted === '81');
    expect(Object.keys(t)).toEqual([
      'idx',
      'benchmark',
      'example_id',
      'turns',
      'reward',
      'metrics',
      'logs',
      'error',
      'time_seconds',
    ]);
    expect(t).toMatchObject({ idx: 0, benchmark: 'aime_2025', reward: 1, error: null });
    expect(t.example_id).toMatch(/^aime_2025_[0-9a-f]{12}$/);
    expect(t.turns.map((x: { role: string; metadata: object }) => [x.role, x.metadata])).toEqual([
      ['user', { role: 'system' }],
      ['user', {}],
      ['assistant', {}],
    ]);
    for (const turn of t.turns) expect(Object.keys(turn)).toEqual(['role', 'content', 'token_count', 'metadata']);
    expect(t.turns[1].token_count).toBeGreaterThan(0);
    expect(t.turns[2].content).toBe('It is \\boxed{81}.');

    expect(json(join(logPath, 'summary.json')).aime_2025).toMatchObject({ num_examples: 3, num_correct: 1 });

    const index = jsonl(join(store, 'runs.jsonl'));
    expect(index).toHaveLength(1);
    expect(index[0]).toMatchObject({ model: 'fake', checkpoint: 'final' });
    expect(index[0].run_id).toMatch(/^final_\d{8}_\d{6}_[0-9a-f]{6}$/);
    const runDir = join(store, 'runs', index[0].run_id);
    const meta = json(join(runDir, 'metadata.json'));
    expect(meta).toMatchObject({
      run_id: index[0].run_id,
      model_name: 'fake',
      checkpoint_path: 'tinker://r/sampler_weights/final',
      checkpoint_name: 'final',
      benchmarks: ['aime_2025', 'mmlu_redux'],
      scores: { aime_2025: aime.score, mmlu_redux: redux.score },
    });
    expect(json(join(runDir, 'mmlu_redux', 'result.json'))).toEqual(redux);
    expect(existsSync(join(runDir, 'aime_2025', 'trajectories.jsonl'))).toBe(true);

    // Resumed: nothing sampled again, the same store run updated, no second index line.
    const again = sampler();
    const second = await evalOnce(logPath, store, again);
    expect(again.calls).toBe(0);
    expect(second.value?.reused).toBe(6);
    expect(jsonl(join(store, 'runs.jsonl'))).toHaveLength(1);
    // Another eval folder is another run of the same store.
    await evalOnce(join(tmp(), 'other'), store, sampler());
    expect(jsonl(join(store, 'runs.jsonl'))).toHaveLength(2);
  });

  it('a grader exception is the example error: counted in num_errors, the benchmark goes on', async () => {
    const logPath = join(tmp(), 'eval');
    const s = new FakeSampler((users) => ((users.at(-1) ?? '').includes('divisors') ? '\\boxed{inf}' : '\\boxed{81}'));
    const aime = await loadNativeBenchmark('aime_2025:sample');
    const result = await runBenchmarks(
      { logPath, behaviorIfLogDirExists: 'resume', modelName: 'fake' },
      { benchmarks: [aime], samplingClient: s, renderer, progress: false, log: () => undefined },
    );
    expect(result.status).toBe('completed');
    expect(s.calls).toBe(3);
    expect(json(join(logPath, 'aime_2025', 'result.json'))).toMatchObject({
      num_examples: 3,
      num_correct: 1,
      num_errors: 1,
    });
    const failed = jsonl(join(logPath, 'aime_2025', 'trajectories.jsonl')).filter((t) => t.error !== null);
    expect(failed.map((t) => [t.reward, t.error])).toEqual([
      [0, 'field "response": cannot convert "inf" to an integer'],
    ]);
    expect(existsSync(join(logPath, 'eval_store.json'))).toBe(false);
  });

  it('re-grading rewrites upstream files too; a grader that throws makes the samples errors', async () => {
    const logPath = join(tmp(), 'eval');
    const aime = await loadNativeBenchmark('aime_2025:sample');
    await runBenchmarks(
      { logPath, behaviorIfLogDirExists: 'resume', modelName: 'fake' },
      { benchmarks: [aime], samplingClient: sampler(), renderer, progress: false, log: () => undefined },
    );
    expect(json(join(logPath, 'aime_2025', 'result.json'))).toMatchObject({ num_correct: 1, num_errors: 0 });
    const lenient = { ...aime, grader: () => ({ correct: true, score: 1, extracted: 'any' }) };
    await regradeResults(logPath, [lenient]);
    expect(json(join(logPath, 'aime_2025', 'result.json'))).toMatchObject({ num_correct: 3, num_errors: 0 });
    expect(jsonl(join(logPath, 'aime_2025', 'trajectories.jsonl')).map((t) => t.logs.extracted)).toEqual([
      'any',
      'any',
      'any',
    ]);
    const broken = {
      ...aime,
      grader: () => {
        throw new Error('grader bug');
      },
    };
    const outcome = await regradeResults(logPath, [broken]);
    expect(outcome).toMatchObject({ regraded: 3, changed: 3 });
    expect(json(join(logPath, 'aime_2025', 'result.json'))).toMatchObject({ num_correct: 0, num_errors: 3 });
    expect(jsonl(join(logPath, 'aime_2025', 'trajectories.jsonl')).map((t) => t.error)).toEqual([
      'grader bug',
      'grader bug',
      'grader bug',
    ]);
  });

  it('refuses a benchmark named like a file of the eval folder, before creating it', async () => {
    const logPath = join(tmp(), 'eval');
    const aime = await loadNativeBenchmark('aime_2025:sample');
    await expect(
      runBenchmarks(
        { logPath, behaviorIfLogDirExists: 'resume', modelName: 'fake' },
        {
          benchmarks: [{ ...aime, name: 'summary.json' }],
          samplingClient: sampler(),
          renderer,
          progress: false,
          log: () => undefined,
        },
      ),
    ).rejects.toThrow(
      'benchmark name "summary.json" is a file of the eval folder; rename the benchmark (or its task file)',
    );
    expect(existsSync(logPath)).toBe(false);
  });
});
