/**
 * Environment plug-ins from the command line, as renderer plug-ins are (`renderer-plugins.ts`): `env=foo` that no
 * loaded package registers is looked up as an installed package `cookbook-env-foo` or `@<scope>/cookbook-env-foo`
 * (`env=foo_bar` → `cookbook-env-foo-bar`: npm names are kebab-case), imported for its registration side effect.
 */
import { ConfigError } from '@cookbook/core';
import { envPackageSuffix, getRegisteredEnvNames, isEnvRegistered } from '@cookbook/training';
import { importPackage, scopedCandidates } from './renderer-plugins.js';

/**
 * Makes sure the env `name` is registered: for a name not yet known, imports `cookbook-env-<name>` or a scoped
 * `@…/cookbook-env-<name>`.
 * @throws ConfigError saying what was tried and how to install an env package.
 */
export async function ensureEnvPlugin(name: string): Promise<void> {
  if (isEnvRegistered(name)) return;
  const suffix = envPackageSuffix(name);
  const tried = [`cookbook-env-${suffix}`, ...scopedCandidates(suffix, 'cookbook-env-')];
  for (const pkg of tried) {
    if ((await importPackage(pkg)) && isEnvRegistered(name)) return;
  }
  throw new ConfigError(
    `unknown env "${name}". Registered envs: ${getRegisteredEnvNames().join(', ')}. No installed package registers ` +
      `it (looked for ${tried.join(', ')}): install cookbook-env-${suffix} (or a scoped @<you>/cookbook-env-${suffix}).`,
    { key: 'env' },
  );
}
