/**
 * The RL training config (upstream `rl/train.Config`), one zod schema with a description and a default per field,
 * and what the loop needs besides it. Non-serialisable inputs (dataset builder, evaluators, service client,
 * callbacks) are {@link RLTrainDeps}.
 */
import { BUILT_IN_LEARNING_RATES, type Datum, type TokenCompleter } from '@cookbook/core';
import { POLICY_GRADIENT_LOSS_FNS } from '@cookbook/tinker-wire';
import type { EnvGroupBuilder, RLDatasetBuilder, TrajectoryGroup } from '@cookbook/training';
import {
  checkpointConfigShape,
  type EvaluatorOrBuilder,
  infrequentEvalEveryField,
  loadCheckpointOptimizerField,
  type RunOutputDeps,
  type RunResult,
  runConfigShape,
  type SamplingClientEvaluator,
  trainingConfigShape,
} from '@cookbook/training';
import { z } from 'zod';
import { ADVANTAGE_ESTIMATORS } from '../advantages.js';
import { ALGORITHMS } from '../algorithms.js';
import type { RLSamplingClient, RLServiceClient } from '../clients.js';
import type { DatumMetadata } from '../data-processing.js';
import { IMPORTANCE_RATIO_LEVELS, LOSS_AGGREGATIONS } from '../loss-variants.js';

/** Streaming minibatches: train on each minibatch of groups as soon as its rollouts finish. */
export const StreamMinibatchConfigSchema = z.object({
  groupsPerBatch: z.number().int().positive().describe('Groups rolled out per training step'),
  numMinibatches: z
    .number()
    .int()
    .positive()
    .describe('forward_backward calls per optimizer substep; each runs once its groups are done'),
});
export type StreamMinibatchConfig = z.infer<typeof StreamMinibatchConfigSchema>;

/** Asynchronous off-policy training with a staleness cap. */
export const AsyncConfigSchema = z.object({
  maxStepsOffPolicy: z
    .number()
    .int()
    .nonnegative()
    .describe('A group sampled by a policy more than this many steps old is discarded and resampled'),
  groupsPerBatch: z.number().int().positive().describe('Groups per training step (also the number of samplers)'),
});
export type AsyncConfig = z.infer<typeof AsyncConfigSchema>;

/**
 * RL learning rate of the built-in `local/*` stand-ins when `learning_rate` is null: the model catalog's
 * (`BUILT_IN_LEARNING_RATES.rl`, `@cookbook/core`, where the measurement behind it is noted).
 */
export const TINY_MODEL_RL_LR = BUILT_IN_LEARNING_RATES.rl;

/** The losses an RL loop can ask the service for: the built-in policy-gradient losses (declared in the wire). */
export const RL_LOSSES = POLICY_GRADIENT_LOSS_FNS;

/** What the loop does to the advantages before training: `none` (RL), or a diagnostic control. */
export const ADVANTAGE_TRANSFORMS = ['none', 'negate', 'zero'] as const;
/** One of {@link ADVANTAGE_TRANSFORMS}. */
export type AdvantageTransform = (typeof ADVANTAGE_TRANSFORMS)[number];

