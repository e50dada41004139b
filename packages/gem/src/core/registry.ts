/**
 * The env registry (GEM `gem.make` / `register`): ids map to factories with default options; the caller's
 * options win over the registered ones.
 *
 * Invariant: an id is registered once; `make` of an unknown id names the closest registered id.
 */
import { ConfigError, closestMatch } from '@cookbook/core';
import { DATASET_SPECS } from '../dataset/specs.js';
import { GAME_SPECS, ONLINE_GAME_SPECS } from '../games/index.js';
import type { Env } from './env.js';

/** Options passed to an env factory (registered defaults merged with the caller's). */
export type EnvOptions = Record<string, unknown>;

/** Builds an env from merged options. */
export type EnvFactory = (options: EnvOptions) => Env;

interface EnvSpec {
  id: string;
  factory: EnvFactory;
  defaults: EnvOptions;
}

const registry = new Map<string, EnvSpec>();
let builtinsLoaded = false;

/** Registers the built-in envs on first use (no import side effects: the package is `sideEffects: false`). */
function ensureBuiltins(): void {
  if (builtinsLoaded) return;
  builtinsLoaded = true;
  for (const spec of [...GAME_SPECS, ...ONLINE_GAME_SPECS, ...DATASET_SPECS]) registry.set(spec.id, { ...spec });
}

/** Registers `id`. Throws {@link ConfigError} if the id is taken. */
export function registerEnv(id: string, factory: EnvFactory, defaults: EnvOptions = {}): void {
  ensureBuiltins();
  if (registry.has(id)) throw new ConfigError(`env id "${id}" is already registered`);
  registry.set(id, { id, factory, defaults });
}

/** Makes an env by id with `{...registered defaults, ...options}`; sets `env.envId`. */
export function make(id: string, options: EnvOptions = {}): Env {
  ensureBuiltins();
  const spec = registry.get(id);
  if (spec === undefined) {
    const hint = closestMatch(id, [...registry.keys()]);
    throw new ConfigError(`unknown env id "${id}"${hint ? `; did you mean "${hint}"?` : ''}`);
  }
  const env = spec.factory({ ...spec.defaults, ...options });
  env.envId = id;
  return env;
}

/** Every registered id, sorted. */
export function registeredEnvIds(): string[] {
  ensureBuiltins();
  return [...registry.keys()].sort();
}
