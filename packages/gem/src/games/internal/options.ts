/**
 * Game options: GEM's keyword arguments, accepted in camelCase or snake_case (`max_turns` = `maxTurns`), checked
 * with a zod schema. Unknown keys are ignored, as GEM's games ignore `**_` (trainers pass `seed`, `use_mp`, …).
 * `null` for a size parameter selects GEM's random variant (parameters redrawn at every reset).
 */
import { ConfigError, toCamelCase } from '@cookbook/core';
import { z } from 'zod';
import type { EnvOptions } from '../../core/registry.js';

/** Parses `options` for `game` with `schema`; throws {@link ConfigError} naming the key and the bad value. */
export function parseGameOptions<S extends z.ZodObject>(game: string, schema: S, options: EnvOptions): z.output<S> {
  const camel: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(options)) camel[toCamelCase(k)] = v;
  const parsed = schema.safeParse(camel);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const key = issue?.path.join('.') ?? '';
    const value = key === '' ? undefined : camel[key];
    throw new ConfigError(`${game}: option "${key}" = ${JSON.stringify(value)} is invalid: ${issue?.message}`, { key });
  }
  return parsed.data;
}

/** An integer option with a lower bound; `null` allowed when `nullable`. */
export const intOpt = (min: number) => z.number().int().min(min);

/** The env's initial seed option (GEM's trainers pass `seed=`; here it seeds the env's own stream). */
export const seedOpt = z.number().optional().describe("initial seed of the env's own RNG");
