/**
 * The RL algorithm presets (`algorithm=`): each sets the knobs of one published algorithm together (advantage
 * estimator, loss, clip range, aggregation, importance-ratio level, dynamic sampling, overlong shaping). A knob given
 * explicitly overrides its preset value, except the knobs that define the algorithm (GSPO without its sequence ratio
 * is not GSPO): those are refused. {@link resolveAlgorithm} returns the knobs used and the preset's values, so
 * `config.json` records both.
 */

import { ConfigError } from '@cookbook/core';
import type { PolicyGradientLossFn } from '@cookbook/tinker-wire';

import type { AdvantageEstimator } from './advantages.js';
import { checkLossAggregation, type ImportanceRatioLevel, type LossAggregation } from './loss-variants.js';

/** The presets, by `algorithm` value. */
export const ALGORITHMS = ['grpo', 'dr_grpo', 'dapo', 'gspo', 'rloo', 'reinforce_pp', 'ppo', 'cispo'] as const;
/** One of {@link ALGORITHMS}. */
export type Algorithm = (typeof ALGORITHMS)[number];

/** The knobs a preset sets, as the loop uses them. */
export interface AlgorithmKnobs {
  advantageEstimator: AdvantageEstimator;
  lossFn: PolicyGradientLossFn;
  /** null = the loss's service defaults. */
  lossFnConfig: Record<string, number> | null;
  lossAggregation: LossAggregation;
  importanceRatioLevel: ImportanceRatioLevel;
  dynamicSampling: boolean;
  /** DAPO's overlong buffer L_cache in tokens; 0 = no shaping. */
  overlongBufferTokens: number;
}

/** The knobs without a preset: upstream's loop (group-mean advantages, importance sampling, summed). */
export const BASE_KNOBS: AlgorithmKnobs = {
  advantageEstimator: 'mean',
  lossFn: 'importance_sampling',
  lossFnConfig: null,
  lossAggregation: 'sum',
  importanceRatioLevel: 'token',
  dynamicSampling: false,
  overlongBufferTokens: 0,
};

/** A preset: its knobs (some derived from `max_tokens`), the knobs that define it, its formula and paper. */
export interface AlgorithmPreset {
  knobs: (maxTokens: number) => Partial<AlgorithmKnobs>;
  /** Knobs that may not be overridden (the algorithm is not itself without them). */
  defining: readonly (keyof AlgorithmKnobs)[];
  /** Other values a defining knob may take explicitly and stay the same algorithm (a variant of it). */
  variants?: { [K in keyof AlgorithmKnobs]?: readonly AlgorithmKnobs[K][] };
  formula: string;
  paper: string;
}

const PPO_CLIP = { clip_low_threshold: 0.8, clip_high_threshold: 1.2 };

