/**
 * The algorithms' math against an outside implementation: the advantage estimators, the loss aggregations (as the
 * token weights sent to the service) and GSPO's sequence-ratio loss equal TRL's GRPO trainer (or, where TRL has no
 * counterpart, the paper's formula in PyTorch) on the fixture written by `packages/engine/scripts/trl-loss-fixtures.py`;
 * then the presets and the errors of bad combinations.
 */
import { readFileSync } from 'node:fs';
import { ConfigError, TrainingError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { ADVANTAGE_ESTIMATORS, type AdvantageEstimator, estimateAdvantages, overlongPenalty } from './advantages.js';
import { ALGORITHM_PRESETS, ALGORITHMS, type AlgorithmKnobsInput, resolveAlgorithm } from './algorithms.js';
import { aggregationWeights, type LossAggregation, sequenceRatioLoss } from './loss-variants.js';

interface AlgoCase {
  name: string;
  trl: { loss_type: string; epsilon: number; epsilon_high: number; importance_sampling_level: string };
  aggregation: LossAggregation;
  max_completion_length: number;
  weights: number[][];
  loss: number;
  grad: number[][];
}
interface Fixture {
  versions: { trl: string; torch: string };
  lengths: number[];
  advantages: number[];
  sampler_logprobs: number[][];
  logprobs: number[][];
  cases: AlgoCase[];
  rewards: number[][];
  reinforce_pp_tokens: number[][];
  estimators: Record<AdvantageEstimator, number[][]>;
  overlong: { length: number; max_tokens: number; cache: number; penalty: number }[];
}

const fx = JSON.parse(readFileSync(new URL('./__fixtures__/trl-algorithms.json', import.meta.url), 'utf8')) as Fixture;

function expectRel(actual: number, expected: number, what: string): void {
  const tol = 1e-6 * Math.max(Math.abs(actual), Math.abs(expected)) + 1e-12;
  if (!(Math.abs(actual - expected) <= tol)) {
    throw new Error(`${what}: got ${actual}, the reference gives ${expected} (|diff| ${Math.abs(actual - expected)})`);
  }
}

const masks = fx.lengths.map((n) => new Array<number>(n).fill(1));

describe(`RL algorithms equal TRL ${fx.versions.trl} (torch ${fx.versions.torch})`, () => {
  for (const estimator of ADVANTAGE_ESTIMATORS) {
    it(`advantage_estimator=${estimator} on groups with a constant one`, () => {
      // REINFORCE++ whitens over tokens: each rollout weighs by its (ragged) token count.
      const got = estimateAdvantages(fx.rewards, estimator, fx.reinforce_pp_tokens);
      fx.estimators[estimator].forEach((g, p) => {
        g.forEach((a, i) => {
          expectRel(got[p]![i]!, a, `group ${p} rollout ${i}`);
        });
      });
    });
  }

  for (const c of fx.cases.filter((x) => x.trl.importance_sampling_level === 'token')) {
    it(`${c.name}: loss_aggregation=${c.aggregation} gives TRL's ${c.trl.loss_type} normalisation as token weights`, () => {
      const w = aggregationWeights(masks, c.aggregation, c.max_completion_length)!;
      c.weights.forEach((row, i) => {
        row.forEach((x, t) => {
          expectRel(w[i]![t]!, x, `datum ${i} token ${t} weight`);
        });
      });
    });
  }

  for (const c of fx.cases.filter((x) => x.trl.importance_sampling_level === 'sequence')) {
    it(`${c.name}: the sequence-ratio loss and ∂L/∂lp equal TRL's importance_sampling_level="sequence"`, () => {
      const clip = { low: 1 - c.trl.epsilon, high: 1 + c.trl.epsilon_high };
      const inputs = fx.lengths.map((n, i) => ({
        logprobs: fx.sampler_logprobs[i]!,
        advantages: new Array<number>(n).fill(fx.advantages[i]!),
        mask: masks[i]!,
        weights: aggregationWeights(masks, c.aggregation, c.max_completion_length)![i]!,
      }));
      const out = sequenceRatioLoss(inputs, fx.logprobs, clip);
      expectRel(out.loss, c.loss, 'loss');
      c.grad.forEach((row, i) => {
        row.forEach((g, t) => {
          expectRel(out.gradLogprobs[i]![t]!, g, `datum ${i} token ${t} ∂L/∂lp`);
        });
      });
      // The wide case has sequences on both sides of the clip (the paper's ε clips almost every one here).
      if (c.name === 'gspo') expect(out.metrics?.['gspo/clip_frac']).toBeGreaterThan(0);
      if (c.name === 'gspo') expect(out.metrics?.['gspo/clip_frac']).toBeLessThan(1);
    });
  }

  it("overlong shaping equals DAPO's eq. 13", () => {
    for (const o of fx.overlong)
      expectRel(overlongPenalty(o.length, o.max_tokens, o.cache), o.penalty, `length ${o.length}`);
    expect(overlongPenalty(100, 16, 0)).toBe(0);
  });

  it('rloo refuses a group of one, naming the group and the key', () => {
    expect(() => estimateAdvantages([[1, 0], [1]], 'rloo')).toThrow(TrainingError);
    expect(() => estimateAdvantages([[1, 0], [1]], 'rloo')).toThrow(
      'advantage_estimator=rloo needs groups of two or more rollouts, but group 1 has 1',
    );
    expect(() => estimateAdvantages([[1], [1, 0]], 'reinforce_pp_baseline')).toThrow(
      'advantage_estimator=reinforce_pp_baseline needs groups of two or more rollouts, but group 0 has 1',
    );
  });
});

const none: AlgorithmKnobsInput = {
  algorithm: null,
  advantageEstimator: null,
  lossFn: null,
  lossFnConfig: null,
  lossAggregation: null,
  importanceRatioLevel: null,
  dynamicSampling: null,
  overlongBufferTokens: null,
  maxTokens: 20,
};

describe('algorithm presets', () => {
  it("without a preset the loop is upstream's (group mean, importance sampling, summed)", () => {
    expect(resolveAlgorithm(none)).toEqual({
      knobs: {
        advantageEstimator: 'mean',
        lossFn: 'importance_sampling',
        lossFnConfig: null,
        lossAggregation: 'sum',
        importanceRatioLevel: 'token',
        dynamicSampling: false,
        overlongBufferTokens: 0,
      },
      preset: undefined,
    });
  });

  it('each preset sets its knobs and documents its formula and paper', () => {
    for (const a of ALGORITHMS) {
      const { knobs } = resolveAlgorithm({ ...none, algorithm: a });
      expect(ALGORITHM_PRESETS[a].paper).toMatch(/\d{4}/);
      expect(knobs).toMatchObject(ALGORITHM_PRESETS[a].knobs(20));
    }
    expect(resolveAlgorithm({ ...none, algorithm: 'dapo' }).knobs).toMatchObject({
      lossFnConfig: { clip_low_threshold: 0.8, clip_high_threshold: 1.28 },
      lossAggregation: 'token',
      dynamicSampling: true,
      overlongBufferTokens: 4,
    });
    expect(resolveAlgorithm({ ...none, algorithm: 'gspo' }).knobs.importanceRatioLevel).toBe('sequence');
    expect(resolveAlgorithm({ ...none, algorithm: 'cispo' }).knobs).toMatchObject({
      lossFn: 'cispo',
      lossFnConfig: null,
    });
  });

  it('an explicit knob overrides the preset; the preset values are returned beside it', () => {
    const { knobs, preset } = resolveAlgorithm({
      ...none,
      algorithm: 'dapo',
      dynamicSampling: false,
      lossAggregation: 'sum',
    });
    expect(knobs.dynamicSampling).toBe(false);
    expect(knobs.lossAggregation).toBe('sum');
    expect(preset).toMatchObject({ dynamicSampling: true, lossAggregation: 'token' });
  });

  it('refuses a knob that would make the preset another algorithm, naming key and value', () => {
    expect(() => resolveAlgorithm({ ...none, algorithm: 'gspo', lossFn: 'cispo' })).toThrow(ConfigError);
    expect(() => resolveAlgorithm({ ...none, algorithm: 'gspo', lossFn: 'cispo' })).toThrow(
      'algorithm=gspo cannot take loss_fn=cispo: the preset is defined by loss_fn="ppo"',
    );
    expect(() => resolveAlgorithm({ ...none, algorithm: 'rloo', advantageEstimator: 'grpo' })).toThrow(
      'algorithm=rloo cannot take advantage_estimator=grpo',
    );
    // Restating the defining value is fine.
    expect(() => resolveAlgorithm({ ...none, algorithm: 'gspo', lossFn: 'ppo' })).not.toThrow();
  });

  it('reinforce_pp is REINFORCE++ w/ Baseline (group sampling); its plain variant is allowed, another estimator not', () => {
    expect(resolveAlgorithm({ ...none, algorithm: 'reinforce_pp' }).knobs.advantageEstimator).toBe(
      'reinforce_pp_baseline',
    );
    const plain = resolveAlgorithm({ ...none, algorithm: 'reinforce_pp', advantageEstimator: 'reinforce_pp' });
    expect(plain.knobs).toMatchObject({ advantageEstimator: 'reinforce_pp', lossFn: 'ppo', lossAggregation: 'token' });
    expect(() => resolveAlgorithm({ ...none, algorithm: 'reinforce_pp', advantageEstimator: 'grpo' })).toThrow(
      'algorithm=reinforce_pp cannot take advantage_estimator=grpo',
    );
  });

  it('refuses a negative or inverted clip range and a sequence ratio without ppo', () => {
    expect(() =>
      resolveAlgorithm({
        ...none,
        lossFn: 'ppo',
        lossFnConfig: { clip_low_threshold: -0.2, clip_high_threshold: 1.2 },
      }),
    ).toThrow('loss_fn_config.clip_low_threshold=-0.2 is negative');
    expect(() =>
      resolveAlgorithm({
        ...none,
        algorithm: 'ppo',
        lossFnConfig: { clip_low_threshold: 1.2, clip_high_threshold: 0.8 },
      }),
    ).toThrow('loss_fn_config has clip_low_threshold=1.2 above clip_high_threshold=0.8: the range is inverted');
    expect(() =>
      resolveAlgorithm({ ...none, importanceRatioLevel: 'sequence', lossFn: 'importance_sampling' }),
    ).toThrow('importance_ratio_level=sequence (GSPO) takes loss_fn=ppo');
    expect(() => resolveAlgorithm({ ...none, overlongBufferTokens: 21 })).toThrow(
      'overlong_buffer_tokens=21 is more than max_tokens=20',
    );
  });
});
