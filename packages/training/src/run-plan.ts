/**
 * A run plan: a loop's config parsed once, where it arrives, with every default that depends on other values resolved
 * in the same pass — the model reference (`resolveModelRef`), the learning rate from the model's rule for the loop
 * kind, the renderer's name and the tokenizer's source (names only: nothing is loaded at plan time), the Adam settings
 * — and frozen. The loop reads the plan and nothing else, and `config.json` records the plan as resolved (never a null
 * the run replaced later).
 *
 * Two ways in: {@link resolveRunPlan} for a library caller's raw config (the one parse, at that edge), and
 * {@link planRun} for a config already parsed at its edge (the command line's `parseConfig`), which is not parsed
 * again. A loop given a plan ({@link isRunPlan}) uses it as is.
 */
import {
  configToKeyStyle,
  type LoopKind,
  type ModelRef,
  resolveLearningRate,
  resolveModelRef,
  type TokenizerSource,
} from '@cookbook/core';
import { ZodObject, type z } from 'zod';
import { LOOP_ADAM } from './training-config.js';

/** The fields a plan resolves from: the model and its (nullable) learning rate. */
export interface PlannedFields {
  modelName: string;
  learningRate: number | null;
}

/** A parsed config with its learning rate resolved. */
export type ResolvedConfig<C extends PlannedFields> = Omit<C, 'learningRate'> & { learningRate: number };

/**
 * What {@link planRun} takes: parsed values of the schema's fields (a recipe's parsed config that extends them); a
 * field left out, or undefined, gets its default.
 */
export type ParsedFields<C> = { [K in keyof C]?: C[K] | undefined } & Pick<PlannedFields, 'modelName'>;

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
  /**
   * The renderer the run formats with: the config's `rendererName` when set, else the model's recommended one
   * (`ModelRef.recommendedRenderer`); undefined when neither says (an uncatalogued folder: its own files decide when
   * the renderer is built). A name only — the renderer and its tokenizer are built by the loop, from this name.
   */
  readonly rendererName: string | undefined;
  /** Where the model's tokenizer comes from (the catalog's source); undefined for an uncatalogued model. */
  readonly tokenizer: TokenizerSource | undefined;
  /** What `config.json` records (snake_case). */
  readonly recorded: unknown;
  /** Marks a plan (see {@link isRunPlan}). */
  readonly [PLAN]: true;
}

const PLAN: unique symbol = Symbol('RunPlan');

/** Whether `value` is a plan built by {@link resolveRunPlan} / {@link planRun} (a loop given one uses it as is). */
export function isRunPlan<C extends PlannedFields>(value: unknown): value is RunPlan<C> {
  return typeof value === 'object' && value !== null && (value as { [PLAN]?: unknown })[PLAN] === true;
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
  input: z.input<S> | RunPlan<z.output<S>>,
  options: RunPlanOptions<z.output<S>>,
): RunPlan<z.output<S>> {
  if (isRunPlan<z.output<S>>(input)) return input;
  return planRun(schema, schema.parse(input), options);
}

/**
 * The plan of a config already parsed at the edge that received it (e.g. the command line's `parseConfig` of a recipe
 * schema that extends `schema`'s fields): resolves like {@link resolveRunPlan} without validating again. For an object
 * schema the plan keeps `schema`'s fields only (as its parse would) and gives a field the config lacks its default.
 * @throws ConfigError naming `learning_rate` when it is null and the model has no rule.
 */
export function planRun<S extends z.ZodType<PlannedFields>>(
  schema: S,
  input: ParsedFields<z.output<S>>,
  options: RunPlanOptions<z.output<S>>,
): RunPlan<z.output<S>> {
  const parsed = schemaFields(schema, input);
  const model = resolveModelRef(parsed.modelName);
  const learningRate = resolveLearningRate(parsed.modelName, parsed.learningRate, options.loop);
  const config = Object.freeze({ ...parsed, learningRate }) as Readonly<ResolvedConfig<z.output<S>>>;
  const configured = (parsed as { rendererName?: unknown }).rendererName;
  const rendererName = typeof configured === 'string' ? configured : model.recommendedRenderer;
  // A config with a renderer field records the name resolved (its null replaced by the model's recommendation).
  const resolved = {
    learning_rate: learningRate,
    ...('rendererName' in parsed && rendererName !== undefined ? { renderer_name: rendererName } : {}),
  };
  const extra = options.record?.(config) ?? {};
  const hparams = options.hparams;
  const recorded =
    hparams !== null && typeof hparams === 'object' && !Array.isArray(hparams)
      ? { ...hparams, ...resolved, ...extra }
      : (hparams ?? {
          ...(configToKeyStyle(schema, config, { keyStyle: 'snake_case' }) as object),
          ...resolved,
          ...extra,
        });
  return Object.freeze({
    config,
    model,
    adam: adamSettings(parsed),
    rendererName,
    tokenizer: model.tokenizer,
    recorded: Object.freeze(recorded),
    [PLAN]: true as const,
  });
}

/**
 * `config` narrowed to an object schema's fields, absent (or undefined) ones at their defaults — what the schema's
 * parse of the already-valid values would return.
 */
function schemaFields<T>(schema: z.ZodType<T>, config: ParsedFields<T>): T {
  const source = config as Record<string, unknown>;
  if (!(schema instanceof ZodObject)) return config as T;
  const shape = schema.shape as Record<string, z.ZodType>;
  return Object.fromEntries(
    Object.entries(shape).map(([key, field]) => [
      key,
      source[key] !== undefined ? source[key] : field.parse(undefined),
    ]),
  ) as T;
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
