/**
 * Renderer plug-ins from the command line: `renderer_name=foo` that no loaded package registers is looked up as an
 * installed package `cookbook-renderer-foo` or `@<scope>/cookbook-renderer-foo` (imported for its registration side
 * effect), and `renderer_package=<name or path>` imports a package explicitly. Packages are resolved from the CLI and
 * from the current directory's project.
 */
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '@cookbook/core';
import { getRegisteredRendererNames, isRendererRegistered } from '@cookbook/renderers';

/** Imports `specifier` (a package name or a path) from the CLI, else from the current directory's project. */
export async function importPackage(specifier: string): Promise<boolean> {
  if (specifier.startsWith('.') || isAbsolute(specifier)) {
    const path = resolve(specifier);
    if (!existsSync(path)) return false;
    await import(pathToFileURL(path).href);
    return true;
  }
  try {
    await import(specifier);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw err;
  }
  try {
    const path = createRequire(join(process.cwd(), 'package.json')).resolve(specifier);
    await import(pathToFileURL(path).href);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err;
    return false;
  }
}

/**
 * `@scope/<prefix><name>` packages (default prefix `cookbook-renderer-`) installed in a node_modules folder at or above
 * the current directory.
 */
export function scopedCandidates(name: string, prefix = 'cookbook-renderer-'): string[] {
  const out: string[] = [];
  for (let dir = process.cwd(); ; dir = dirname(dir)) {
    const modules = join(dir, 'node_modules');
    if (existsSync(modules)) {
      for (const scope of readdirSync(modules).filter((d) => d.startsWith('@'))) {
        if (existsSync(join(modules, scope, `${prefix}${name}`))) out.push(`${scope}/${prefix}${name}`);
      }
    }
    if (dirname(dir) === dir) return out;
  }
}

/**
 * Makes sure `rendererName` is registered: imports `rendererPackage` when given, then, for a name still unknown,
 * `cookbook-renderer-<name>` or a scoped `@…/cookbook-renderer-<name>`.
 * @throws ConfigError saying what was tried and how to install or name a renderer package.
 */
export async function ensureRendererPlugin(
  rendererName: string | null,
  rendererPackage?: string | null,
): Promise<void> {
  if (rendererPackage) {
    if (!(await importPackage(rendererPackage))) {
      throw new ConfigError(`renderer_package=${rendererPackage}: no such package or file is installed here`, {
        key: 'renderer_package',
      });
    }
  }
  if (rendererName === null || isRendererRegistered(rendererName)) return;
  const tried = [`cookbook-renderer-${rendererName}`, ...scopedCandidates(rendererName)];
  for (const pkg of tried) {
    if ((await importPackage(pkg)) && isRendererRegistered(rendererName)) return;
  }
  throw new ConfigError(
    `unknown renderer "${rendererName}". Known renderers: ${getRegisteredRendererNames().join(', ')}. ` +
      `No installed package registers it (looked for ${tried.join(', ')}): install cookbook-renderer-${rendererName} ` +
      '(or a scoped @<you>/cookbook-renderer-…), or pass renderer_package=<package name or path to its entry file>.',
    { key: 'renderer_name' },
  );
}

/** Takes `renderer_package=…` out of the command-line arguments (it is the CLI's, not a recipe's). */
export function extractRendererPackage(args: readonly string[]): { args: string[]; rendererPackage: string | null } {
  let rendererPackage: string | null = null;
  const rest: string[] = [];
  for (const arg of args) {
    if (arg.startsWith('renderer_package=')) rendererPackage = arg.slice('renderer_package='.length);
    else rest.push(arg);
  }
  return { args: rest, rendererPackage };
}
