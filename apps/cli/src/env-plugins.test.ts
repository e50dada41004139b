import { getEnvSpec, isEnvRegistered } from '@cookbook/training';
import { describe, expect, it } from 'vitest';
import { ensureEnvPlugin } from './env-plugins.js';

describe('env plug-ins', () => {
  it('imports cookbook-env-<name> for an env no loaded package registers (env=letter_count → cookbook-env-letter-count)', async () => {
    expect(isEnvRegistered('letter_count')).toBe(false);
    await ensureEnvPlugin('letter_count');
    expect(getEnvSpec('letter_count').description).toMatch(/letters/);
  });

  it('names what it looked for when no package provides the env', async () => {
    await expect(ensureEnvPlugin('no_such_game')).rejects.toThrow(
      /unknown env "no_such_game"\. Registered envs: .*looked for cookbook-env-no-such-game/,
    );
  });
});
