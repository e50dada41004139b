import { parseConfig } from '@cookbook/core';
import {
  OffPolicyDistillationConfigSchema,
  OnPolicyDistillationConfigSchema,
  SdftConfigSchema,
} from '@cookbook/distillation';
import { GemTrainConfigSchema } from '@cookbook/gem';
import { DpoTrainConfigSchema } from '@cookbook/preference';
import { RLTrainConfigSchema } from '@cookbook/rl';
import { SupervisedTrainConfigSchema } from '@cookbook/supervised';
import { type PlannedFields, planRun, resolveRunPlan } from '@cookbook/training';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { dpoSchema } from './dpo.js';
import { gemSchema } from './gem.js';
import { mathRlSchema } from './math-rl.js';
import { multiplayerSchema } from './multiplayer.js';
import { offPolicyDistillationSchema } from './off-policy-distillation.js';
import { onPolicyDistillationSchema } from './on-policy-distillation.js';
import { promptDistillationSchema } from './prompt-distillation.js';
import { rlBasicSchema } from './rl-basic.js';
import { sdftSchema } from './sdft.js';
import { slBasicSchema } from './sl-basic.js';
import { slLoopSchema } from './sl-loop.js';
import { vlmClassifierSchema } from './vlm-classifier.js';

// Each recipe hands its library loop a plan built from the command line's parse (`planRun`, no second parse). That is
// only sound while the recipe's schema declares the loop's fields as the loop does: the plan of the command line's
// values must equal what the loop's own parse of them would give.
const pairs: [string, z.ZodType, z.ZodType<PlannedFields>, readonly string[]][] = [
  ['sl_basic', slBasicSchema, SupervisedTrainConfigSchema, ['learning_rate=3e-4', 'renderer_name=role_colon']],
  ['vlm_classifier', vlmClassifierSchema, SupervisedTrainConfigSchema, ['batch_size=2']],
  ['sl_loop (its own plan: no loop schema of its own)', slLoopSchema, slLoopSchema, ['learning_rate=1e-3']],
  ['prompt_distillation', promptDistillationSchema, SupervisedTrainConfigSchema, ['batch_size=2']],
  ['dpo', dpoSchema, DpoTrainConfigSchema, ['dpo_beta=0.5', 'max_length=64']],
  ['sdft', sdftSchema, SdftConfigSchema, ['topk=0', 'learning_rate=1e-4']],
  ['gem', gemSchema, GemTrainConfigSchema, ['num_env=2', 'env_wrappers=concat_chat']],
  ['off_policy_distillation', offPolicyDistillationSchema, OffPolicyDistillationConfigSchema, ['n_teacher_targets=8']],
  ['on_policy_distillation', onPolicyDistillationSchema, OnPolicyDistillationConfigSchema, ['kl_penalty_coef=0.5']],
  ['rl_basic', rlBasicSchema, RLTrainConfigSchema, ['algorithm=grpo', 'kl_penalty_coef=0.1']],
  ['math_rl', mathRlSchema, RLTrainConfigSchema, ['group_size=4']],
  ['multiplayer', multiplayerSchema, RLTrainConfigSchema, ['max_tokens=16']],
];

describe("a recipe's plan from the command line", () => {
  it.each(pairs)('%s: equals the loop parse of the same values', (_name, recipeSchema, loopSchema, args) => {
    for (const argv of [[], args]) {
      const cli = parseConfig(recipeSchema, [...argv], {}, { keyStyle: 'snake_case' }) as PlannedFields;
      const planned = planRun(loopSchema, cli, { loop: 'rl' });
      expect(planned.config).toEqual(resolveRunPlan(loopSchema, cli, { loop: 'rl' }).config);
    }
  });
});
