/**
 * AGENTS.md's dependency-direction block is the map a contributor reads before adding an import: it must list
 * exactly the sibling `dependencies`, `devDependencies` (`[dev: …]`) and `peerDependencies` (`[peer: …]`) of every
 * package.json in the workspace. The package.json files in turn must match the code: every `@cookbook/*` package a
 * file imports is declared (shipped code: a dependency or peer dependency; tests, benches, scripts: any of the three),
 * and every sibling declared is imported somewhere (a dependency by shipped code, a devDependency by any file).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

interface Manifest {
  name: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  private?: boolean;
}

type Kind = 'dependencies' | 'devDependencies' | 'peerDependencies';
const KINDS: readonly Kind[] = ['dependencies', 'devDependencies', 'peerDependencies'];

/** Per package folder (`rl`, `apps/cli`): its sibling dependencies of each kind, by folder name. */
type Graph = Map<string, Record<Kind, string[]>>;

/** Folder name (`rl`, `apps/cli` as `apps/cli`) → the sibling packages it depends on, by folder name. */
function workspaceGraph(): Graph {
  const manifests: { key: string; manifest: Manifest }[] = [];
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(ROOT, group))) {
      const file = join(ROOT, group, entry, 'package.json');
      if (!existsSync(file)) continue;
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
      manifests.push({ key: group === 'apps' ? `apps/${entry}` : entry, manifest });
    }
  }
  const keyOf = new Map(manifests.map(({ key, manifest }) => [manifest.name, key]));
  const siblings = (deps: Record<string, string> | undefined) =>
    Object.keys(deps ?? {})
      .filter((d) => keyOf.has(d))
      .map((d) => keyOf.get(d)!)
      .sort();
  return new Map(
    manifests.map(({ key, manifest }) => [
      key,
      {
        dependencies: siblings(manifest.dependencies),
        devDependencies: siblings(manifest.devDependencies),
        peerDependencies: siblings(manifest.peerDependencies),
      },
    ]),
  );
}

/** The names of a `[dev: a, b]` / `[peer: c]` list on a line; none when absent. */
function bracketList(line: string, tag: 'dev' | 'peer'): string[] {
  const m = new RegExp(`\\[${tag}:([^\\]]*)\\]`).exec(line);
  if (m === null) return [];
  return m[1]!
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d !== '')
    .sort();
}

/** The graph AGENTS.md states: `a, b → x, y   [dev: …] [peer: …]   (note)` per line. */
function documentedGraph(): Graph {
  const text = readFileSync(join(ROOT, 'AGENTS.md'), 'utf8');
  const section = text.slice(text.indexOf('## Dependency direction'));
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const out: Graph = new Map();
  for (const line of block.split('\n').filter((l) => l.trim() !== '')) {
    const [left, right = ''] = line.split('→');
    const deps = right.includes('(nothing of ours)')
      ? []
      : right
          .replace(/\[[^\]]*\]/g, '')
          .replace(/\(.*\)/, '')
          .split(',')
          .map((d) => d.trim())
          .filter((d) => d !== '');
    for (const name of left!.split(',').map((n) => n.trim())) {
      expect(out.has(name), `${name} is listed twice in AGENTS.md`).toBe(false);
      out.set(name, {
        dependencies: deps.sort(),
        devDependencies: bracketList(right, 'dev'),
        peerDependencies: bracketList(right, 'peer'),
      });
    }
  }
  return out;
}

/** A package's folder (`rl`, `apps/cli`) → its directory and package name. */
function packageDirs(): { key: string; dir: string; name: string; isPrivate: boolean }[] {
  const out: { key: string; dir: string; name: string; isPrivate: boolean }[] = [];
  for (const group of ['packages', 'apps']) {
    for (const entry of readdirSync(join(ROOT, group))) {
      const dir = join(ROOT, group, entry);
      const file = join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const { name, private: isPrivate = false } = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
      out.push({ key: group === 'apps' ? `apps/${entry}` : entry, dir, name, isPrivate });
    }
  }
  return out;
}

/** Every .ts / .mts / .js file under `dir` (no node_modules, build output or native build folders). */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry === 'dist' || entry === 'build' || entry.startsWith('.')) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts|js|mjs)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/**
 * The packages a file's code names in an import, an export-from, an `import type` or a dynamic import, among `names`
 * (with subpaths: `@cookbook/rl/x` is `@cookbook/rl`). Read with TypeScript's own pre-processor, so comments and
 * strings (an error message, code a test hands to another process) are not edges.
 */
export function importedPackages(code: string, names: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  for (const { fileName } of ts.preProcessFile(code, true, true).importedFiles) {
    const pkg = fileName.startsWith('@') ? fileName.split('/').slice(0, 2).join('/') : fileName.split('/')[0]!;
    if (names.has(pkg)) found.add(pkg);
  }
  return [...found].sort();
}

/**
 * Declared siblings that no file imports by a literal name, and why: the CLI loads plugins by a name built at run
 * time (`env=letter_count` → `cookbook-env-letter-count`, `renderer_name=chatml` → `cookbook-renderer-chatml`); its
 * tests need the example plugins installed.
 */
