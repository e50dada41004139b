/** The Adam settings a supervised loop's config carries (SFT, DPO), and the optimizer step's parameters from them. */
import type { AdamParams } from '@cookbook/tinker-client';
import { LOOP_ADAM } from '@cookbook/training';
import { z } from 'zod';

/** The config fields `adam_beta1`, `adam_beta2`, `adam_eps` (spread into a loop's schema). */
export const adamConfigShape = {
  adamBeta1: z.number().min(0).lt(1).default(LOOP_ADAM.beta1).describe('Adam β1'),
  adamBeta2: z.number().min(0).lt(1).default(LOOP_ADAM.beta2).describe('Adam β2'),
  adamEps: z.number().positive().default(LOOP_ADAM.eps).describe('Adam ε'),
};

/** The Adam settings of a config with {@link adamConfigShape}'s fields. */
export interface AdamConfig {
  adamBeta1: number;
  adamBeta2: number;
  adamEps: number;
}

/** The optimizer step's parameters at learning rate `learningRate`. */
export function adamParams(config: AdamConfig, learningRate: number): AdamParams {
  return { learningRate, beta1: config.adamBeta1, beta2: config.adamBeta2, eps: config.adamEps };
}
