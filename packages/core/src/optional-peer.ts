/**
 * Optional peer dependencies loaded on demand (the embedded service, the Hugging Face Hub client, a tokenizer
 * family): a package that is absent gives an error naming it and what it is for, instead of Node's resolution error.
 */
import { ConfigError } from './errors.js';

/**
 * True when `err` is Node's "cannot find package" for `name` itself — not for a module `name` imports (its message
 * names `name` only in the importer's path), nor any other failure while loading.
 */
export function isMissingPackage(err: unknown, name: string): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as Error & { code?: unknown }).code;
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  return err.message.includes(`'${name}'`) || err.message.includes(`"${name}"`);
}

/**
 * Runs `load` (the caller's own `() => import('pkg')`, so the package resolves from the caller's folder) and turns
 * "package not installed" into a ConfigError: `<name> is not installed: it is needed <purpose>; install it (npm
 * install <name>)[; <alternative>]`. Other failures pass through unchanged.
 * @example
 * const hub = await loadOptionalPeer(() => import('@huggingface/hub'), '@huggingface/hub', 'to download from the Hub');
 */
export async function loadOptionalPeer<T>(
  load: () => Promise<T>,
  name: string,
  purpose: string,
  alternative?: string,
): Promise<T> {
  try {
    return await load();
  } catch (err) {
    if (!isMissingPackage(err, name)) throw err;
    throw new ConfigError(
      `${name} is not installed: it is needed ${purpose}; install it (npm install ${name})` +
        (alternative === undefined ? '' : `, or ${alternative}`),
      { key: name, cause: err },
    );
  }
}
