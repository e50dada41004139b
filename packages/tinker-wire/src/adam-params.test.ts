import { describe, expect, it } from 'vitest';
import { ADAM_PARAMS_DEFAULTS, AdamParamsSchema } from './data-types.js';

describe('AdamParams', () => {
  it("defaults to the official SDK's AdamParams (types/optim_step_request.py)", () => {
    expect(ADAM_PARAMS_DEFAULTS).toEqual({
      learning_rate: 1e-4,
      beta1: 0.9,
      beta2: 0.95,
      eps: 1e-12,
      weight_decay: 0,
      grad_clip_norm: 0,
    });
    expect(AdamParamsSchema.parse({ learning_rate: 1e-3, eps: 1e-8 })).toEqual({
      ...ADAM_PARAMS_DEFAULTS,
      learning_rate: 1e-3,
      eps: 1e-8,
    });
  });

  it('refuses what AdamW cannot take, naming the field', () => {
    const bad: [Record<string, number>, string][] = [
      [{ learning_rate: -1e-3 }, 'learning_rate'],
      [{ learning_rate: Number.POSITIVE_INFINITY }, 'learning_rate'],
      [{ beta1: 1 }, 'beta1'],
      [{ beta2: -0.1 }, 'beta2'],
      [{ eps: 0 }, 'eps'],
      [{ weight_decay: Number.NaN }, 'weight_decay'],
      [{ grad_clip_norm: -1 }, 'grad_clip_norm'],
    ];
    for (const [params, field] of bad) {
      const r = AdamParamsSchema.safeParse(params);
      expect(r.success, field).toBe(false);
      expect(r.error?.issues[0]?.path).toEqual([field]);
    }
  });
});
