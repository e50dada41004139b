import type { SamplingClientLike } from '@cookbook/tinker-client';
import { describe, expect, it } from 'vitest';
import {
  type EvalContext,
  type EvalTrainingClient,
  type Evaluator,
  resolveEvaluators,
  runEvaluators,
  type SamplingClientEvaluator,
  type TrainingClientEvaluator,
} from './evaluator.js';

const seen: { name: string; ctx: EvalContext }[] = [];
const trainingEval = (name: string): TrainingClientEvaluator => ({
  kind: 'training_client',
  name,
  evaluate: async (_c, ctx) => {
    seen.push({ name, ctx });
    return { [`${name}/x`]: 1 };
  },
});
const samplingEval = (name: string): SamplingClientEvaluator => ({
  kind: 'sampling_client',
  name,
  evaluate: async (_c, ctx) => {
    seen.push({ name, ctx });
    return { [`${name}/y`]: 2 };
  },
});

describe('evaluators', () => {
  it('builds builders and passes evaluators through, in order', async () => {
    const a = trainingEval('a');
    const list = await resolveEvaluators<Evaluator>([a, () => samplingEval('b'), async () => trainingEval('c')]);
    expect(list.map((e) => e.name)).toEqual(['a', 'b', 'c']);
    expect(list[0]).toBe(a);
    expect(await resolveEvaluators(undefined)).toEqual([]);
  });

  it('runs both kinds, makes the sampler once and only when needed, and names transcript paths', async () => {
    seen.length = 0;
    let samplers = 0;
    const clients = {
      training: {} as EvalTrainingClient,
      sampler: async () => {
        samplers++;
        return {} as SamplingClientLike;
      },
    };
    const out = await runEvaluators([trainingEval('a'), samplingEval('b'), samplingEval('c')], clients, {
      step: 7,
      logPath: 'run',
      transcriptPath: (name) => `run/eval_${name}.html`,
    });
    expect(out).toEqual({ 'a/x': 1, 'b/y': 2, 'c/y': 2 });
    expect(samplers).toBe(1);
    expect(seen.map((s) => s.ctx)).toEqual([
      { step: 7, logPath: 'run', transcriptPath: 'run/eval_a.html' },
      { step: 7, logPath: 'run', transcriptPath: 'run/eval_b.html' },
      { step: 7, logPath: 'run', transcriptPath: 'run/eval_c.html' },
    ]);
    await runEvaluators([trainingEval('d')], clients, { step: 0, logPath: 'run' });
    expect(samplers).toBe(1);
  });

  it('skips an evaluator whose client is missing, with a notice', async () => {
    const notes: string[] = [];
    const out = await runEvaluators(
      [samplingEval('s'), trainingEval('t')],
      {},
      {
        step: 0,
        logPath: '.',
        log: (l) => notes.push(l),
      },
    );
    expect(out).toEqual({});
    expect(notes).toEqual([
      'evaluator s needs a sampling client; skipped',
      'evaluator t needs a training client; skipped',
    ]);
  });
});
