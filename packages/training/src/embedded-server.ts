/**
 * The embedded service as a {@link ServerProvider}: `@cookbook/local-tinker` is an optional peer of this package,
 * loaded only when a client needs it (no base URL and no key), so a user of the hosted service never installs it.
 */
import { loadOptionalPeer } from '@cookbook/core';
import type { ServerProvider } from '@cookbook/tinker-client';

/** What the resolver needs of `@cookbook/local-tinker`. */
type EmbeddedModule = Pick<typeof import('@cookbook/local-tinker'), 'acquireEmbeddedService'>;

/**
 * A provider that loads the embedded service with `load` and starts (or joins) it; exported for tests, which pass a
 * loader that fails as a missing package does.
 */
export function embeddedServerFrom(load: () => Promise<EmbeddedModule>): ServerProvider {
  return async () => {
    const localTinker = await loadOptionalPeer(
      load,
      '@cookbook/local-tinker',
      'to run on the embedded local service when no Tinker server is configured',
      'set TINKER_BASE_URL (and TINKER_API_KEY for the hosted service) or pass base_url',
    );
    return localTinker.acquireEmbeddedService();
  };
}

/**
 * Starts (or joins) the in-process embedded service on 127.0.0.1; its `release` stops it when the last client of
 * the process lets go. Fails with a ConfigError naming the package to install when `@cookbook/local-tinker` is absent.
 */
export const embeddedServer: ServerProvider = embeddedServerFrom(() => import('@cookbook/local-tinker'));
