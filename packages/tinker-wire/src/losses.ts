/**
 * The built-in losses (tinker-api.md §3.4 and §4; the SDK's `LossFnType`), declared once: each loss's name, the
 * `loss_fn_inputs` it takes and its `loss_fn_config` with defaults. Everything else derives from this table: the wire
 * enum ({@link LossFnTypeSchema}), the dtype a plain list gets under each input key, the engine's checks of a batch and
 * the table of its implementations (one per name, which the compiler demands), and the loss choices of the RL loops
 * ({@link POLICY_GRADIENT_LOSS_FNS}). A new built-in loss is one entry here plus its implementation in the engine.
 */
import { z } from 'zod';

/**
 * Every key a built-in loss takes in `loss_fn_inputs`, with the dtype a plain list under it is sent as (the SDK's
 * `_KEY_TO_TYPE` in `types/datum.py`). The engine checks a datum's inputs in this order.
 */
export const LOSS_INPUT_DTYPES = {
  target_tokens: 'int64',
  weights: 'float32',
  logprobs: 'float32',
  advantages: 'float32',
  clip_low_threshold: 'float32',
  clip_high_threshold: 'float32',
} as const;

/** A key of `loss_fn_inputs` that some built-in loss takes. */
export type LossInputKey = keyof typeof LOSS_INPUT_DTYPES;

/** What a built-in loss takes. */
export interface LossDeclaration {
  /** `loss_fn_inputs` keys every datum must carry. Each has the model input's length N as its leading dimension. */
  readonly required: readonly LossInputKey[];
  /** `loss_fn_inputs` keys a datum may carry; any other key is refused. */
  readonly optional: readonly LossInputKey[];
  /** `loss_fn_config` keys with their defaults; `null` = no default, the key is required. Any other key is refused. */
  readonly config: Readonly<Record<string, number | null>>;
  /** Whether `target_tokens` (and `weights`) may be `[N, K]`: K candidate targets per position (top-K distillation). */
  readonly topKTargets: boolean;
  /**
   * The `loss_fn_inputs` keys the hosted service documents for this loss. The embedded engine takes every key of
   * `required` and `optional`; a client that must also run on the hosted service sends only these.
   */
  readonly hostedInputs: readonly LossInputKey[];
  /**
   * Whether a token weight `w ≥ 0` folds into the advantage exactly: the per-token loss is `w·f(A)` with `f` linear in
   * `A` (for PPO, `min(r·wA, clip(r)·wA) = w·min(r·A, clip(r)·A)` since `w ≥ 0`), so `(A, w)` and `(w·A, no weights)`
   * give the same loss and the same gradient. False where a term does not scale with `A` (DRO's quadratic) or there is
   * no advantage (cross-entropy).
   */
  readonly weightFoldsIntoAdvantage: boolean;
}

const POLICY_INPUTS = ['target_tokens', 'logprobs', 'advantages'] as const;

/**
 * What the hosted service's policy losses take: `target_tokens`, `logprobs`, `advantages` and nothing else (upstream's
 * loss tutorial `tutorials/202_loss_functions.py`, its table of required `loss_fn_inputs` for importance_sampling, ppo
 * and cispo; its `tutorials/301_cookbook_abstractions.py`: "The built-in importance_sampling loss accepts only the
 * first three", which is why upstream's RL loop strips `mask` before sending; the hosted docs' loss page as
 * tinker-api.md §3.4 records it, the same three for dro). No `weights` (the `w` of the formulas below is the embedded
 * engine's extension): an RL loop that aggregates per token folds the weight into the advantage instead.
 */
const HOSTED_POLICY_INPUTS = POLICY_INPUTS;

/**
 * The built-in losses, in the SDK's order (formulas: tinker-api.md §4; `logprobs` are the sampler's). The config
 * defaults are the hosted service's; each cites where it is documented (the SDK's types declare `loss_fn_config` as a
 * free `Dict[str, float]` and carry no defaults).
 */