/** The RL training config. */
export const RLTrainConfigSchema = z.object({
  ...runConfigShape,
  ...checkpointConfigShape,
  modelName: trainingConfigShape.modelName,
  learningRate: trainingConfigShape.learningRate.describe(
    'Adam learning rate (constant); null = 1e-3 for local/* tiny models, else hyperparam_utils.get_lr / 10',
  ),
  maxTokens: z.number().int().positive().default(256).describe('Most tokens sampled per turn'),
  temperature: z.number().nonnegative().default(1).describe('Sampling temperature'),
  loraRank: trainingConfigShape.loraRank,
  evalEvery: z.number().int().nonnegative().default(20).describe('Evaluate the test set every N steps (0 = never)'),
  infrequentEvalEvery: infrequentEvalEveryField,
  numSubsteps: z.number().int().positive().default(1).describe('Optimizer steps per batch'),
  algorithm: z
    .enum(ALGORITHMS)
    .nullable()
    .default(null)
    .describe(
      'Preset that sets the knobs of one RL algorithm together (grpo, dr_grpo, dapo, gspo, rloo, reinforce_pp, ppo, ' +
        "cispo); a knob given explicitly overrides it, and config.json records both. null = upstream's loop",
    ),
  advantageEstimator: z
    .enum(ADVANTAGE_ESTIMATORS)
    .nullable()
    .default(null)
    .describe(
      'mean (reward − group mean), grpo (÷ group std), rloo (leave-one-out), reinforce_pp (whole-batch ' +
        "normalisation); null = the algorithm preset's, else mean",
    ),
  lossFn: z
    .enum(RL_LOSSES)
    .nullable()
    .default(null)
    .describe("Policy-gradient loss computed by the service; null = the algorithm preset's, else importance_sampling"),
  lossFnConfig: z
    .record(z.string(), z.number())
    .nullable()
    .default(null)
    .describe(
      'Loss settings as JSON, e.g. {"clip_low_threshold":0.8,"clip_high_threshold":1.2}; null = the preset\'s, else ' +
        'the service defaults',
    ),
  lossAggregation: z
    .enum(LOSS_AGGREGATIONS)
    .nullable()
    .default(null)
    .describe(
      "sum (the service sum), token (÷ trained tokens of the batch), sequence (each sequence's mean, averaged), " +
        "constant (÷ sequences × max_tokens, Dr. GRPO); sent as token weights. null = the preset's, else sum",
    ),
  importanceRatioLevel: z
    .enum(IMPORTANCE_RATIO_LEVELS)
    .nullable()
    .default(null)
    .describe(
      'token (the built-in losses) or sequence (GSPO: one length-normalised ratio per sequence, a client-side loss ' +
        "through forward_backward_custom, one extra forward pass); null = the preset's, else token",
    ),
  dynamicSampling: z
    .boolean()
    .nullable()
    .default(null)
    .describe(
      "DAPO: roll the step's problems out again until the batch holds groups_per_batch groups with signal (or the " +
        'rounds run out); the async loop redraws each problem without signal instead; not with ' +
        "stream_minibatch_config. null = the preset's, else false",
    ),
  dynamicSamplingMaxRounds: z
    .number()
    .int()
    .positive()
    .default(4)
    .describe(
      'Dynamic sampling: most rollout rounds per step (the first included); in the async loop, most draws per problem',
    ),
  overlongBufferTokens: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .default(null)
    .describe(
      'DAPO overlong shaping: a turn within this many tokens of max_tokens loses reward linearly, down to −1 at ' +
        "max_tokens (0 = off); null = the preset's (dapo: max_tokens / 5), else 0",
    ),
  klPenaltyCoef: z.number().nonnegative().default(0).describe('KL penalty against the reference model (0 = off)'),
  klDiscountFactor: z.number().min(0).max(1).default(0).describe('Discount of the KL penalty over future tokens'),
  klReferenceModel: z
    .string()
    .nullable()
    .default(null)
    .describe('Reference model of the KL penalty; null = model_name'),
  computePostKl: z.boolean().default(false).describe('Log the KL between the policy before and after each step'),
  advantageTransform: z
    .enum(ADVANTAGE_TRANSFORMS)
    .default('none')
    .describe(
      'Diagnostic control: negate or zero every advantage before training (none = normal RL). A run with negate or ' +
        'zero must not improve; if it does, the rise comes from somewhere else than RL (e.g. the warm start)',
    ),
  samplingSeed: z
    .number()
    .int()
    .nullable()
    .default(null)
    .describe(
      'Seed of the training rollouts: each turn samples with a seed derived from it, the step, the group and the ' +
        'trajectory, so a run repeats exactly on a sampler that honours seeds (the embedded service does; evaluation ' +
        'rollouts are not seeded and the async loop still depends on timing); null = the sampler picks (random)',
    ),
  removeConstantRewardGroups: z
    .boolean()
    .default(false)
    .describe(
      'Skip groups whose rollouts all earned the same reward (upstream; when every group is constant one is kept)',
    ),
  numGroupsToLog: z.number().int().nonnegative().default(4).describe('Groups per iteration in the HTML transcript'),
  rolloutJsonExport: z
    .boolean()
    .default(true)
    .describe('Write iteration_XXXXXX/train_rollout_summaries.jsonl (one line per trajectory)'),
  maxSteps: z
    .number()
    .int()
    .positive()
    .nullable()
    .default(null)
    .describe('Stop after this many steps; null = every batch of the dataset'),
  loadCheckpointPath: z
    .string()
    .nullable()
    .default(null)
    .describe('Start from these weights (tinker://…/weights/…), fresh optimizer'),
  loadCheckpointOptimizer: loadCheckpointOptimizerField,
  maxConcurrentGroups: z
    .number()
    .int()
    .positive()
    .default(64)
    .describe('Most groups rolled out at once (sync and streaming loops)'),
  streamMinibatchConfig: StreamMinibatchConfigSchema.nullable()
    .default(null)
    .describe('Streaming minibatches (null = off)'),
  asyncConfig: AsyncConfigSchema.nullable().default(null).describe('Asynchronous off-policy training (null = off)'),
});
/** The parsed RL config. */
export type RLTrainConfig = z.infer<typeof RLTrainConfigSchema>;
/** The RL config before defaults (what callers write). */
export type RLTrainConfigInput = z.input<typeof RLTrainConfigSchema>;