/** Every preset. */
export const ALGORITHM_PRESETS: Readonly<Record<Algorithm, AlgorithmPreset>> = {
  grpo: {
    knobs: () => ({ advantageEstimator: 'grpo', lossFn: 'ppo', lossFnConfig: PPO_CLIP, lossAggregation: 'sequence' }),
    defining: ['advantageEstimator'],
    formula: 'A = (r − mean_G)/(std_G + 1e-4); PPO clip 0.8/1.2 per token; each sequence’s mean, averaged',
    paper: 'Shao et al. 2024, DeepSeekMath (arXiv 2402.03300)',
  },
  dr_grpo: {
    knobs: () => ({ advantageEstimator: 'mean', lossFn: 'ppo', lossFnConfig: PPO_CLIP, lossAggregation: 'constant' }),
    defining: ['advantageEstimator', 'lossAggregation'],
    formula: 'A = r − mean_G (no std); PPO clip 0.8/1.2; summed and divided by sequences × max_tokens',
    paper: 'Liu et al. 2025, Understanding R1-Zero-Like Training (arXiv 2503.20783)',
  },
  dapo: {
    knobs: (maxTokens) => ({
      advantageEstimator: 'grpo',
      lossFn: 'ppo',
      lossFnConfig: { clip_low_threshold: 0.8, clip_high_threshold: 1.28 },
      lossAggregation: 'token',
      dynamicSampling: true,
      overlongBufferTokens: Math.max(1, Math.round(maxTokens / 5)),
    }),
    defining: ['lossFn'],
    formula:
      'A = (r − mean_G)/(std_G + 1e-4) with the overlong penalty in r; clip-higher 0.8/1.28; mean over the batch’s tokens; ' +
      'groups without signal resampled',
    paper: 'Yu et al. 2025, DAPO (arXiv 2503.14476)',
  },
  gspo: {
    knobs: () => ({
      advantageEstimator: 'grpo',
      lossFn: 'ppo',
      lossFnConfig: { clip_low_threshold: 1 - 3e-4, clip_high_threshold: 1 + 4e-4 },
      lossAggregation: 'sequence',
      importanceRatioLevel: 'sequence',
    }),
    defining: ['lossFn', 'importanceRatioLevel'],
    formula: 's = exp(mean_t(lp − q)) per sequence, clipped to [1 − 3e-4, 1 + 4e-4]; L = −mean_i min(s·A, clip(s)·A)',
    paper: 'Zheng et al. 2025, Group Sequence Policy Optimization (arXiv 2507.18071)',
  },
  rloo: {
    knobs: () => ({ advantageEstimator: 'rloo', lossFn: 'importance_sampling', lossAggregation: 'sum' }),
    defining: ['advantageEstimator'],
    formula: 'A = r − mean of the group’s other rewards; importance-sampled REINFORCE, summed',
    paper: 'Ahmadian et al. 2024, Back to Basics (arXiv 2402.14740)',
  },
  // REINFORCE++ w/ Baseline: the paper's variant for group sampling (k > 1 rollouts per prompt, reasoning tasks), which
  // is how every recipe here samples. Measured on rl_basic (seed 2): without the group baseline the policy's entropy
  // collapsed by step 6 and the reward stayed flat (0.406 → 0.403); with it, it rose (0.412 → 0.637), as GRPO's did
  // (0.406 → 0.622).
  // advantage_estimator=reinforce_pp keeps the plain one (the paper's k ≥ 1 variant, e.g. groups of one).
  reinforce_pp: {
    knobs: () => ({
      advantageEstimator: 'reinforce_pp_baseline',
      lossFn: 'ppo',
      lossFnConfig: PPO_CLIP,
      lossAggregation: 'token',
    }),
    defining: ['advantageEstimator'],
    variants: { advantageEstimator: ['reinforce_pp'] },
    formula:
      'A = r − mean_G, then (A − μ)/σ with μ, σ over every trained token of the batch (each rollout weighs by its ' +
      'tokens): REINFORCE++ w/ Baseline, the variant for group sampling (advantage_estimator=reinforce_pp: no group ' +
      'baseline); PPO clip 0.8/1.2; mean over tokens',
    paper: 'Hu et al. 2025, REINFORCE++ (arXiv 2501.03262)',
  },
  ppo: {
    knobs: () => ({ advantageEstimator: 'mean', lossFn: 'ppo', lossFnConfig: PPO_CLIP, lossAggregation: 'sum' }),
    defining: ['lossFn'],
    formula: 'A = r − mean_G; L = −Σ min(r·A, clip(r, 0.8, 1.2)·A) per token',
    paper: 'Schulman et al. 2017, Proximal Policy Optimization (arXiv 1707.06347)',
  },
  cispo: {
    knobs: () => ({ advantageEstimator: 'grpo', lossFn: 'cispo', lossFnConfig: null, lossAggregation: 'token' }),
    defining: ['lossFn'],
    formula: 'A = (r − mean_G)/(std_G + 1e-4); L = −Σ sg(clip(r, 0, 4))·lp·A (the hosted defaults), mean over tokens',
    paper: 'MiniMax 2025, MiniMax-M1 (arXiv 2506.13585)',
  },
};

/** The knobs as the config gives them: null = from the preset, else the base default. */
export type AlgorithmKnobsInput = { [K in keyof AlgorithmKnobs]: AlgorithmKnobs[K] | null } & {
  algorithm: Algorithm | null;
  maxTokens: number;
};

