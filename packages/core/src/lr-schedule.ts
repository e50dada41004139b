/** Learning-rate schedules (upstream `utils/lr_scheduling.py`, plus linear warmup). */
import { z } from 'zod';
import { ConfigError } from './errors.js';

/** Schedule names accepted in configs. */
export const LrScheduleName = z.enum(['constant', 'linear', 'cosine']);
export type LrScheduleName = z.infer<typeof LrScheduleName>;

/**
 * Multiplier of the base learning rate at `step` of `totalSteps`.
 * `linear` = 1 − step/total, `cosine` = ½(1 + cos(π·step/total)), `constant` = 1; with `warmupSteps`,
 * the multiplier ramps linearly from 1/(warmup) to 1 over the first steps, and the decay covers the rest.
 */
export function computeScheduleLrMultiplier(
  schedule: LrScheduleName,
  step: number,
  totalSteps: number,
  warmupSteps = 0,
): number {
  if (totalSteps <= 0) throw new ConfigError(`total steps must be positive for an LR schedule, got ${totalSteps}`);
  if (warmupSteps < 0) throw new ConfigError(`warmup steps must be ≥ 0, got ${warmupSteps}`);
  if (warmupSteps > 0 && step < warmupSteps) return (step + 1) / warmupSteps;
  const decaySteps = Math.max(1, totalSteps - warmupSteps);
  const frac = Math.min(1, Math.max(0, (step - warmupSteps) / decaySteps));
  switch (schedule) {
    case 'constant':
      return 1;
    case 'linear':
      return 1 - frac;
    case 'cosine':
      return 0.5 * (1 + Math.cos(Math.PI * frac));
  }
}