/** What the loop needs besides its config. */
export interface RLTrainDeps extends RunOutputDeps {
  /** Builds the train (and optional test) dataset; runs before anything is written. */
  datasetBuilder: RLDatasetBuilder;
  /** Default: a ServiceClient on `baseUrl` (or the environment / embedded service), closed at the end. */
  serviceClient?: RLServiceClient;
  /** Extra sampling evaluators (or builders, `@cookbook/eval`), run with the test set every `evalEvery` steps. */
  evaluators?: readonly EvaluatorOrBuilder<SamplingClientEvaluator>[];
  /**
   * Sampling evaluators (or builders) too slow for every `evalEvery` (e.g. a benchmark), run every
   * `infrequentEvalEvery` steps.
   */
  infrequentEvaluators?: readonly EvaluatorOrBuilder<SamplingClientEvaluator>[];
  /** Policy over a sampler. Default: TinkerTokenCompleter with maxTokens and temperature. */
  makePolicy?: (sampler: RLSamplingClient) => TokenCompleter;
  /** Called after each step's metrics are logged. */
  onStep?: (step: number, metrics: Record<string, number>) => void;
  /**
   * Adjusts the assembled datums before training (after advantages and the KL penalty): e.g. on-policy distillation
   * subtracts a teacher's reverse KL from `advantages`. May mutate `data_D`'s loss inputs; returns metrics to log.
   */
  adjustData?: (data_D: Datum[], info: AdjustDataInfo) => Promise<Record<string, number>>;
}

/** What {@link RLTrainDeps.adjustData} sees besides the datums. */
export interface AdjustDataInfo {
  /** Group and trajectory of each datum (indices into `groups_P`). */
  metadata_D: readonly DatumMetadata[];
  groups_P: readonly TrajectoryGroup[];
  /** The builder of each group (same order as `groups_P`). */
  builders_P: readonly EnvGroupBuilder[];
  /** The loop's service client (to create samplers, e.g. a teacher). */
  service: RLServiceClient;
  /** The training step. */
  step: number;
}

/** What a run returns. */
export type RLTrainResult = RunResult;
