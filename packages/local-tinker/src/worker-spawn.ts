/**
 * Starts one of this package's worker threads: the built `.js` beside this module, or the `.ts` source through tsx
 * when the package runs from source (tests, `pnpm cookbook`).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A worker running this package's module `name` (without extension, e.g. `engine-worker`). */
export function spawnPackageWorker(name: string, options: WorkerOptions): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, here), options);
  const require = createRequire(here);
  const tsxPkg = require.resolve('tsx/package.json');
  const exportsMap = (require(tsxPkg) as { exports: Record<string, { import: { default: string } }> }).exports;
  const tsxApi = pathToFileURL(join(dirname(tsxPkg), exportsMap['./esm/api']!.import.default)).href;
  const target = new URL(`./${name}.ts`, here).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((t) => { t.register(); return import(${JSON.stringify(target)}); })`;
  return new Worker(`${boot}.catch((e) => { throw e; });`, { ...options, eval: true });
}
