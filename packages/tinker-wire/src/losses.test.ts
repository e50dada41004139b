import { describe, expect, it } from 'vitest';
import { ForwardBackwardInputSchema } from './data-types.js';
import {
  BUILTIN_LOSSES,
  LOSS_FN_NAMES,
  LOSS_INPUT_DTYPES,
  LossFnTypeSchema,
  lossNeedsNoConfig,
  POLICY_GRADIENT_LOSS_FNS,
} from './losses.js';

describe('the built-in loss declaration', () => {
  /** The official SDK's `LossFnType` (types/loss_fn_type.py), in its order. */
  const SDK_LOSSES: string[] = ['cross_entropy', 'importance_sampling', 'ppo', 'cispo', 'dro'];
  const sdkOnly = (names: readonly string[]) => names.filter((n) => SDK_LOSSES.includes(n));

  it("declares the SDK's LossFnType, in its order", () => {
    expect(sdkOnly(LOSS_FN_NAMES)).toEqual(SDK_LOSSES);
    expect(LossFnTypeSchema.options).toEqual(LOSS_FN_NAMES);
    const input = { data: [], loss_fn: 'ppo' };
    expect(ForwardBackwardInputSchema.parse(input).loss_fn).toBe('ppo');
    expect(ForwardBackwardInputSchema.safeParse({ ...input, loss_fn: 'gspo' }).success).toBe(false);
  });

  it("gives plain lists the SDK's dtype per input key (types/datum.py _KEY_TO_TYPE)", () => {
    expect(LOSS_INPUT_DTYPES).toMatchObject({
      target_tokens: 'int64',
      weights: 'float32',
      advantages: 'float32',
      logprobs: 'float32',
      clip_low_threshold: 'float32',
      clip_high_threshold: 'float32',
    });
    for (const loss of Object.values(BUILTIN_LOSSES)) {
      for (const key of [...loss.required, ...loss.optional]) expect(LOSS_INPUT_DTYPES).toHaveProperty(key);
    }
  });

  it('takes the inputs and config of tinker-api.md §3.4', () => {
    expect(BUILTIN_LOSSES.cross_entropy).toMatchObject({ required: ['target_tokens'], config: {}, topKTargets: true });
    for (const name of ['importance_sampling', 'ppo', 'cispo', 'dro'] as const) {
      expect([...BUILTIN_LOSSES[name].required].sort()).toEqual(['advantages', 'logprobs', 'target_tokens']);
      expect(BUILTIN_LOSSES[name].topKTargets).toBe(false);
    }
    expect(BUILTIN_LOSSES.ppo.config).toEqual({ clip_low_threshold: 0.8, clip_high_threshold: 1.2 });
    // The hosted defaults: a one-sided clip (upstream's tutorials/202_loss_functions.py), not ppo's 0.8 / 1.2.
    expect(BUILTIN_LOSSES.cispo.config).toEqual({ clip_low_threshold: 0, clip_high_threshold: 4 });
    expect(BUILTIN_LOSSES.dro.config).toEqual({ beta: null });
  });

  it("declares the hosted service's inputs: no weights on a policy loss (upstream's tutorials 202 and 301)", () => {
    expect([...BUILTIN_LOSSES.cross_entropy.hostedInputs].sort()).toEqual(['target_tokens', 'weights']);
    for (const name of ['importance_sampling', 'ppo', 'cispo', 'dro'] as const) {
      expect([...BUILTIN_LOSSES[name].hostedInputs].sort()).toEqual(['advantages', 'logprobs', 'target_tokens']);
    }
    for (const loss of Object.values(BUILTIN_LOSSES)) {
      for (const key of loss.hostedInputs) expect([...loss.required, ...loss.optional]).toContain(key);
    }
    // The losses linear in A per token; dro's quadratic term is not (checked against TRL in the engine's tests).
    expect(LOSS_FN_NAMES.filter((n) => BUILTIN_LOSSES[n].weightFoldsIntoAdvantage)).toEqual(
      expect.arrayContaining(['importance_sampling', 'ppo', 'cispo']),
    );
    expect(BUILTIN_LOSSES.dro.weightFoldsIntoAdvantage).toBe(false);
  });

  it('derives the policy-gradient losses and which of them run without a config', () => {
    expect(sdkOnly(POLICY_GRADIENT_LOSS_FNS)).toEqual(['importance_sampling', 'ppo', 'cispo', 'dro']);
    expect(sdkOnly(POLICY_GRADIENT_LOSS_FNS.filter(lossNeedsNoConfig))).toEqual([
      'importance_sampling',
      'ppo',
      'cispo',
    ]);
    expect(lossNeedsNoConfig('cross_entropy')).toBe(true);
  });
});
