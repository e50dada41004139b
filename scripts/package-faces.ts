/**
 * How wide is each package's face? For every workspace package, counts the names its entry points export (the `.`
 * export and every named subpath of its `package.json` `exports`, resolved through `export *` with the TypeScript
 * checker) and how many of them no other workspace package or app imports (tests and benches of other packages count
 * as importers; a package's own files do not).
 * Run: node --import tsx scripts/package-faces.ts   (add `--json` for one JSON object per package, `--unused
 *   @cookbook/core` to list that package's names no other package imports)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');

interface Pkg {
  name: string;
  dir: string;
  /** Subpath → source file, from the `@cookbook/source` condition (falling back to the `types` or the path itself). */
  entries: Map<string, string>;
}

function sourceOf(target: unknown): string | undefined {
  if (typeof target === 'string') return target.endsWith('.ts') ? target : undefined;
  if (target !== null && typeof target === 'object') {
    const t = target as Record<string, unknown>;
    for (const k of ['@cookbook/source', 'types', 'import', 'default']) {
      const s = sourceOf(t[k]);
      if (s !== undefined) return s;
    }
  }
  return undefined;
}

function packages(): Pkg[] {
  const out: Pkg[] = [];
  for (const top of ['packages', 'apps']) {
    for (const d of readdirSync(join(repo, top))) {
      const dir = join(repo, top, d);
      let manifest: { name?: string; exports?: unknown };
      try {
        manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      if (manifest.name === undefined) continue;
      const entries = new Map<string, string>();
      const exp = manifest.exports;
      const map: Record<string, unknown> =
        typeof exp === 'string' ||
        (exp !== null && typeof exp === 'object' && !Object.keys(exp).some((k) => k.startsWith('.')))
          ? { '.': exp }
          : ((exp ?? {}) as Record<string, unknown>);
      for (const [sub, target] of Object.entries(map)) {
        const src = sourceOf(target);
        if (src !== undefined && !sub.includes('*')) entries.set(sub, join(dir, src));
      }
      out.push({ name: manifest.name, dir, entries });
    }
  }
  return out;
}

function walk(dir: string, files: string[] = []): string[] {
  for (const f of readdirSync(dir)) {
    if (f === 'node_modules' || f === 'dist' || f.startsWith('.')) continue;
    const p = join(dir, f);
    if (statSync(p).isDirectory()) walk(p, files);
    else if (/\.(ts|tsx|mts)$/.test(f) && !f.endsWith('.d.ts')) files.push(p);
  }
  return files;
}

const pkgs = packages();
const allEntries = pkgs.flatMap((p) => [...p.entries.values()]);
const program = ts.createProgram(allEntries, {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  allowJs: false,
  noEmit: true,
  skipLibCheck: true,
  customConditions: ['@cookbook/source'],
});
const checker = program.getTypeChecker();

function exportedNames(file: string): Set<string> {
  const sf = program.getSourceFile(file);
  if (sf === undefined) return new Set();
  const sym = checker.getSymbolAtLocation(sf);
  if (sym === undefined) return new Set();
  return new Set(checker.getExportsOfModule(sym).map((s) => s.getName()));
}

/**
 * Names each other package imports from `spec` (a package name or `name/subpath`): static imports and re-exports, and
 * `const { a, b } = await import(spec)`; `*` (every name counts as used) for a namespace import. A bare
 * `await import(spec)` (scripts that tests write out) names nothing.
 */
const importRe = /(?:import|export)\s+(type\s+)?(?:\{([^}]*)\}|\*\s+as\s+\w+|\*)\s+from\s+['"]([^'"]+)['"]/g;
const dynRe = /(?:\{([^}]*)\}\s*=\s*await\s+)?import\(\s*['"]([^'"]+)['"]\s*\)/g;
const used = new Map<string, Set<string>>();
for (const p of pkgs) {
  for (const file of walk(p.dir)) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(importRe)) {
      const spec = m[3]!;
      const target = pkgs.find((q) => spec === q.name || spec.startsWith(`${q.name}/`));
      if (target === undefined || target === p) continue;
      const set = used.get(spec) ?? new Set<string>();
      if (m[2] === undefined) set.add('*');
      else
        for (const part of m[2].split(',')) {
          const name = part
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0]!
            .trim();
          if (name !== '') set.add(name);
        }
      used.set(spec, set);
    }
    for (const m of text.matchAll(dynRe)) {
      const spec = m[2]!;
      const target = pkgs.find((q) => spec === q.name || spec.startsWith(`${q.name}/`));
      if (target === undefined || target === p) continue;
      const set = used.get(spec) ?? new Set<string>();
      if (m[1] !== undefined) for (const part of m[1].split(',')) set.add(part.split(':')[0]!.trim());
      used.set(spec, set);
    }
  }
}

const json = process.argv.includes('--json');
/** `--unused NAME`: also print the names of package NAME that no other package imports. */
const listFor = process.argv.includes('--unused') ? process.argv[process.argv.indexOf('--unused') + 1] : undefined;
let total = 0;
let totalUnused = 0;
const rows: { package: string; entries: number; exported: number; importedByNoOther: number }[] = [];
for (const p of pkgs.sort((a, b) => a.name.localeCompare(b.name))) {
  let exported = 0;
  let unused = 0;
  for (const [sub, file] of p.entries) {
    const spec = sub === '.' ? p.name : `${p.name}/${sub.replace(/^\.\//, '')}`;
    const names = exportedNames(file);
    const importers = used.get(spec) ?? new Set();
    exported += names.size;
    if (importers.has('*')) continue;
    for (const n of names)
      if (!importers.has(n)) {
        unused++;
        if (listFor === p.name) console.log(`${spec}: ${n}`);
      }
  }
  total += exported;
  totalUnused += unused;
  rows.push({ package: p.name, entries: p.entries.size, exported, importedByNoOther: unused });
}
if (json) for (const r of rows) console.log(JSON.stringify(r));
else {
  console.log('package'.padEnd(30), 'entries', 'exported', 'imported by no other package');
  for (const r of rows)
    console.log(
      r.package.padEnd(30),
      String(r.entries).padStart(7),
      String(r.exported).padStart(8),
      String(r.importedByNoOther).padStart(6),
    );
  console.log('total'.padEnd(30), ''.padStart(7), String(total).padStart(8), String(totalUnused).padStart(6));
}
