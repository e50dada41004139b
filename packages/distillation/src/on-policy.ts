/**
 * On-policy distillation (upstream `distillation/train_on_policy.py`): the RL loop of `@cookbook/rl` on prompt-only
 * environments (reward 0), with the teacher's per-token reverse KL folded into the advantages after every batch of
 * rollouts (`adjustData`). Several prompt sets can be trained together, each scored by its own teacher; the metrics
 * are `teacher_kl` (mean reverse KL per sampled token, what the run drives down) and `teacher_kl/dataset_{i}`.
 */

import { performance } from 'node:perf_hooks';
import { ConfigError, recordTime } from '@cookbook/core';
import {
  type RLTrainConfig,
  RLTrainConfigSchema,
  type RLTrainDeps,
  type RLTrainResult,
  rlPlanOptions,
  train,
} from '@cookbook/rl';
import { planRun, type RLDataset, type RLDatasetBuilder, type RunPlan, resolveRunPlan } from '@cookbook/training';
import { z } from 'zod';
import { CompositeDataset, datasetIndexOf } from './prompt-env.js';
import { incorporateTeacherKl } from './reverse-kl.js';
import { checkSameTokenizer, createTeacher, type Teacher, type TeacherSpec, teacherConfigShape } from './teacher.js';

/** The on-policy distillation config: the RL loop's, with the KL penalty aimed at a teacher. */
export const OnPolicyDistillationConfigSchema = RLTrainConfigSchema.omit({
  klPenaltyCoef: true,
  klDiscountFactor: true,
  klReferenceModel: true,
  removeConstantRewardGroups: true,
}).extend({
  ...teacherConfigShape,
  klPenaltyCoef: z
    .number()
    .positive()
    .default(1)
    .describe('Weight of the reverse KL to the teacher in the advantages (the only training signal)'),
  klDiscountFactor: z
    .number()
    .min(0)
    .max(1)
    .default(0)
    .describe('Discount of future reverse KL: each token also answers for later ones (0 = each token its own)'),
  teacherConcurrency: z.number().int().positive().default(64).describe('Most teacher logprob calls in flight'),
});
/** The parsed on-policy distillation config. */
export type OnPolicyDistillationConfig = z.infer<typeof OnPolicyDistillationConfigSchema>;
/** The config before defaults. */
export type OnPolicyDistillationConfigInput = z.input<typeof OnPolicyDistillationConfigSchema>;

/** One prompt set and the teacher that scores the student's answers to it. */
export interface DistillationDataset {
  /** Builds the prompt set (prompt-only envs, e.g. a `PromptDataset`). Its test set, if any, is not used. */
  builder: RLDatasetBuilder | (() => Promise<RLDataset>);
  /** This set's teacher. Default: the config's `teacherModel` / `teacherCheckpoint`. */
  teacher?: TeacherSpec;
}

/** What the loop needs besides its config. */
export interface OnPolicyDistillationDeps extends Omit<RLTrainDeps, 'datasetBuilder' | 'adjustData'> {
  /** The prompt sets; each batch holds every set's batch (the run is as long as the shortest set). */
  datasets: readonly DistillationDataset[];
}

/**
 * Runs on-policy distillation: the student samples answers to the prompts, each dataset's teacher scores them, and
 * the RL update lowers the reverse KL. Resumes like the RL loop.
 * @throws ConfigError when a teacher's tokenizer differs from the student's.
 */
export async function trainOnPolicyDistillation(
  input: OnPolicyDistillationConfigInput | RunPlan<OnPolicyDistillationConfig>,
  deps: OnPolicyDistillationDeps,
): Promise<RLTrainResult> {
  const plan = resolveRunPlan(OnPolicyDistillationConfigSchema, input, { loop: 'rl', hparams: deps.hparams });
  const config = plan.config;
  const log = deps.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const specs: TeacherSpec[] = deps.datasets.map(
    (d) => d.teacher ?? { baseModel: config.teacherModel, checkpoint: config.teacherCheckpoint },
  );
  const teachers = new Map<number, Promise<Teacher>>();
  const teacherOf = (i: number, service: Parameters<typeof createTeacher>[0]) => {
    let t = teachers.get(i);
    if (t === undefined) {
      t = createTeacher(service, specs[i]!, config.modelName).then((teacher) => {
        log(`teacher of dataset ${i}: ${teacher.description}`);
        return teacher;
      });
      teachers.set(i, t);
    }
    return t;
  };
  const { datasets: _datasets, ...rest } = deps;
  // The RL loop's plan, from this one (already parsed: RL's own fields, the KL aimed at the teacher turned off).
  const rlFields = Object.fromEntries(
    Object.keys(RLTrainConfigSchema.shape).map((key) => [key, (config as Record<string, unknown>)[key]]),
  ) as RLTrainConfig;
  const rlConfig: RLTrainConfig = {
    ...rlFields,
    klPenaltyCoef: 0,
    klDiscountFactor: 0,
    klReferenceModel: null,
    removeConstantRewardGroups: false,
  };
  return train(planRun(RLTrainConfigSchema, rlConfig, rlPlanOptions(plan.recorded)), {
    ...rest,
    datasetBuilder: async () => {
      if (deps.datasets.length === 0) throw new ConfigError('on-policy distillation needs at least one dataset');
      // A named teacher model is checked before anything is written; a checkpoint's base model at the first step.
      for (const s of specs) if (s.baseModel) checkSameTokenizer(config.modelName, s.baseModel);
      const built = await Promise.all(deps.datasets.map((d) => d.builder()));
      const trains = built.map((b) => ('train' in b ? b.train : b));
      return { train: new CompositeDataset(trains) };
    },
    adjustData: async (data_D, info) => {
      const datasetOf_D = info.metadata_D.map((m) => datasetIndexOf(info.builders_P[m.groupIdx]));
      const used = [...new Set(datasetOf_D)];
      const samplers: Teacher['sampler'][] = [];
      for (const i of used) samplers[i] = (await teacherOf(i, info.service)).sampler;
      const start = performance.now();
      const metrics = await incorporateTeacherKl(data_D, datasetOf_D, samplers, {
        coef: config.klPenaltyCoef,
        discount: config.klDiscountFactor,
        concurrency: config.teacherConcurrency,
      });
      recordTime(metrics, 'teacher', start);
      return metrics;
    },
  });
}
