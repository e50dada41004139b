import { ConfigError } from '@cookbook/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  defineEnv,
  type EnvSpec,
  envPackageSuffix,
  getEnvSpec,
  getRegisteredEnvNames,
  isEnvRegistered,
  mergedEnvConfigShape,
  parseEnvConfig,
  registerEnv,
} from './env-registry.js';

const shared = z.number().int().positive().default(3).describe('turns');
const spec = (name: string, configShape: z.ZodRawShape = {}): EnvSpec =>
  defineEnv({
    name,
    description: name,
    configShape,
    build: async () => ({ train: () => ({ length: 0, getBatch: () => [] }), demonstrations: false, headline: 'x' }),
  });

describe('env registry', () => {
  it('registers an env by name and finds it; a second one under the name needs override', () => {
    const a = spec('registry_test_a');
    registerEnv(a);
    registerEnv(a); // the same spec again: harmless
    expect(isEnvRegistered('registry_test_a')).toBe(true);
    expect(getEnvSpec('registry_test_a')).toBe(a);
    expect(getRegisteredEnvNames()).toContain('registry_test_a');
    expect(() => registerEnv(spec('registry_test_a'))).toThrow(/already registered/);
    const b = spec('registry_test_a');
    registerEnv(b, { override: true });
    expect(getEnvSpec('registry_test_a')).toBe(b);
  });

  it('refuses a malformed name and names the package of an unknown env', () => {
    expect(() => registerEnv(spec('Bad-Name'))).toThrow(ConfigError);
    expect(() => getEnvSpec('no_such_env')).toThrow(/unknown env "no_such_env".*cookbook-env-no-such-env/);
    expect(envPackageSuffix('tic_tac_toe')).toBe('tic-tac-toe');
  });

  it("parses an env's settings from the run config and snake_case overrides, naming a bad field", () => {
    const s = spec('registry_test_b', { maxTurns: shared, mode: z.enum(['x', 'y']).default('x').describe('mode') });
    expect(parseEnvConfig(s, { maxTurns: 5, unrelated: 1 })).toEqual({ maxTurns: 5, mode: 'x' });
    expect(parseEnvConfig(s, {}, { max_turns: 7 })).toEqual({ maxTurns: 7, mode: 'x' });
    expect(() => parseEnvConfig(s, { maxTurns: 0 })).toThrow(/registry_test_b: maxTurns/);
    expect(() => parseEnvConfig(s, {}, { colour: 1 })).toThrow(/no setting "colour" \(its settings: maxTurns, mode\)/);
  });

  it('merges the settings of several envs; a shared key must be one declaration', () => {
    const a = spec('registry_test_c', { maxTurns: shared });
    const b = spec('registry_test_d', { maxTurns: shared, other: z.boolean().default(false).describe('o') });
    expect(Object.keys(mergedEnvConfigShape([a, b]))).toEqual(['maxTurns', 'other']);
    const c = spec('registry_test_e', { maxTurns: z.number().default(1).describe('other turns') });
    expect(() => mergedEnvConfigShape([a, c])).toThrow(/registry_test_c and registry_test_e .*"maxTurns"/);
  });
});
