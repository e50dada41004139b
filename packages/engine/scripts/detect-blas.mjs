// Prints which BLAS the native addon should link against: "openblas", "accelerate" or "none".
// COOKBOOK_NO_BLAS=1 forces "none" so the built-in SIMD kernel can be built and tested on a machine with BLAS.
import { existsSync, readdirSync } from 'node:fs';

function detect() {
  if (process.env.COOKBOOK_NO_BLAS === '1') return 'none';
  if (process.platform === 'darwin') return 'accelerate';
  if (process.platform !== 'linux') return 'none';
  const headers = ['/usr/include/cblas.h', '/usr/local/include/cblas.h'];
  const multiarch = '/usr/include';
  try {
    for (const d of readdirSync(multiarch)) {
      if (d.endsWith('-linux-gnu')) headers.push(`${multiarch}/${d}/cblas.h`);
    }
  } catch {
    // no include dir at all
  }
  const libDirs = ['/usr/lib', '/usr/local/lib', '/usr/lib64'];
  try {
    for (const d of readdirSync('/usr/lib')) if (d.endsWith('-linux-gnu')) libDirs.push(`/usr/lib/${d}`);
  } catch {
    // ignore
  }
  const hasHeader = headers.some((h) => existsSync(h));
  const hasLib = libDirs.some((d) => existsSync(`${d}/libopenblas.so`));
  return hasHeader && hasLib ? 'openblas' : 'none';
}

process.stdout.write(detect());
