/**
 * A run plan: a loop's config parsed once, where it arrives, with every default that depends on other values resolved
 * in the same pass — the model reference (`resolveModelRef`), the learning rate from the model's rule for the loop
 * kind, the Adam settings — and frozen. The loop reads the plan and nothing else, and `config.json` records the plan as
 * resolved (never a null the run replaced later).
 */
import { configToKeyStyle, type LoopKind, type ModelRef, resolveLearningRate, resolveModelRef } from '@cookbook/core';
import type { z } from 'zod';
import { LOOP_ADAM } from './training-config.js';

/** The fields a plan resolves from: the model and its (nullable) learning rate. */
export interface PlannedFields {
  modelName: string;
  learningRate: number | null;
}

/** A parsed config with its learning rate resolved. */
export type ResolvedConfig<C extends PlannedFields> = Omit<C, 'learningRate'> & { learningRate: number };

/** What {@link resolveRunPlan} needs besides the schema and the input. */
export interface RunPlanOptions<C extends PlannedFields> {
  /** The loop kind: picks the model's learning-rate rule (`rl`: a tenth of the supervised one). */
  loop: LoopKind;
  /**
   * What `config.json` records instead of the parsed config (a recipe's own fields, snake_case): the plan's resolved
   * values are written over it.
   */
  hparams?: unknown;
  /** Further values the loop derives from the config (snake_case keys, e.g. RL's algorithm knobs), recorded too. */
  record?: (config: Readonly<ResolvedConfig<C>>) => Record<string, unknown>;
}

/** Adam's β1, β2 and ε. */
export interface AdamSettings {
  beta1: number;
  beta2: number;
  eps: number;
}

/** A resolved run: read by the loop, recorded in `config.json`. */
export interface RunPlan<C extends PlannedFields> {
  /** The parsed config with every dependent default resolved (`learningRate` is never null). */
  readonly config: Readonly<ResolvedConfig<C>>;
  /** What the model name stands for. */
  readonly model: ModelRef;
  /**
   * The Adam settings the loop steps with (besides the learning rate): the config's `adamBeta1` / `adamBeta2` /
   * `adamEps` where its schema has them (SFT, DPO), else every cookbook loop's {@link LOOP_ADAM}.
   */
  readonly adam: Readonly<AdamSettings>;
  /** What `config.json` records (snake_case). */
  readonly recorded: unknown;
}

/**
 * Parses `input` with `schema` (the one validation of a library caller's config) and resolves the plan: the model
 * reference, the learning rate (`learningRate`, else the model's default for `options.loop`), the Adam settings, and
 * what `config.json` records.
 * @throws ConfigError (zod's ZodError for a malformed field) when the config is invalid, or naming `learning_rate`
 *   when it is null and the model has no rule.
 */
export function resolveRunPlan<S extends z.ZodType<PlannedFields>>(
  schema: S,
  input: z.input<S>,
  options: RunPlanOptions<z.output<S>>,
): RunPlan<z.output<S>> {
  const parsed = schema.parse(input);
  const model = resolveModelRef(parsed.modelName);
  const learningRate = resolveLearningRate(parsed.modelName, parsed.learningRate, options.loop);
  const config = Object.freeze({ ...parsed, learningRate }) as Readonly<ResolvedConfig<z.output<S>>>;
  const extra = options.record?.(config) ?? {};
  const hparams = options.hparams;
  const recorded =
    hparams !== null && typeof hparams === 'object' && !Array.isArray(hparams)
      ? { ...hparams, learning_rate: learningRate, ...extra }
      : (hparams ?? { ...(configToKeyStyle(schema, config, { keyStyle: 'snake_case' }) as object), ...extra });
  return Object.freeze({ config, model, adam: adamSettings(parsed), recorded: Object.freeze(recorded) });
}

function numberField(config: object, key: string, fallback: number): number {
  const value = (config as Record<string, unknown>)[key];
  return typeof value === 'number' ? value : fallback;
}

function adamSettings(config: object): Readonly<AdamSettings> {
  return Object.freeze({
    beta1: numberField(config, 'adamBeta1', LOOP_ADAM.beta1),
    beta2: numberField(config, 'adamBeta2', LOOP_ADAM.beta2),
    eps: numberField(config, 'adamEps', LOOP_ADAM.eps),
  });
}
