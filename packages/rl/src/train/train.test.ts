import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lossInput, ModelInput, tensorFromFloat32 } from '@cookbook/core';
import { readCheckpoints } from '@cookbook/logging';
import type { Action, Env, EnvGroupBuilder, RLDataset, SamplingClientEvaluator, StepResult } from '@cookbook/training';
import { describe, expect, it } from 'vitest';
import { BAD, BANDIT_PROMPT, FakeService, GOOD } from '../__fixtures__/fake-tinker.js';
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
      metrics: { correct },
    };
  }
}

function banditDataset(numBatches: number, batchSize: number, groupSize: number, goodToken = GOOD): RLDataset {
  const builder: EnvGroupBuilder = {
    makeEnvs: async () => Array.from({ length: groupSize }, () => new BanditEnv(goodToken)),
    logtreeTag: () => 'bandit',
  };
  return { length: numBatches, getBatch: () => Array.from({ length: batchSize }, () => builder) };
}

function readRows(logPath: string): Record<string, number>[] {
  return readFileSync(join(logPath, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, number>);
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

function setup(overrides: Partial<RLTrainConfigInput> = {}, opts: { goodToken?: number; batches?: number } = {}) {
  const logPath = join(mkdtempSync(join(tmpdir(), 'rl-train-')), 'run');
  const service = new FakeService();
  const config: RLTrainConfigInput = {
    logPath: logPath,
    learningRate: 0.5,
    maxTokens: 1,
    saveEvery: 4,
    evalEvery: 0,
    numGroupsToLog: 1,
    behaviorIfLogDirExists: 'raise',
    ...overrides,
  };
  const dataset = banditDataset(opts.batches ?? 8, 2, 4, opts.goodToken ?? GOOD);
  const deps = {
    datasetBuilder: async () => ({ train: dataset }),
    serviceClient: service,
    console: false,
    progress: false,
  };
  return { logPath, service, config, deps };
}

describe('sync training on a bandit (fake service)', () => {
  it('raises the reward; writes metrics, transcripts and checkpoints', async () => {
    const { logPath, service, config, deps } = setup();
    const result = await train(config, deps);
    expect(result.stepsRun).toBe(8);
    const theta = service.trainers[0]!.theta;
    expect(sigmoid(theta)).toBeGreaterThan(0.85);
    const rows = readRows(logPath);
    expect(rows.map((r) => r.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const first = rows[0]!['env/all/reward/total']!;
    const last = rows[7]!['env/all/reward/total']!;
    expect(last).toBeGreaterThan(first);
    for (const key of [
      'optim/kl_sample_train_v1',
      'optim/kl_sample_train_v2',
      'optim/entropy',
      'env/all/ac_tokens_per_turn',
      'env/all/correct',
      'time/total',
      'time/sample',
      'time/train',
      'progress/done_frac',
    ]) {
      expect(rows[0]).toHaveProperty([key]);
    }
    // On-policy: the learner's logprobs equal the sampler's before the update.
    expect(Math.abs(rows[0]!['optim/kl_sample_train_v1']!)).toBeLessThan(1e-6);
    expect(existsSync(join(logPath, 'iteration_000000', 'train.html'))).toBe(true);
    const summaries = readFileSync(join(logPath, 'iteration_000000', 'train_rollout_summaries.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(summaries).toHaveLength(8);
    expect(summaries[0]).toMatchObject({
      schema_version: 1,
      split: 'train',
      iteration: 0,
      group_idx: 0,
      traj_idx: 0,
      tags: ['bandit'],
    });
    expect(summaries[0].steps[0]).toMatchObject({ step_idx: 0, ob_len: 2, ac_len: 1, episode_done: true });
    // Ours (for the dashboard): the count before sampling, and each trajectory's advantage: within a group they sum
    // to 0 and a reward above the group's mean has a positive one.
    for (const s of summaries) expect(s.rollouts_total).toBe(8);
    const byGroup = new Map<number, { total_reward: number; advantage: number }[]>();
    for (const s of summaries) byGroup.set(s.group_idx, [...(byGroup.get(s.group_idx) ?? []), s]);
    for (const group of byGroup.values()) {
      const mean = group.reduce((a, s) => a + s.total_reward, 0) / group.length;
      expect(Math.abs(group.reduce((a, s) => a + s.advantage, 0))).toBeLessThan(1e-9);
      for (const s of group) expect(Math.sign(s.advantage)).toBe(Math.sign(s.total_reward - mean));
    }
    const ckpts = readCheckpoints(logPath);
    expect(ckpts.map((c) => [c.name, c.step])).toEqual([
      ['000004', 4],
      ['final', 8],
    ]);
    expect(ckpts[0]!.state_path).toBeDefined();
    expect(ckpts[0]!.sampler_path).toBeDefined();
  });

  it('with the reward on the other arm the policy moves the other way (advantage sign)', async () => {
    const { service, config, deps } = setup({}, { goodToken: BAD });
    await train(config, deps);
    expect(sigmoid(service.trainers[0]!.theta)).toBeLessThan(0.15);
  });

  it('num_substeps splits each batch into several optimizer steps; loss_fn is passed through', async () => {
    const { service, config, deps } = setup({ numSubsteps: 2, lossFn: 'ppo' }, { batches: 2 });
    await train(config, deps);
    const calls = service.trainers[0]!.calls.filter((c) => c !== 'save_sampler' && c !== 'save_state');
    expect(calls).toEqual(Array(4).fill(['forward_backward', 'optim_step']).flat());
    expect(new Set(service.trainers[0]!.lossFns)).toEqual(new Set(['ppo']));
  });

  it('evaluates the test set every eval_every steps', async () => {
    const { logPath, config, deps } = setup({ evalEvery: 2 }, { batches: 4 });
    await train(config, {
      ...deps,
      datasetBuilder: async () => ({ train: banditDataset(4, 2, 4), test: banditDataset(1, 2, 2) }),
    });
    const rows = readRows(logPath);
    expect(rows[0]).toHaveProperty(['test/env/all/reward/total']);
    expect(rows[1]).not.toHaveProperty(['test/env/all/reward/total']);
    expect(rows[2]).toHaveProperty(['test/env/all/reward/total']);
    expect(existsSync(join(logPath, 'iteration_000002', 'eval_test.html'))).toBe(true);
  });

  it('runs infrequent evaluators every infrequent_eval_every steps, beside the eval_every ones', async () => {
    const { logPath, config, deps } = setup({ evalEvery: 1, infrequentEvalEvery: 3 }, { batches: 4 });
    const seen: { name: string; step: number }[] = [];
    const counter = (name: string): SamplingClientEvaluator => ({
      kind: 'sampling_client',
      name,
      evaluate: async (_client, ctx) => {
        seen.push({ name, step: ctx.step });
        return { [`${name}/calls`]: seen.filter((s) => s.name === name).length };
      },
    });
    await train(config, { ...deps, evaluators: [counter('often')], infrequentEvaluators: [() => counter('rare')] });
    expect(seen.filter((s) => s.name === 'rare').map((s) => s.step)).toEqual([0, 3]);
    expect(seen.filter((s) => s.name === 'often').map((s) => s.step)).toEqual([0, 1, 2, 3]);
    const rows = readRows(logPath);
    expect(rows.map((r) => r['rare/calls'])).toEqual([1, undefined, undefined, 2]);
    expect(rows[3]).toHaveProperty(['time/infrequent_eval']);

    const off = setup({ evalEvery: 1, infrequentEvalEvery: 0 }, { batches: 2 });
    seen.length = 0;
    await train(off.config, { ...off.deps, infrequentEvaluators: [counter('rare')] });
    expect(seen).toEqual([]);
  });

  it('KL penalty against the base model and post-update KL are reported', async () => {
    const { logPath, config, deps } = setup({ klPenaltyCoef: 0.1, computePostKl: true }, { batches: 2 });
    await train(config, deps);
    const rows = readRows(logPath);
    expect(rows[1]).toHaveProperty(['kl_policy_base']);
    expect(rows[1]).toHaveProperty(['kl_pre_post_v1']);
    // Step 0 samples from the base model itself: no divergence yet.
    expect(Math.abs(rows[0]!.kl_policy_base!)).toBeLessThan(1e-6);
    expect(Number.isFinite(rows[1]!.kl_policy_base)).toBe(true);
  });

  it('refuses an existing log dir with behavior raise', async () => {
    const { config, deps } = setup({}, { batches: 1 });
    await train(config, deps);
    await expect(train(config, deps)).rejects.toThrow(/already exists/);
  });
});

describe('resume', () => {
  it('continues at the next batch after the last checkpoint and matches an uninterrupted run', async () => {
    const full = setup({ saveEvery: 2 }, { batches: 6 });
    await train(full.config, full.deps);
    const thetaFull = full.service.trainers[0]!.theta;

    const crashed = setup({ saveEvery: 2 }, { batches: 6 });
    await expect(
      train(crashed.config, {
        ...crashed.deps,
        onStep: (step) => {
          if (step === 4) throw new Error('simulated crash');
        },
      }),
    ).rejects.toThrow('simulated crash');
    // Checkpoint 000004 exists; step 4 was logged after it and must be rewritten, not duplicated.
    const resumed = await train({ ...crashed.config, behaviorIfLogDirExists: 'resume' }, crashed.deps);
    expect(resumed.startStep).toBe(4);
    expect(resumed.stepsRun).toBe(2);
    const thetaResumed = crashed.service.trainers.at(-1)!.theta;
    expect(thetaResumed).toBeCloseTo(thetaFull, 10);
    expect(readRows(crashed.config.logPath).map((r) => r.step)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(readRows(crashed.config.logPath)).toEqual(
      readRows(full.config.logPath).map((r) =>
        expect.objectContaining({ step: r.step, 'env/all/reward/total': r['env/all/reward/total'] }),
      ),
    );
  });
});

describe('rolling checkpoints', () => {
  it('saves resume-only states between periodic ones, keeps only the newest, and resumes from one exactly', async () => {
    const opts = { saveEvery: 3, rollingSaveEvery: 1 };
    const full = setup(opts, { batches: 6 });
    await train(full.config, full.deps);
    const records = readCheckpoints(full.logPath);
    expect(records.map((r) => [r.name, r.rolling === true, r.sampler_path !== undefined])).toEqual([
      ['000001', true, false],
      ['000002', true, false],
      ['000003', false, true],
      ['000004', true, false],
      ['000005', true, false],
      ['final', false, true],
    ]);
    // The rolling states are gone (the final save removed the last); the periodic and final states stay.
    expect([...full.service.states.keys()]).toEqual([records[2]!.state_path, records[5]!.state_path]);

    const crashed = setup(opts, { batches: 6 });
    await expect(
      train(crashed.config, {
        ...crashed.deps,
        onStep: (step) => {
          if (step === 4) throw new Error('simulated crash');
        },
      }),
    ).rejects.toThrow('simulated crash');
    // Step 4's row was written, so the save after it (5 steps, rolling) is recorded too.
    expect(readCheckpoints(crashed.logPath).at(-1)).toMatchObject({ name: '000005', rolling: true });
    const resumed = await train({ ...crashed.config, behaviorIfLogDirExists: 'resume' }, crashed.deps);
    expect(resumed.startStep).toBe(5);
    expect(crashed.service.trainers.at(-1)!.theta).toBe(full.service.trainers[0]!.theta);
    const strip = (rows: Record<string, number>[]) =>
      rows.map((r) => Object.fromEntries(Object.entries(r).filter(([k]) => !k.startsWith('time/'))));
    expect(strip(readRows(crashed.logPath))).toEqual(strip(readRows(full.logPath)));
  });
});

describe('streaming minibatches', () => {
  it('submits a forward_backward per minibatch and one optim_step per substep, and learns', async () => {
    const { service, config, deps } = setup({ streamMinibatchConfig: { groupsPerBatch: 2, numMinibatches: 2 } });
    await train(config, deps);
    const t = service.trainers[0]!;
    const calls = t.calls.filter((c) => c === 'forward_backward' || c === 'optim_step');
    expect(calls.slice(0, 3)).toEqual(['forward_backward', 'forward_backward', 'optim_step']);
    expect(calls.filter((c) => c === 'optim_step')).toHaveLength(8);
    expect(sigmoid(t.theta)).toBeGreaterThan(0.85);
  });

  it('rejects a split that does not divide groups_per_batch', async () => {
    const { config, deps } = setup({ streamMinibatchConfig: { groupsPerBatch: 2, numMinibatches: 3 } });
    await expect(train(config, deps)).rejects.toThrow(/split evenly/);
  });
});

describe('async off-policy training', () => {
  it('never trains on groups older than max_steps_off_policy, and learns', async () => {
    const { logPath, service, config, deps } = setup({
      asyncConfig: { maxStepsOffPolicy: 1, groupsPerBatch: 2 },
    });
    Object.assign(service.options, { sampleDelayMs: 2, trainDelayMs: 5 });
    await train(config, deps);
    const rows = readRows(logPath);
    expect(rows).toHaveLength(8);
    for (const r of rows) {
      expect(r['progress/batch']! - r['sampling_client/step_min']!).toBeLessThanOrEqual(1);
      expect(r['sampling_client/step_max']).toBeLessThanOrEqual(r.step!);
    }
    expect(sigmoid(service.trainers[0]!.theta)).toBeGreaterThan(0.8);
    // Step i + 1's training was sent before step i's optim_step was done (one step in flight ahead).
    expect(service.trainers[0]!.forwardBackwardsSentAhead).toBeGreaterThan(0);
  });

  it('sends no step ahead when that would train off-policy (max_steps_off_policy 0) or past an evaluation', async () => {
    const onPolicy = setup({ asyncConfig: { maxStepsOffPolicy: 0, groupsPerBatch: 2 } });
    Object.assign(onPolicy.service.options, { sampleDelayMs: 1, trainDelayMs: 5 });
    await train(onPolicy.config, onPolicy.deps);
    expect(onPolicy.service.trainers[0]!.forwardBackwardsSentAhead).toBe(0);
    // Evaluations at every step see the sampler after every earlier step, so nothing is sent ahead either.
    const evaluated = setup({ asyncConfig: { maxStepsOffPolicy: 1, groupsPerBatch: 2 }, evalEvery: 1 }, { batches: 4 });
    Object.assign(evaluated.service.options, { sampleDelayMs: 1, trainDelayMs: 5 });
    const stale: number[] = [];
    const probe: SamplingClientEvaluator = {
      kind: 'sampling_client',
      name: 'probe',
      evaluate: async (client, ctx) => {
        // The sampler evaluated holds the trainer's current weights: no update is in flight or missing.
        if ((client as unknown as { theta: number }).theta !== evaluated.service.trainers[0]!.theta)
          stale.push(ctx.step);
        return {};
      },
    };
    await train(evaluated.config, { ...evaluated.deps, evaluators: [probe] });
    expect(stale).toEqual([]);
    expect(evaluated.service.trainers[0]!.forwardBackwardsSentAhead).toBe(0);
    expect(readRows(evaluated.config.logPath).map((r) => r['progress/batch'])).toEqual([0, 1, 2, 3]);
  });

  it('with max_steps_off_policy 0 every group comes from the current policy, and none is sampled only to be discarded', async () => {
    const { logPath, service, config, deps } = setup({
      asyncConfig: { maxStepsOffPolicy: 0, groupsPerBatch: 2 },
    });
    Object.assign(service.options, { sampleDelayMs: 1, trainDelayMs: 10 });
    await train(config, deps);
    const rows = readRows(logPath);
    for (const r of rows) expect(r['sampling_client/step_min']).toBe(r.step);
    // Workers wait for a sampler fresh enough for the step their group would feed instead of sampling stale groups.
    const discarded = rows.reduce((a, r) => a + (r['async/discarded_stale_groups'] ?? 0), 0);
    expect(discarded).toBe(0);
    expect(sigmoid(service.trainers[0]!.theta)).toBeGreaterThan(0.8);
  });
});

describe('async data exhaustion', () => {
  it('stops instead of waiting forever when batches hold fewer groups than groups_per_batch', async () => {
    const { logPath, config, deps } = setup(
      { asyncConfig: { maxStepsOffPolicy: 1, groupsPerBatch: 3 } },
      { batches: 3 },
    );
    // 3 batches × 2 groups = 6 groups: two steps of 3.
    await train(config, deps);
    expect(readRows(logPath).map((r) => r.step)).toEqual([0, 1]);
  });
});

describe('no silent non-learning', () => {
  it('says once when a step has no training signal, counts such steps, and logs frac_groups_with_signal', async () => {
    // Reward only for a token the policy never samples: every group is all-zero, every advantage 0.
    const { logPath, config, deps } = setup({}, { goodToken: 77, batches: 3 });
    const lines: string[] = [];
    await train(config, { ...deps, log: (l) => lines.push(l) });
    const notices = lines.filter((l) => l.includes('has no training signal'));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /^rl: step 0 has no training signal: in every group all rollouts earned the same reward/,
    );
    expect(lines).toContain('rl: 3 of 3 steps had no training signal (all advantages 0)');
    expect(readRows(logPath).map((r) => r['env/all/frac_groups_with_signal'])).toEqual([0, 0, 0]);
  });

  it('stays quiet when groups carry signal', async () => {
    const { logPath, config, deps } = setup({}, { batches: 2 });
    const lines: string[] = [];
    await train(config, { ...deps, log: (l) => lines.push(l) });
    expect(lines.filter((l) => l.includes('no training signal'))).toEqual([]);
    expect(readRows(logPath).some((r) => (r['env/all/frac_groups_with_signal'] ?? 0) > 0)).toBe(true);
  });
});

describe('the adjustData hook', () => {
  it('sees every datum with its group builder and step; its advantages train the policy and its metrics are logged', async () => {
    // The reward is the same for every arm (no signal from the env); the hook alone rewards GOOD tokens.
    const { logPath, service, config, deps } = setup({}, { goodToken: 99 });
    const seen: { step: number; datums: number; tags: (string | undefined)[] }[] = [];
    await train(config, {
      ...deps,
      adjustData: async (data_D, info) => {
        seen.push({ step: info.step, datums: data_D.length, tags: info.builders_P.map((b) => b.logtreeTag?.()) });
        expect(info.metadata_D).toHaveLength(data_D.length);
        let good = 0;
        for (const d of data_D) {
          const target = lossInput(d, 'target_tokens').at(-1);
          good += target === GOOD ? 1 : 0;
          d.lossFnInputs.advantages = tensorFromFloat32(lossInput(d, 'mask').map((m) => (target === GOOD ? m : -m)));
        }
        return { 'hook/good_frac': good / data_D.length };
      },
    });
    expect(seen.map((s) => s.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(seen[0]).toEqual({ step: 0, datums: 8, tags: ['bandit', 'bandit'] });
    expect(sigmoid(service.trainers[0]!.theta)).toBeGreaterThan(0.85);
    const rows = readRows(logPath);
    expect(rows[0]).toHaveProperty(['hook/good_frac']);
    expect(rows[7]!['hook/good_frac']!).toBeGreaterThan(rows[0]!['hook/good_frac']!);
  });
});
