/**
 * The environment registry: RL environments registered by name with their config schema, as renderers are
 * (`registerRenderer` in `@cookbook/renderers`). A recipe that lets the user pick an environment (`multiplayer
 * env=tic_tac_toe`) looks it up here instead of branching on names, and a third-party package
 * `cookbook-env-<name>` (or `@<scope>/cookbook-env-<name>`) registers its env when it is imported; the CLI imports it
 * by name. Adding an environment is one file (its classes and its {@link EnvSpec}) plus one registry entry.
 */
import { ConfigError } from '@cookbook/core';
import type { Renderer } from '@cookbook/renderers';
import type { SamplingClientLike } from '@cookbook/tinker-client';
import { z } from 'zod';
import type { RLDataset } from './env.js';

/** What an env's `build` is given besides its own settings. */
export interface EnvBuildContext {
  /** The policy's chat format (over its tokenizer). */
  renderer: Renderer;
  /** Rollouts per group. */
  groupSize: number;
  /** Groups per training step (resolved: the env's default when the run left it unset). */
  groupsPerBatch: number;
  /** The run's base model. */
  modelName: string;
  /**
   * A sampling client on `baseModel` through the run's service, for envs whose other player is a model (e.g. the
   * twenty-questions answerer); the caller closes it with the run.
   */
  samplingClient(baseModel: string): Promise<SamplingClientLike>;
}

/** What an env supplies to a run: its data sets and how to read its progress. */
export interface EnvSource {
  /** The training set: `batches` batches of groups, drawn with `seed`. */
  train(seed: number, batches: number): RLDataset;
  /** A test set evaluated every `eval_every` steps (from the run's seed), when the env has one. */
  test?(seed: number): RLDataset;
  /** Whether the train set's groups carry demonstrations (`EnvGroupBuilder.demonstrations`) for a warm start. */
  demonstrations: boolean;
  /** The metric whose rise says the policy learns (the recipe's headline). */
  headline: string;
}

/**
 * A registered environment: its name, a one-line description, its settings (a zod shape: camelCase keys, each field
 * described and defaulted, as a loop's config) and how to build its data sets from them.
 */
export interface EnvSpec<Shape extends z.ZodRawShape = z.ZodRawShape> {
  /** Letters, digits and `_` (the value of `env=`). */
  name: string;
  description: string;
  /** The env's own settings; recipes that pick envs add these fields to their schema (shared keys must agree). */
  configShape: Shape;
  /**
   * Values of the run's settings this env resolves when the run leaves them null (e.g. `{ groupsPerBatch: 4 }`), so
   * config.json records the values used.
   */
  runDefaults?: Readonly<Record<string, number>>;
  /** Builds the env's data sets from its parsed settings. */
  build(config: z.infer<z.ZodObject<Shape>>, context: EnvBuildContext): Promise<EnvSource>;
}

/**
 * Declares an env: types `build`'s settings from `configShape` (the registry parses them with that shape before
 * `build` is called, see {@link parseEnvConfig}).
 */
export function defineEnv<Shape extends z.ZodRawShape>(spec: EnvSpec<Shape>): EnvSpec<Shape> {
  return spec;
}

const registry = new Map<string, EnvSpec>();

/**
 * Registers `spec` under `spec.name`.
 * @throws ConfigError when the name is malformed, or already registered and `options.override` is not true.
 */
export function registerEnv(spec: EnvSpec, options: { override?: boolean } = {}): void {
  if (!/^[a-z0-9_]+$/.test(spec.name)) {
    throw new ConfigError(`env name "${spec.name}" may only hold lower-case letters, digits and _`, { key: 'env' });
  }
  if (options.override !== true && registry.has(spec.name)) {
    // Registering the same spec twice (a module imported under two paths) is harmless.
    if (registry.get(spec.name) === spec) return;
    throw new ConfigError(`an env named "${spec.name}" is already registered; pass { override: true } to replace it`, {
      key: 'env',
    });
  }
  registry.set(spec.name, spec);
}

/** Whether an env named `name` is registered. */
export function isEnvRegistered(name: string): boolean {
  return registry.has(name);
}

/** The registered env names, sorted. */
export function getRegisteredEnvNames(): string[] {
  return [...registry.keys()].sort();
}

/**
 * The env registered as `name`.
 * @throws ConfigError naming the registered envs and the package that would provide it.
 */
export function getEnvSpec(name: string): EnvSpec {
  const spec = registry.get(name);
  if (spec === undefined) {
    throw new ConfigError(
      `unknown env "${name}". Registered envs: ${getRegisteredEnvNames().join(', ') || 'none'}; ` +
        `install cookbook-env-${envPackageSuffix(name)} (or a scoped @<you>/cookbook-env-…) to add one`,
      { key: 'env' },
    );
  }
  return spec;
}

/** The package-name suffix of an env (`tic_tac_toe` → `tic-tac-toe`: npm names are kebab-case). */
export function envPackageSuffix(name: string): string {
  return name.replaceAll('_', '-');
}

/**
 * Parses the env's settings out of a run config (the recipe's fields; unknown keys ignored), then over them
 * `overrides` (settings of an env whose fields the recipe does not declare, e.g. from `env_config={…}`; snake_case or
 * camelCase keys).
 * @throws ConfigError naming the env, the field and what was expected.
 */
export function parseEnvConfig(
  spec: EnvSpec,
  config: Record<string, unknown>,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  const fields = Object.fromEntries(
    Object.keys(spec.configShape).map((k) => [k, (config as Record<string, unknown>)[k]]),
  );
  for (const [key, v] of Object.entries(overrides)) {
    // The command line's snake_case (`max_word_length`) names the camelCase setting (`maxWordLength`).
    const k = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    if (!(k in spec.configShape)) {
      throw new ConfigError(
        `env ${spec.name} has no setting "${key}" (its settings: ${Object.keys(spec.configShape).join(', ') || 'none'})`,
        { key: 'env_config' },
      );
    }
    fields[k] = v;
  }
  const parsed = z.object(spec.configShape).safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`env ${spec.name}: ${issue.path.join('.')}: ${issue.message}`, {
      key: String(issue.path[0]),
    });
  }
  return parsed.data;
}

/**
 * The settings of several envs as one zod shape, for a recipe that offers them all: a key two envs share must be the
 * same field (one declaration, shared), so its description and default hold for both.
 * @throws ConfigError when two envs declare one key differently.
 */
export function mergedEnvConfigShape(specs: readonly EnvSpec[]): z.ZodRawShape {
  const out: Record<string, z.ZodType> = {};
  const owner: Record<string, string> = {};
  for (const spec of specs) {
    for (const [key, field] of Object.entries(spec.configShape)) {
      if (key in out && out[key] !== field) {
        throw new ConfigError(
          `envs ${owner[key]} and ${spec.name} both declare the setting "${key}" differently; share one declaration`,
          { key },
        );
      }
      out[key] = field as z.ZodType;
      owner[key] = owner[key] ?? spec.name;
    }
  }
  return out;
}
