import { ModelInput } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import type { Env, EnvGroupBuilder, RLDataset, StepResult } from './env.js';
import {
  LimitedEnv,
  limitDataset,
  RolloutLimitTracker,
  truncationMetrics,
  withRolloutLimits,
} from './rollout-limits.js';

/** An endless env: every step returns a prompt `grow` tokens longer than the last. */
class EndlessEnv implements Env {
  private length = 10;
  constructor(readonly grow = 5) {}
  async initialObservation() {
    return { observation: ModelInput.fromInts(new Array(this.length).fill(1)), stopCondition: [0] };
  }
  async step(action: number[]): Promise<StepResult> {
    this.length += action.length + this.grow;
    return {
      reward: 1,
      episodeDone: false,
      nextObservation: ModelInput.fromInts(new Array(this.length).fill(1)),
      nextStopCondition: [0],
      metrics: { inner: 1 },
    };
  }
}

async function play(env: Env, turns: number, action = [1, 2]): Promise<StepResult[]> {
  await env.initialObservation();
  const out: StepResult[] = [];
  for (let i = 0; i < turns; i++) {
    const s = await env.step(action);
    out.push(s);
    if (s.episodeDone) break;
  }
  return out;
}

describe('rollout limits', () => {
  it('max_turns ends the episode on the limit turn and reports it', async () => {
    const steps = await play(new LimitedEnv(new EndlessEnv(), { maxTurns: 3 }), 10);
    expect(steps).toHaveLength(3);
    const last = steps.at(-1)!;
    expect(last.episodeDone).toBe(true);
    expect(last.nextObservation.length).toBe(0);
    expect(last.reward).toBe(1); // the inner step's reward is kept
    expect(last.metrics).toEqual({ inner: 1, ...truncationMetrics('max_turns') });
    expect(last.logs).toEqual({ truncation: 'max_turns' });
    expect(steps[1]!.metrics).toEqual({ inner: 1 });
  });

  it('max_total_tokens counts the context: prompt + completion, or the next prompt', async () => {
    // Prompts: 10, then 10+2+5 = 17, then 24, 31 tokens; the limit 30 is reached when the next prompt is 31.
    const steps = await play(new LimitedEnv(new EndlessEnv(), { maxTotalTokens: 30 }), 10);
    expect(steps).toHaveLength(3);
    expect(steps.at(-1)!.metrics['truncated/max_tokens']).toBe(1);
    expect(steps.at(-1)!.logs).toEqual({ truncation: 'max_tokens' });
    // A long completion counts too: 10 + 25 ≥ 30 on the first turn.
    const long = await play(new LimitedEnv(new EndlessEnv(0), { maxTotalTokens: 30 }), 10, new Array(25).fill(1));
    expect(long).toHaveLength(1);
  });

  it('max_episode_seconds ends the episode between turns (injected clock)', async () => {
    let now = 1_000;
    const env = new LimitedEnv(new EndlessEnv(), { maxEpisodeSeconds: 2 }, () => now);
    await env.initialObservation();
    now = 2_500;
    expect((await env.step([1])).episodeDone).toBe(false);
    now = 3_000;
    const s = await env.step([1]);
    expect(s.episodeDone).toBe(true);
    expect(s.metrics).toMatchObject({ truncated: 1, 'truncated/timeout': 1, 'truncated/max_turns': 0 });
  });

  it('reports truncated=0 on an episode that ends by itself', async () => {
    const inner: Env = {
      initialObservation: async () => ({ observation: ModelInput.fromInts([1]), stopCondition: [0] }),
      step: async () => ({
        reward: 1,
        episodeDone: true,
        nextObservation: ModelInput.empty(),
        nextStopCondition: [0],
        metrics: {},
      }),
    };
    const [s] = await play(new LimitedEnv(inner, { maxTurns: 1 }), 1);
    expect(s!.metrics).toEqual(truncationMetrics(undefined));
    expect(s!.logs).toBeUndefined();
  });

  it('wraps group builders and data sets, handing group rewards their own envs', async () => {
    const made: Env[] = [];
    const builder: EnvGroupBuilder = {
      makeEnvs: async () => {
        const envs = [new EndlessEnv(), new EndlessEnv()];
        made.push(...envs);
        return envs;
      },
      computeGroupRewards: async (_t, envs) => envs.map((e) => ({ reward: made.includes(e) ? 1 : -1, metrics: {} })),
      logtreeTag: () => 'endless',
    };
    const dataset: RLDataset = { length: 2, getBatch: () => [builder] };
    const limited = limitDataset(dataset, { maxTurns: 1 });
    expect(limited.length).toBe(2);
    const [wrapped] = limited.getBatch(0);
    const envs = await wrapped!.makeEnvs();
    expect(envs.every((e) => e instanceof LimitedEnv)).toBe(true);
    expect(wrapped!.logtreeTag?.()).toBe('endless');
    expect(await wrapped!.computeGroupRewards!([], envs)).toEqual([
      { reward: 1, metrics: {} },
      { reward: 1, metrics: {} },
    ]);
    expect(withRolloutLimits(builder, {}).demonstrations).toBeUndefined();
  });

  it('refuses limits that are not positive', () => {
    expect(() => new RolloutLimitTracker({ maxTurns: 0 })).toThrow(
      /maxTurns must be a positive integer or null, got 0/,
    );
    expect(() => new RolloutLimitTracker({ maxEpisodeSeconds: -1 })).toThrow(/maxEpisodeSeconds/);
    expect(() => new RolloutLimitTracker({ maxTurns: null })).not.toThrow();
  });
});
