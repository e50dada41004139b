import { getLr, resolveModelRef } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isRunPlan, planRun, resolveRunPlan } from './run-plan.js';
import { LOOP_ADAM, trainingConfigShape } from './training-config.js';

const Schema = z.object({ ...trainingConfigShape, batchSize: z.number().int().positive().default(4) });

describe('resolveRunPlan', () => {
  it('resolves the learning rate from the model per loop kind, and records it in config.json', () => {
    const sl = resolveRunPlan(Schema, { logPath: '/tmp/x' }, { loop: 'supervised' });
    expect(sl.config.learningRate).toBe(1e-2);
    expect(sl.model.kind).toBe('built-in');
    expect(sl.recorded).toMatchObject({ learning_rate: 1e-2, batch_size: 4, model_name: 'local/qwen3-tiny' });
    const rl = resolveRunPlan(Schema, { logPath: '/tmp/x', modelName: 'Qwen/Qwen3-8B' }, { loop: 'rl' });
    expect(rl.config.learningRate).toBe(getLr('Qwen/Qwen3-8B') / 10);
    expect(rl.model).toMatchObject({ kind: 'hosted', repoId: 'Qwen/Qwen3-8B' });
  });

  it('keeps an explicit learning rate, and writes the resolved one over a recipe hparams null', () => {
    const plan = resolveRunPlan(
      Schema,
      { logPath: '/tmp/x', modelName: 'Qwen/Qwen3-8B' },
      { loop: 'supervised', hparams: { learning_rate: null, dataset: 'example' } },
    );
    expect(plan.recorded).toEqual({
      learning_rate: getLr('Qwen/Qwen3-8B'),
      renderer_name: resolveModelRef('Qwen/Qwen3-8B').recommendedRenderer,
      dataset: 'example',
    });
    expect(resolveRunPlan(Schema, { logPath: '/tmp/x', learningRate: 3e-4 }, { loop: 'rl' }).config.learningRate).toBe(
      3e-4,
    );
  });

  it("records what the loop derives, and takes the config's Adam settings where it has them", () => {
    const WithAdam = Schema.extend({ adamBeta1: z.number().default(0.8) });
    const plan = resolveRunPlan(
      WithAdam,
      { logPath: '/tmp/x' },
      { loop: 'rl', record: (c) => ({ lr2: c.learningRate * 2 }) },
    );
    expect(plan.adam).toEqual({ ...LOOP_ADAM, beta1: 0.8 });
    expect(resolveRunPlan(Schema, { logPath: '/tmp/x' }, { loop: 'rl' }).adam).toEqual(LOOP_ADAM);
    expect(plan.recorded).toMatchObject({ learning_rate: 1e-3, lr2: 2e-3 });
  });

  it('is frozen, and refuses a bad value or a model with no rule where the config arrives', () => {
    const plan = resolveRunPlan(Schema, { logPath: '/tmp/x' }, { loop: 'supervised' });
    expect(Object.isFrozen(plan) && Object.isFrozen(plan.config) && Object.isFrozen(plan.recorded)).toBe(true);
    expect(() => resolveRunPlan(Schema, { logPath: '/tmp/x', learningRate: 0 }, { loop: 'rl' })).toThrow(
      /learningRate/,
    );
    expect(() =>
      resolveRunPlan(Schema, { logPath: '/tmp/x', modelName: 'moonshotai/Kimi-K2.6' }, { loop: 'rl' }),
    ).toThrow(/no default learning rate for moonshotai\/Kimi-K2\.6 .*pass learning_rate=/);
  });

  it("names the renderer (the config's, else the model's recommendation) and the tokenizer source, loading neither", () => {
    const hosted = resolveRunPlan(Schema, { logPath: '/tmp/x', modelName: 'Qwen/Qwen3-8B' }, { loop: 'rl' });
    const ref = resolveModelRef('Qwen/Qwen3-8B');
    expect(hosted.rendererName).toBe(ref.recommendedRenderer);
    expect(hosted.rendererName).toBeTypeOf('string');
    expect(hosted.tokenizer).toEqual(ref.tokenizer);
    expect(hosted.config.rendererName).toBeNull();
    expect(hosted.recorded).toMatchObject({ renderer_name: ref.recommendedRenderer });
    const explicit = resolveRunPlan(Schema, { logPath: '/tmp/x', rendererName: 'role_colon' }, { loop: 'rl' });
    expect(explicit.rendererName).toBe('role_colon');
    // A folder's renderer is decided by its files when the loop builds it; the plan does not look at the disk.
    const folder = resolveRunPlan(
      Schema,
      { logPath: '/tmp/x', modelName: '/no/such/folder', learningRate: 1e-4 },
      { loop: 'rl' },
    );
    expect(folder.rendererName).toBeUndefined();
    expect(folder.tokenizer).toBeUndefined();
    expect(folder.recorded).toMatchObject({ renderer_name: null });
  });

  it('plans a config parsed at its edge without parsing it again, and passes a plan through as is', () => {
    const Recipe = Schema.extend({ dataset: z.string().default('example'), batchSize: z.number().default(8) });
    const cli = Recipe.parse({ logPath: '/tmp/x' });
    const plan = planRun(Schema, cli, { loop: 'supervised' });
    // The recipe's own keys are left out, its values of the loop's fields kept, and a missing field gets its default.
    expect(plan.config).toEqual(resolveRunPlan(Schema, cli, { loop: 'supervised' }).config);
    expect(plan.config).not.toHaveProperty('dataset');
    expect(plan.config.batchSize).toBe(8);
    const { loraRank: _rank, ...withoutRank } = cli;
    expect(planRun(Schema, withoutRank, { loop: 'supervised' }).config.loraRank).toBe(32);
    // No second validation: a value is checked where it arrives, not here.
    expect(planRun(Schema, { ...cli, batchSize: -1 }, { loop: 'supervised' }).config.batchSize).toBe(-1);
    expect(isRunPlan(plan)).toBe(true);
    expect(isRunPlan(plan.config)).toBe(false);
    expect(resolveRunPlan(Schema, plan, { loop: 'rl' })).toBe(plan);
  });
});
