/**
 * Vectorised envs (GEM `gem/vector/*`): several envs stepped together, concurrently (GEM's sync and async vector
 * envs in one: every env's `step` runs at once and the results come back in env order).
 *
 * Autoreset modes:
 * - `same_step` (GEM's default): a step that ends an episode resets that env at once; the returned observation and
 *   info are the NEW episode's first ones, while reward / terminated / truncated are those of the final step.
 * - `next_step`: the env stays finished; the next step call for it ignores the action, resets it and returns its
 *   first observation with reward 0 and both flags false.
 */
import { ConfigError } from '@cookbook/core';
import type { Env, EnvInfo } from '../core/env.js';
import { type EnvOptions, make } from '../core/registry.js';

/** When a finished env is reset. */
export type AutoresetMode = 'same_step' | 'next_step';

/** What {@link VectorEnv.reset} returns: one entry per env. */
export interface VectorResetResult {
  observations: string[];
  infos: EnvInfo[];
}

/** What {@link VectorEnv.step} returns, for the stepped envs only (in `indices` order). */
export interface VectorStepResult {
  indices: number[];
  observations: string[];
  rewards: number[];
  terminated: boolean[];
  truncated: boolean[];
  infos: EnvInfo[];
}

/** A fixed set of envs stepped together. */
export class VectorEnv {
  readonly envs: readonly Env[];
  readonly autoresetMode: AutoresetMode;
  private readonly needsReset: boolean[];

  constructor(envs: readonly Env[], options: { autoresetMode?: AutoresetMode } = {}) {
    if (envs.length === 0) throw new ConfigError('a vector env needs at least one env', { key: 'num_env' });
    this.envs = envs;
    this.autoresetMode = options.autoresetMode ?? 'same_step';
    this.needsReset = envs.map(() => false);
  }

  get numEnvs(): number {
    return this.envs.length;
  }

  /**
   * Resets every env. `seed`: none = each env continues its own stream; a number s = env i gets s + i; an array =
   * one seed (or undefined) per env.
   */
  async reset(seed?: number | readonly (number | undefined)[]): Promise<VectorResetResult> {
    if (Array.isArray(seed) && seed.length !== this.envs.length) {
      throw new ConfigError(`reset: ${seed.length} seeds for ${this.envs.length} envs`, { key: 'seed' });
    }
    const seeds = this.envs.map((_, i) =>
      seed === undefined ? undefined : typeof seed === 'number' ? seed + i : (seed as (number | undefined)[])[i],
    );
    const results = await Promise.all(this.envs.map((env, i) => env.reset(seeds[i])));
    this.needsReset.fill(false);
    return { observations: results.map((r) => r.observation), infos: results.map((r) => r.info) };
  }

  /**
   * Steps the envs: an array (one action per env) or `{index: action}` for a subset.
   * @throws ConfigError on a wrong number of actions or an index out of range.
   */
  async step(actions: readonly string[] | Readonly<Record<number, string>>): Promise<VectorStepResult> {
    let pairs: [number, string][];
    if (Array.isArray(actions)) {
      if (actions.length !== this.envs.length) {
        throw new ConfigError(`step: ${actions.length} actions for ${this.envs.length} envs`, { key: 'actions' });
      }
      pairs = (actions as string[]).map((a, i) => [i, a]);
    } else {
      pairs = Object.entries(actions as Record<number, string>).map(([k, a]) => [Number(k), a]);
      for (const [i] of pairs) {
        if (!Number.isInteger(i) || i < 0 || i >= this.envs.length) {
          throw new ConfigError(`step: env index ${i} is out of range 0..${this.envs.length - 1}`, { key: 'actions' });
        }
      }
    }
    const results = await Promise.all(pairs.map(([i, action]) => this.stepOne(i, action)));
    return {
      indices: pairs.map(([i]) => i),
      observations: results.map((r) => r.observation),
      rewards: results.map((r) => r.reward),
      terminated: results.map((r) => r.terminated),
      truncated: results.map((r) => r.truncated),
      infos: results.map((r) => r.info),
    };
  }

  private async stepOne(i: number, action: string) {
    const env = this.envs[i]!;
    if (this.needsReset[i]) {
      this.needsReset[i] = false;
      const r = await env.reset();
      return { observation: r.observation, reward: 0, terminated: false, truncated: false, info: r.info };
    }
    const r = await env.step(action);
    if (r.terminated || r.truncated) {
      if (this.autoresetMode === 'same_step') {
        const first = await env.reset();
        return { ...r, observation: first.observation, info: first.info };
      }
      this.needsReset[i] = true;
    }
    return r;
  }
}

/** Options of {@link makeVec}. */
export interface MakeVecOptions {
  /** Wrappers applied to each env in order (first = innermost). */
  wrappers?: readonly ((env: Env) => Env)[];
  /** Per-env options, merged over `envOptions`. */
  vecOptions?: readonly EnvOptions[];
  /** Options passed to every env. */
  envOptions?: EnvOptions;
  /** Env i gets option `seed = seed + i` unless its options set one. Default 0. */
  seed?: number;
  autoresetMode?: AutoresetMode;
}

/** One env per id (GEM `make_vec`), wrapped, as a {@link VectorEnv}. */
export function makeVec(envIds: string | readonly string[], options: MakeVecOptions = {}): VectorEnv {
  const ids = typeof envIds === 'string' ? [envIds] : envIds;
  const seed = options.seed ?? 0;
  const envs = ids.map((id, i) => {
    const opts: EnvOptions = { seed: seed + i, ...options.envOptions, ...options.vecOptions?.[i] };
    let env = make(id, opts);
    for (const wrap of options.wrappers ?? []) env = wrap(env);
    return env;
  });
  return new VectorEnv(envs, options.autoresetMode === undefined ? {} : { autoresetMode: options.autoresetMode });
}