export const BUILTIN_LOSSES = {
  /** `L = Σ −lp·w`; no config (the hosted docs' loss list and the SDK's types name none). */
  cross_entropy: {
    required: ['target_tokens'],
    optional: ['weights'],
    config: {},
    topKTargets: true,
    // The tutorial's table: `target_tokens`, `weights`.
    hostedInputs: ['target_tokens', 'weights'],
    weightFoldsIntoAdvantage: false,
  },
  /** `L = −Σ w·r·A`, `r = exp(lp − q)`; no config (the hosted docs' loss list and the SDK's types name none). */
  importance_sampling: {
    required: POLICY_INPUTS,
    optional: ['weights'],
    config: {},
    topKTargets: false,
    hostedInputs: HOSTED_POLICY_INPUTS,
    weightFoldsIntoAdvantage: true,
  },
  /**
   * `L = −Σ w·min(r·A, clip(r)·A)`; the clip bounds are ratios, per token when given as inputs. Defaults 0.8 / 1.2:
   * upstream's loss tutorial (`tutorials/202_loss_functions.py`, "PPO defaults to `0.8` and `1.2`") and the hosted
   * docs' PPO page (ε_low = ε_high = 0.2).
   */
  ppo: {
    required: POLICY_INPUTS,
    optional: ['weights', 'clip_low_threshold', 'clip_high_threshold'],
    config: { clip_low_threshold: 0.8, clip_high_threshold: 1.2 },
    topKTargets: false,
    hostedInputs: HOSTED_POLICY_INPUTS,
    weightFoldsIntoAdvantage: true,
  },
  /**
   * `L = −Σ w·sg(clip(r))·lp·A`. Defaults 0.0 / 4.0, a one-sided clip (the lower bound is off, the coefficient is
   * capped at 4): upstream's loss tutorial (`tutorials/202_loss_functions.py`, "CISPO defaults to a one-sided clip",
   * `{"clip_low_threshold": 0.0, "clip_high_threshold": 4.0}`), after ScaleRL's `clip(ratio, 0, eps_max)`.
   */
  cispo: {
    required: POLICY_INPUTS,
    optional: ['weights', 'clip_low_threshold', 'clip_high_threshold'],
    config: { clip_low_threshold: 0, clip_high_threshold: 4 },
    topKTargets: false,
    hostedInputs: HOSTED_POLICY_INPUTS,
    weightFoldsIntoAdvantage: true,
  },
  /**
   * `L = −Σ w·(lp·A − ½·β·(lp − q)²)`; β has no default: the hosted docs' DRO page shows it only as a `loss_fn_config`
   * the caller passes (`{"beta": 0.05}` in its example), so a request without it is refused rather than guessed.
   */
  dro: {
    required: POLICY_INPUTS,
    optional: ['weights'],
    config: { beta: null },
    topKTargets: false,
    hostedInputs: HOSTED_POLICY_INPUTS,
    // ½·β·(lp − q)² does not scale with A.
    weightFoldsIntoAdvantage: false,
  },
} as const satisfies Record<string, LossDeclaration>;

/** The name of a built-in loss (`loss_fn`). */
export type LossFnType = keyof typeof BUILTIN_LOSSES;

/** The built-in loss names, in declaration order. */
export const LOSS_FN_NAMES = Object.keys(BUILTIN_LOSSES) as [LossFnType, ...LossFnType[]];

export const LossFnTypeSchema = z.enum(LOSS_FN_NAMES);

/** A built-in loss that trains sampled tokens on their advantages: it requires `logprobs` and `advantages`. */
export type PolicyGradientLossFn = {
  [K in LossFnType]: 'advantages' extends (typeof BUILTIN_LOSSES)[K]['required'][number] ? K : never;
}[LossFnType];

/** The policy-gradient losses (an RL loop's choices), in declaration order. */
export const POLICY_GRADIENT_LOSS_FNS = LOSS_FN_NAMES.filter((name) =>
  (BUILTIN_LOSSES[name].required as readonly LossInputKey[]).includes('advantages'),
) as [PolicyGradientLossFn, ...PolicyGradientLossFn[]];

/** Whether `name` runs without a `loss_fn_config` (every config key has a default). */
export function lossNeedsNoConfig(name: LossFnType): boolean {
  return Object.values(BUILTIN_LOSSES[name].config as Record<string, number | null>).every((v) => v !== null);
}
