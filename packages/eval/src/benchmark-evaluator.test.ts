import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import { resolveEvaluators } from '@cookbook/training';
import { describe, expect, it } from 'vitest';
import { arithmeticBenchmark, arithmeticRespond, FakeSampler, renderer } from './__fixtures__/fake-sampler.js';
import { BenchmarkEvaluator } from './benchmark-evaluator.js';

describe('BenchmarkEvaluator', () => {
  it('logs eval/<benchmark>/… metrics and writes a transcript per evaluation', async () => {
    const logPath = mkdtempSync(join(tmpdir(), 'eval-inline-'));
    const ev = new BenchmarkEvaluator({ benchmarks: [arithmeticBenchmark(3)], renderer, numSamples: 2, passK: [1, 2] });
    const [built] = await resolveEvaluators([() => ev]);
    const sampler = new FakeSampler(arithmeticRespond);
    const client: SamplingClientLike = { sample: (a) => sampler.sample(a), computeLogprobs: async () => [] };
    const m = await built!.evaluate(client, { step: 20, logPath });
    expect(Object.keys(m).sort()).toEqual(
      [
        'eval/arith/num_correct',
        'eval/arith/num_errors',
        'eval/arith/num_examples',
        'eval/arith/num_truncated',
        'eval/arith/pass@1',
        'eval/arith/pass@2',
        'eval/arith/score',
      ].sort(),
    );
    expect(m['eval/arith/num_examples']).toBe(3);
    expect(existsSync(join(logPath, 'transcripts', 'benchmarks_step_000020.html'))).toBe(true);
  });
});
