/** The algorithm knobs inside the RL loop (fake service): what reaches the service, config.json, the stops. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModelInput, TrainingError } from '@cookbook/core';
import type { Action, Env, EnvGroupBuilder, RLDataset, StepResult } from '@cookbook/training';
import { describe, expect, it } from 'vitest';
import { BANDIT_PROMPT, FakeService, GOOD } from '../__fixtures__/fake-tinker.js';
import type { RLTrainConfigInput } from './config.js';
import { train } from './train.js';

class BanditEnv implements Env {
  constructor(readonly goodToken: number) {}
  async initialObservation() {
    return { observation: BANDIT_PROMPT, stopCondition: [0] };
  }
  async step(action: Action): Promise<StepResult> {
    const correct = action[0] === this.goodToken ? 1 : 0;
    return {
      reward: correct,
      episodeDone: true,
      nextObservation: ModelInput.empty(),
      nextStopCondition: [0],
      metrics: {},
    };
  }
}

function setup(overrides: Partial<RLTrainConfigInput>, goodToken = GOOD, batches = 6, initialTheta = 0) {
  const logPath = join(mkdtempSync(join(tmpdir(), 'rl-algorithms-')), 'run');
  // Refuses any policy-loss input the hosted service does not take (weights included).
  const service = new FakeService({ hostedInputsOnly: true, initialTheta });
  const builder: EnvGroupBuilder = { makeEnvs: async () => Array.from({ length: 4 }, () => new BanditEnv(goodToken)) };
  const dataset: RLDataset = { length: batches, getBatch: () => [builder, builder] };
  const config: RLTrainConfigInput = {
    logPath,
    learningRate: 0.5,
    maxTokens: 1,
    saveEvery: 0,
    evalEvery: 0,
    numGroupsToLog: 0,
    behaviorIfLogDirExists: 'raise',
    samplingSeed: 3,
    ...overrides,
  };
  const deps = {
    datasetBuilder: async () => ({ train: dataset }),
    serviceClient: service,
    console: false,
    progress: false,
  };
  return { logPath, service, config, deps };
}

const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const readRows = (logPath: string) =>
  readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, number>);

describe('algorithm presets in the loop', () => {
  it('config.json records the knobs used and the preset values; an explicit knob wins', async () => {
    const { logPath, service, config, deps } = setup({ algorithm: 'grpo', lossAggregation: 'token' });
    await train(config, deps);
    const saved = readJson(join(logPath, 'config.json'));
    expect(saved).toMatchObject({
      algorithm: 'grpo',
      advantage_estimator: 'grpo',
      loss_fn: 'ppo',
      loss_fn_config: { clip_low_threshold: 0.8, clip_high_threshold: 1.2 },
      loss_aggregation: 'token',
      algorithm_preset: { advantage_estimator: 'grpo', loss_aggregation: 'sequence' },
    });
    const trainer = service.trainers[0]!;
    expect(trainer.lossFns.every((l) => l === 'ppo')).toBe(true);
    // token aggregation: each step's trained tokens (8 rollouts × 1 action token) weigh 1/8, folded into the advantage
    // (the hosted ppo takes no weights): each datum's action token carries its trajectory's GRPO advantage / 8.
    expect(trainer.weightsSeen.every((w) => w === undefined)).toBe(true);
    const recorded = readFileSync(join(logPath, 'iteration_000000', 'train_rollout_summaries.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { advantage: number }).advantage);
    expect(recorded).toHaveLength(8);
    expect(recorded.some((a) => a !== 0)).toBe(true);
    const sent = trainer.advantagesSeen.slice(0, 8).map((a) => a.at(-1)!);
    sent.forEach((a, i) => {
      expect(a).toBeCloseTo(recorded[i]! / 8, 6);
    });
  });

  it('refuses loss_aggregation with dro, whose loss the token weight does not fold into, before anything runs', async () => {
    const { service, config, deps } = setup({ lossFn: 'dro', lossFnConfig: { beta: 0.1 }, lossAggregation: 'token' });
    await expect(train(config, deps)).rejects.toThrow(
      'loss_aggregation=token cannot run with loss_fn=dro: the aggregation is a token weight folded into the advantage',
    );
    expect(service.trainers).toHaveLength(0);
  });

  it('without a preset nothing changes: importance sampling, no weights', async () => {
    const { service, config, deps } = setup({}, GOOD, 2);
    await train(config, deps);
    expect(service.trainers[0]!.lossFns).toEqual(['importance_sampling', 'importance_sampling']);
    expect(service.trainers[0]!.weightsSeen.every((w) => w === undefined)).toBe(true);
  });

  it('gspo trains through forward_backward_custom and learns', async () => {
    // The bandit's sampler and learner agree (on-policy): the sequence ratio is 1, inside the clip, so GSPO moves θ.
    const { service, config, deps } = setup({ algorithm: 'gspo', learningRate: 4 }, GOOD, 8);
    await train(config, deps);
    const trainer = service.trainers[0]!;
    expect(trainer.calls.filter((c) => c === 'forward_backward_custom')).toHaveLength(8);
    expect(trainer.calls).not.toContain('forward_backward');
    expect(trainer.theta).toBeGreaterThan(0.5);
  });

  it('dynamic sampling draws again until groups carry signal and logs what it drew', async () => {
    const { logPath, config, deps } = setup({ algorithm: 'dapo', dynamicSamplingMaxRounds: 3 }, GOOD, 3);
    await train(config, deps);
    const rows = readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, number>);
    for (const r of rows) {
      expect(r['dynamic_sampling/groups_drawn']).toBe(2 * r['dynamic_sampling/rounds']!);
      expect(r['dynamic_sampling/groups_kept']).toBeGreaterThan(0);
    }
  });

  it('dynamic sampling that can never fill a batch stops with the count of groups drawn', async () => {
    // Reward only for a token never sampled: every group is constant.
    const { config, deps } = setup({ algorithm: 'dapo', dynamicSamplingMaxRounds: 3 }, 77, 2);
    const run = train(config, deps);
    await expect(run).rejects.toThrow(TrainingError);
    await expect(train({ ...config, logPath: `${config.logPath}-2` }, deps)).rejects.toThrow(
      'dynamic sampling at step 0: none of the 6 groups drawn in 3 rounds had signal',
    );
  });

  it('refuses a bad combination before anything runs, naming key and value', async () => {
    const { service, config, deps } = setup({ algorithm: 'gspo', lossFn: 'importance_sampling' });
    await expect(train(config, deps)).rejects.toThrow(
      'algorithm=gspo cannot take loss_fn=importance_sampling: the preset is defined by loss_fn="ppo"',
    );
    expect(service.trainers).toHaveLength(0);
    const streamed = setup({ algorithm: 'dapo', streamMinibatchConfig: { groupsPerBatch: 2, numMinibatches: 2 } });
    await expect(train(streamed.config, streamed.deps)).rejects.toThrow(
      'dynamic_sampling=true runs in the synchronous and the async loop, not with stream_minibatch_config',
    );
    expect(streamed.service.trainers).toHaveLength(0);
  });

  it('async: a group without signal is drawn again, never trained on; the draws are logged', async () => {
    // P(GOOD) = σ(2) ≈ 0.88 from the start: most groups of 4 are all good (no signal) and get drawn again.
    const { logPath, service, config, deps } = setup(
      { algorithm: 'dapo', dynamicSamplingMaxRounds: 50, asyncConfig: { maxStepsOffPolicy: 1, groupsPerBatch: 2 } },
      GOOD,
      4,
      2,
    );
    await train(config, deps);
    const rows = readRows(logPath);
    expect(rows).toHaveLength(4);
    let drawn = 0;
    for (const r of rows) {
      expect(r['dynamic_sampling/groups_kept']).toBe(2);
      expect(r['dynamic_sampling/groups_drawn']).toBeGreaterThanOrEqual(2);
      expect(r['dynamic_sampling/rounds']).toBeLessThanOrEqual(50);
      drawn += r['dynamic_sampling/groups_drawn']!;
    }
    expect(drawn).toBeGreaterThan(8);
    expect(rows.some((r) => r['dynamic_sampling/extra_ac_tokens']! > 0)).toBe(true);
    // Every trained rollout came from a group with signal: in a group of mixed rewards no GRPO advantage is 0.
    const trained = service.trainers[0]!.advantagesSeen.map((a) => a.at(-1)!);
    expect(trained).toHaveLength(4 * 2 * 4);
    expect(trained.every((a) => a !== 0)).toBe(true);
  });

  it('async: dynamic sampling that can never fill a batch stops with the count of groups drawn', async () => {
    const { config, deps } = setup(
      { algorithm: 'dapo', dynamicSamplingMaxRounds: 3, asyncConfig: { maxStepsOffPolicy: 1, groupsPerBatch: 2 } },
      77,
      2,
    );
    await expect(train(config, deps)).rejects.toThrow(
      /^dynamic sampling at step 0: none of the \d+ groups drawn had signal .*dynamic_sampling_max_rounds=3 times/,
    );
  });
});