const LOADED_BY_NAME: Record<string, string[]> = { 'apps/cli': ['env-letter-count', 'renderer-chatml'] };

/**
 * Shipped code: `src/` minus tests, test helpers and fixtures (what a user's install runs). A private package (the
 * integration tests) ships nothing: all its files count.
 */
function isShipped(root: string, file: string, isPrivate: boolean): boolean {
  if (isPrivate) return true;
  const rel = file
    .slice(root.length + 1)
    .split('\\')
    .join('/');
  if (!rel.startsWith('src/')) return false;
  return !/(\.test\.ts$|\/__tests__\/|\/__fixtures__\/|\/test-utils\.ts$|\/testing\/)/.test(rel);
}

describe('package.json files against the imports', () => {
  const packages = packageDirs();
  const byName = new Map(packages.map((p) => [p.name, p.key]));
  const names = new Set(byName.keys());
  const graph = workspaceGraph();
  for (const { key, dir, name, isPrivate } of packages) {
    it(`${key}: imports only what it declares, and declares nothing it does not import`, () => {
      const deps = graph.get(key)!;
      const shipped = new Set<string>();
      const any = new Set<string>();
      const where = new Map<string, string>();
      for (const file of sourceFiles(dir)) {
        for (const pkg of importedPackages(readFileSync(file, 'utf8'), names)) {
          if (pkg === name) continue;
          const sibling = byName.get(pkg)!;
          any.add(sibling);
          if (isShipped(dir, file, isPrivate)) shipped.add(sibling);
          if (!where.has(sibling)) where.set(sibling, file.slice(ROOT.length + 1));
        }
      }
      const runtime = new Set([...deps.dependencies, ...deps.peerDependencies]);
      const declared = new Set([...runtime, ...deps.devDependencies]);
      for (const s of shipped) {
        expect(runtime.has(s), `${where.get(s)} (shipped code) imports ${s}: not in ${key}'s dependencies`).toBe(true);
      }
      for (const s of any) expect(declared.has(s), `${where.get(s)} imports ${s}: not declared by ${key}`).toBe(true);
      for (const d of deps.dependencies) {
        expect(shipped.has(d), `${key} declares the dependency ${d}, but no shipped file imports it`).toBe(true);
      }
      for (const d of [...deps.devDependencies, ...deps.peerDependencies]) {
        if (LOADED_BY_NAME[key]?.includes(d)) continue;
        expect(any.has(d), `${key} declares ${d} (dev or peer), but no file imports it`).toBe(true);
      }
    });
  }

  it('reads imports, export-froms and dynamic imports, not comments', () => {
    const code = [
      "import { a } from '@cookbook/core';",
      "import type { B } from '@cookbook/rl/sub';",
      "export { c } from '@cookbook/eval';",
      "const m = await import('@cookbook/local-tinker');",
      "import '@cookbook/tools';",
      "// import { x } from '@cookbook/gem';",
      "/* from '@cookbook/engine' */",
      "const s = 'https://example.com'; // from '@cookbook/distillation'",
      "const script = `await import('@cookbook/supervised')`;",
      "import x from 'zod';",
    ].join('\n');
    const names = new Set(['@cookbook/core', '@cookbook/eval', '@cookbook/local-tinker', '@cookbook/rl']);
    for (const n of ['@cookbook/tools', '@cookbook/gem', '@cookbook/engine', '@cookbook/distillation']) names.add(n);
    names.add('@cookbook/supervised');
    expect(importedPackages(code, names)).toEqual([
      '@cookbook/core',
      '@cookbook/eval',
      '@cookbook/local-tinker',
      '@cookbook/rl',
      '@cookbook/tools',
    ]);
  });
});

describe('AGENTS.md dependency direction', () => {
  it('lists every workspace package with exactly its sibling dependencies, dev and peer dependencies', () => {
    const actual = workspaceGraph();
    const documented = documentedGraph();
    expect([...documented.keys()].sort()).toEqual([...actual.keys()].sort());
    for (const [name, deps] of actual) {
      for (const kind of KINDS) expect(documented.get(name)?.[kind], `${name} ${kind}`).toEqual(deps[kind]);
    }
  });

  it('keeps the client below the service: tinker-client depends on neither local-tinker nor the engine', () => {
    const client = workspaceGraph().get('tinker-client')!;
    const all = KINDS.flatMap((kind) => client[kind]);
    expect(all).not.toContain('local-tinker');
    expect(all).not.toContain('engine');
    expect(all).toContain('tinker-wire');
  });

  it('reads the dev and peer lists of a line', () => {
    expect(bracketList('core   [dev: local-tinker, rl] [peer: local-tinker]   (note)', 'dev')).toEqual([
      'local-tinker',
      'rl',
    ]);
    expect(bracketList('core   [dev: local-tinker] [peer: local-tinker]', 'peer')).toEqual(['local-tinker']);
    expect(bracketList('core   (note)', 'dev')).toEqual([]);
  });
});
