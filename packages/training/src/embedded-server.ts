/**
 * The embedded service as a {@link ServerProvider}: `@cookbook/local-tinker` is an optional peer of this package,
 * loaded only when a client needs it (no base URL and no key), so a user of the hosted service never installs it.
 */
import { ConfigError } from '@cookbook/core';
import type { ServerProvider } from '@cookbook/tinker-client';

const PACKAGE = '@cookbook/local-tinker';

/** What the resolver needs of `@cookbook/local-tinker`. */
type EmbeddedModule = Pick<typeof import('@cookbook/local-tinker'), 'acquireEmbeddedService'>;

/** True when `err` says `PACKAGE` itself cannot be found (not a module it imports, nor a failure while loading). */
function isPackageMissing(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as Error & { code?: unknown }).code;
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    new RegExp(`['"]${PACKAGE}['"]`).test(err.message)
  );
}

/**
 * A provider that loads the embedded service with `load` and starts (or joins) it; exported for tests, which pass a
 * loader that fails as a missing package does.
 */
export function embeddedServerFrom(load: () => Promise<EmbeddedModule>): ServerProvider {
  return async () => {
    let localTinker: EmbeddedModule;
    try {
      localTinker = await load();
    } catch (err) {
      if (!isPackageMissing(err)) throw err;
      throw new ConfigError(
        'no Tinker server configured and the embedded service is not installed: set TINKER_BASE_URL (and ' +
          `TINKER_API_KEY for the hosted service), pass base_url, or install ${PACKAGE} to run on the embedded ` +
          'local service',
        { key: 'base_url', cause: err },
      );
    }
    return localTinker.acquireEmbeddedService();
  };
}

/**
 * Starts (or joins) the in-process embedded service on 127.0.0.1; its `release` stops it when the last client of
 * the process lets go. Fails with a ConfigError naming the package to install when `@cookbook/local-tinker` is absent.
 */
export const embeddedServer: ServerProvider = embeddedServerFrom(() => import('@cookbook/local-tinker'));
