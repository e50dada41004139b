// Builds the optional native GEMM addon with node-gyp. Never fails the install: on any problem it prints one
// line and exits 0, and the engine falls back to its pure-TS kernel at run time.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkgDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const verbose = process.argv.includes('--verbose');

function findNodeGyp() {
  const fromEnv = process.env.npm_config_node_gyp;
  if (fromEnv && existsSync(fromEnv)) return [process.execPath, fromEnv];
  try {
    const require = createRequire(join(pkgDir, 'package.json'));
    return [process.execPath, require.resolve('node-gyp/bin/node-gyp.js')];
  } catch {
    // not a local dependency; try the one package managers put on PATH
  }
  // npm ships node-gyp next to node itself
  const bundled = join(
    dirname(process.execPath),
    '..',
    'lib',
    'node_modules',
    'npm',
    'node_modules',
    'node-gyp',
    'bin',
    'node-gyp.js',
  );
  if (existsSync(bundled)) return [process.execPath, bundled];
  const probe = spawnSync('node-gyp', ['--version'], { stdio: 'ignore', shell: process.platform === 'win32' });
  if (probe.status === 0) return ['node-gyp'];
  return null;
}

if (process.env.COOKBOOK_SKIP_NATIVE === '1') {
  console.log('@cookbook/engine: COOKBOOK_SKIP_NATIVE=1, native kernel not built (pure-TS kernel will be used)');
  process.exit(0);
}
const gyp = findNodeGyp();
if (gyp === null) {
  console.log('@cookbook/engine: node-gyp not found, native kernel not built (pure-TS kernel will be used)');
  process.exit(0);
}
const [cmd, ...pre] = gyp;
const args = [...pre, 'rebuild'];
// Outside a package manager nothing passes `nodedir`; use the headers installed next to this node if present,
// so the build never needs to download them.
const nodeRoot = join(dirname(process.execPath), '..');
if (!process.env.npm_config_nodedir && existsSync(join(nodeRoot, 'include', 'node', 'node_api.h'))) {
  args.push(`--nodedir=${nodeRoot}`);
}
const result = spawnSync(cmd, args, {
  cwd: pkgDir,
  stdio: verbose ? 'inherit' : 'pipe',
  encoding: 'utf8',
  shell: process.platform === 'win32' && cmd === 'node-gyp',
});
if (result.status !== 0) {
  const detail = `${result.stderr ?? ''}`.trim().split('\n').filter(Boolean).pop() ?? `exit ${result.status}`;
  console.log(`@cookbook/engine: native kernel build failed (${detail}); the pure-TS kernel will be used`);
  process.exit(0);
}
console.log('@cookbook/engine: native kernel built');