/** snake_case of a knob, as the command line and config.json spell it. */
function key(k: string): string {
  return k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/**
 * The knobs a run uses: each explicit value, else the preset's, else {@link BASE_KNOBS}; and the preset's own values
 * (undefined without a preset). Checks the combination before anything runs.
 * @throws ConfigError naming the key and value: a preset's defining knob overridden, a sequence-level ratio with a loss
 *   other than ppo, an aggregation other than sum with a loss it does not fold into (dro), a negative or inverted
 *   clip range.
 */
export function resolveAlgorithm(input: AlgorithmKnobsInput): {
  knobs: AlgorithmKnobs;
  preset: Partial<AlgorithmKnobs> | undefined;
} {
  const preset = input.algorithm === null ? undefined : ALGORITHM_PRESETS[input.algorithm];
  const presetKnobs = preset?.knobs(input.maxTokens);
  const knobs = { ...BASE_KNOBS } as Record<keyof AlgorithmKnobs, unknown>;
  for (const k of Object.keys(BASE_KNOBS) as (keyof AlgorithmKnobs)[]) {
    const explicit = input[k];
    const fromPreset = presetKnobs?.[k];
    if (explicit !== null && preset !== undefined && fromPreset !== undefined && preset.defining.includes(k)) {
      const variants = (preset.variants?.[k] ?? []) as readonly unknown[];
      if (JSON.stringify(explicit) !== JSON.stringify(fromPreset) && !variants.includes(explicit)) {
        throw new ConfigError(
          `algorithm=${input.algorithm} cannot take ${key(k)}=${typeof explicit === 'object' ? JSON.stringify(explicit) : String(explicit)}: ` +
            `the preset is defined by ${key(k)}=${JSON.stringify(fromPreset)} (drop ${key(k)}, or drop algorithm and set the knobs yourself)`,
        );
      }
    }
    if (explicit !== null) knobs[k] = explicit;
    else if (fromPreset !== undefined) knobs[k] = fromPreset;
  }
  const out = knobs as unknown as AlgorithmKnobs;
  // A loss_fn given explicitly takes its own service defaults unless loss_fn_config is given too.
  if (input.lossFn !== null && input.lossFnConfig === null && input.lossFn !== presetKnobs?.lossFn)
    out.lossFnConfig = null;
  checkKnobs(out, input.maxTokens);
  return { knobs: out, preset: presetKnobs };
}

/** The combination checks of {@link resolveAlgorithm}. */
function checkKnobs(k: AlgorithmKnobs, maxTokens: number): void {
  if (k.importanceRatioLevel === 'sequence' && k.lossFn !== 'ppo') {
    throw new ConfigError(
      `importance_ratio_level=sequence (GSPO) takes loss_fn=ppo (its clipped objective over the sequence ratio), got loss_fn=${k.lossFn}`,
    );
  }
  checkLossAggregation(k.lossAggregation, k.lossFn);
  const cfg = k.lossFnConfig ?? {};
  const lo = cfg.clip_low_threshold;
  const hi = cfg.clip_high_threshold;
  for (const [name, v] of [
    ['clip_low_threshold', lo],
    ['clip_high_threshold', hi],
  ] as const) {
    if (v !== undefined && !(v >= 0)) {
      throw new ConfigError(`loss_fn_config.${name}=${v} is negative: the clip bounds are ratios ≥ 0`);
    }
  }
  if (lo !== undefined && hi !== undefined && lo > hi) {
    throw new ConfigError(
      `loss_fn_config has clip_low_threshold=${lo} above clip_high_threshold=${hi}: the range is inverted ` +
        '(they are ratio bounds, e.g. 0.8 and 1.2)',
    );
  }
  if (k.overlongBufferTokens < 0) {
    throw new ConfigError(`overlong_buffer_tokens=${k.overlongBufferTokens} is negative`);
  }
  if (k.overlongBufferTokens > maxTokens) {
    throw new ConfigError(
      `overlong_buffer_tokens=${k.overlongBufferTokens} is more than max_tokens=${maxTokens} (the buffer is the last ` +
        'tokens before max_tokens)',
    );
  }
}
