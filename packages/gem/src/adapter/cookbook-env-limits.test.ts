/**
 * Rollout limits on GEM games: `GemAdapterOptions.limits` cuts an episode (through rl's own rollout code) and the cut
 * is reported in the last step's metrics and logs, as for every multi-turn env.
 */

import { ConfigError, type ModelInput, type StopCondition, type TokenCompleter } from '@cookbook/core';
import { getRenderer } from '@cookbook/renderers';
import { doGroupRollout, rolloutSummaries } from '@cookbook/rl';
import { getTokenizer } from '@cookbook/tokenizers';
import { describe, expect, it } from 'vitest';
import { make } from '../core/registry.js';
import { applyWrappers, getWrapperFns } from '../wrappers/factory.js';
import { GemRLDataset } from './cookbook-env.js';

const tokenizer = getTokenizer('local/qwen3-tiny');
const renderer = getRenderer('qwen3_disable_thinking', tokenizer);
const makeEnv = () => applyWrappers(make('game:GuessTheNumber-v0-hard'), getWrapperFns('concat'));

/** Always guesses the same valid number: the game goes on (too low / too high) until a limit ends it. */
class StubbornPolicy implements TokenCompleter {
  async complete(_input: ModelInput, _stop: StopCondition) {
    const tokens = tokenizer.encode('\\boxed{1}<|im_end|>');
    return { tokens, maybeLogprobs: tokens.map(() => -0.1) };
  }
}

const dataset = (limits: GemRLDataset['options']['limits']) =>
  new GemRLDataset({
    makeEnv,
    renderer,
    template: 'qwen3_game',
    groupsPerBatch: 1,
    groupSize: 2,
    numBatches: 1,
    seed: 3,
    limits,
  });

describe('GEM games under rollout limits', () => {
  it('max_turns cuts the episode and reports truncated/max_turns and the truncation log', async () => {
    const group = await doGroupRollout(dataset({ maxTurns: 2 }).getBatch(0)[0]!, new StubbornPolicy());
    for (const t of group.trajectories_G) {
      expect(t.transitions).toHaveLength(2);
      const last = t.transitions.at(-1)!;
      expect(last.episodeDone).toBe(true);
      expect(last.metrics).toMatchObject({ truncated: 1, 'truncated/max_turns': 1, 'truncated/max_tokens': 0 });
      expect(last.logs).toMatchObject({ truncation: 'max_turns' });
    }
    const [summary] = rolloutSummaries([group], { split: 'train', iteration: 0 });
    expect(summary!.steps.at(-1)!.logs).toMatchObject({ truncation: 'max_turns' });
  });

  it('max_total_tokens cuts the episode once its context reaches the budget', async () => {
    const [env] = await dataset({ maxTotalTokens: 1 }).getBatch(0)[0]!.makeEnvs();
    await env!.initialObservation();
    const r = await env!.step(tokenizer.encode('\\boxed{1}<|im_end|>'));
    expect(r.episodeDone).toBe(true);
    expect(r.metrics).toMatchObject({ truncated: 1, 'truncated/max_tokens': 1 });
    expect(r.logs).toMatchObject({ truncation: 'max_tokens' });
  });

  it('an episode without limits plays on, and a bad limit is refused', async () => {
    const [env] = await dataset(undefined).getBatch(0)[0]!.makeEnvs();
    await env!.initialObservation();
    const r = await env!.step(tokenizer.encode('\\boxed{1}<|im_end|>'));
    expect(r.episodeDone).toBe(false);
    expect(() => dataset({ maxTurns: 0 }).getBatch(0)).toThrow(ConfigError);
  });
});
